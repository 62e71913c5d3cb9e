package org.wharfmq.protocol.message;

import org.wharfmq.protocol.frame.MalformedFrameException;

/** The JMS message type, first byte of an encoded message. The server never looks further into the body. */
public enum BodyType {
    /** A plain {@code Message} with no body. */
    MESSAGE(0),
    /** {@code BytesMessage}: the body is the application's bytes. */
    BYTES(1),
    /** {@code TextMessage}: the body is the text in UTF-8. */
    TEXT(2),
    /** {@code MapMessage}. */
    MAP(3),
    /** {@code StreamMessage}. */
    STREAM(4),
    /** {@code ObjectMessage}: Java serialisation bytes. */
    OBJECT(5);

    private final byte code;

    BodyType(int code) {
        this.code = (byte) code;
    }

    /** The byte written on the wire. */
    public byte code() {
        return code;
    }

    /** The body type for a wire byte. */
    public static BodyType of(byte code) {
        return switch (code) {
            case 0 -> MESSAGE;
            case 1 -> BYTES;
            case 2 -> TEXT;
            case 3 -> MAP;
            case 4 -> STREAM;
            case 5 -> OBJECT;
            default -> throw new MalformedFrameException("unknown message body type " + code);
        };
    }
}
