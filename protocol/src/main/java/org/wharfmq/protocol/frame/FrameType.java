package org.wharfmq.protocol.frame;

/**
 * The type byte that follows the length of every frame. Values are part of the wire format: never renumber,
 * only add. The direction column of {@code docs/protocol.md} says who sends each one.
 */
public enum FrameType {
    HELLO(1), HELLO_OK(2), PING(3), OK(4), ERROR(5), CLOSE(6), SET_CLIENT_ID(7), AUTH_MECHANISMS(8), AUTH(9),
    CREATE_SESSION(10), CLOSE_SESSION(11), CREATE_PRODUCER(12), CLOSE_PRODUCER(13),
    CREATE_CONSUMER(14), CLOSE_CONSUMER(15), CREDIT(16), PULL(17), PULL_DONE(18), CONSUMER_FAILED(19),
    SEND(20), DELIVER(21), ACK(22), COMMIT(23), ROLLBACK(24), UNSUBSCRIBE(25),
    CREATE_TEMPORARY(26), DELETE_TEMPORARY(27), REJECT(28), AUTH_CHALLENGE(29), AUTH_RESPONSE(30),
    PRODUCER_CREDIT(31), CLAIM_KEY(32),
    XA_START(36), XA_END(37), XA_PREPARE(38), XA_COMMIT(39), XA_ROLLBACK(40), XA_RECOVER(41), XA_RESULT(42),
    CHANNEL_OPEN(43), CHANNEL_STATUS(44), CHANNEL_MESSAGE(45), CHANNEL_END_BATCH(46),
    CHANNEL_FAST_MESSAGE(47),
    STATUS_REQUEST(48), STATUS_REPLY(49),
    CHANNEL_FAST_CONFIRM(50),
    DELIVER_KEEP(51), DELIVER_SAME(52), SHARE_DELIVERIES(53);

    private static final FrameType[] BY_CODE = new FrameType[64];

    static {
        for (FrameType t : values()) {
            BY_CODE[t.code] = t;
        }
    }

    private final byte code;

    FrameType(int code) {
        this.code = (byte) code;
    }

    /** The byte written on the wire. */
    public byte code() {
        return code;
    }

    /** The type for a wire byte, or null when the byte names no frame type. */
    public static FrameType of(byte code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }
}
