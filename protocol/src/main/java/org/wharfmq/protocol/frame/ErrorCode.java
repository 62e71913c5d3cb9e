package org.wharfmq.protocol.frame;

/**
 * Why a request failed, carried in an ERROR frame. The client maps each code to the JMS exception the
 * specification names (for example {@link #UNKNOWN_DESTINATION} to {@code InvalidDestinationException}).
 */
public enum ErrorCode {
    /** The peer sent bytes that are not a valid frame; the connection is closed after this error. */
    PROTOCOL_ERROR(1),
    /** The HELLO named a protocol version this server does not speak. */
    UNSUPPORTED_VERSION(2),
    /** The user name or password was rejected. */
    AUTHENTICATION_FAILED(3),
    /** The destination does not exist and auto-creation is off. */
    UNKNOWN_DESTINATION(10),
    /** The queue holds its maximum depth of messages. */
    QUEUE_FULL(11),
    /** The message is longer than the server's maximum message length. */
    MESSAGE_TOO_LARGE(12),
    /** The message selector could not be parsed. */
    INVALID_SELECTOR(13),
    /** The transaction could not commit (an earlier send in it failed) and was rolled back. */
    TRANSACTION_ROLLED_BACK(14),
    /** The request is not valid in the current state, e.g. it names a closed session or consumer. */
    ILLEGAL_STATE(15),
    /** The server is shutting down, or an administrator ended this connection (the message says which). */
    SERVER_CLOSING(16),
    /** The client ID is in use by another connection of the server, or is not a valid client ID. */
    INVALID_CLIENT_ID(17),
    /**
     * A queue cannot be created: the server holds its maximum number of queues (setting maxQueues), or, for a temporary
     * queue, the connection holds its maximum number of them (setting maxTemporaryQueuesPerConnection).
     */
    TOO_MANY_QUEUES(18),
    /**
     * The message inside a well-formed SEND does not follow the message encoding (a header field, a property); the
     * message says what and where. It was not stored, and the connection stays open.
     */
    MALFORMED_MESSAGE(19),
    /**
     * The connection's user may not do this: a permission is missing, or a message claims another user as its
     * JMSXUserID. The message names the user, what was refused and why (docs/security.md). Nothing was changed, and
     * the connection stays open.
     */
    NOT_AUTHORISED(20),
    /**
     * The connection is refused: the server holds its maximum number of connections, in total (setting maxConnections)
     * or from the client's address (setting maxConnectionsPerAddress). The message names the limit, the count and the
     * setting; it answers the HELLO, and the connection is closed.
     */
    TOO_MANY_CONNECTIONS(21),
    /**
     * The connection did not complete its handshake (accept to HELLO_OK, TLS and authentication included) within the
     * server's handshake timeout (setting handshakeTimeoutMillis); sent with request id 0 to a client that has sent its
     * HELLO but not finished authenticating, then the connection is closed (a peer without a HELLO is closed silently). The message names the limit, the setting, what the server was still waiting for and the
     * fix. A client may connect again (nothing was refused); an older client reads it as {@link #INTERNAL_ERROR}.
     */
    HANDSHAKE_TIMEOUT(22),
    /**
     * An administrator ended the connection ({@code wharf admin end connection}); sent with request id 0, then the
     * connection closes. Unlike a lost connection or a server stopping, the client does not reconnect: it reports the
     * message, which says who ended it, to the ExceptionListener.
     */
    CONNECTION_ENDED(23),
    /**
     * This member of a replicated queue manager is a replica, not the active instance: it refuses the HELLO of an
     * application (whose address list goes on to the next member), and in a status session any command other than
     * the read-only ones, naming the active member. An older client reads it as {@link #INTERNAL_ERROR}, and goes on
     * to its next address just the same.
     */
    NOT_ACTIVE(24),
    /**
     * A receiver channel cannot take a batch, and trying again would not help: a message it could not put could not
     * go to its dead-letter queue either. The message names why and the fix; the sending channel stops (nothing is
     * lost: the batch stays on its transmission queue) until an operator starts it again (docs/distributed.md).
     */
    CHANNEL_STOPPED(30),
    /**
     * XA: the request names a transaction branch the queue manager does not know (never started, already completed,
     * or rolled back by its transaction timeout); the client raises {@code XAException} XAER_NOTA.
     */
    XAER_NOTA(40),
    /** XA: the request is not allowed in the branch's state (commit of an active branch, say): XAER_PROTO. */
    XAER_PROTO(41),
    /** XA: a branch with this Xid exists already (start without JOIN or RESUME): XAER_DUPID. */
    XAER_DUPID(42),
    /** XA: the request's flags are not valid for it: XAER_INVAL. */
    XAER_INVAL(43),
    /** XA: the queue manager could not do it (its store failed): XAER_RMERR. */
    XAER_RMERR(44),
    /**
     * XA: the queue manager cannot complete the request now (its store could not record a prepared branch's commit);
     * the branch is as it was, and the transaction manager tries again later: XAER_RMFAIL.
     */
    XAER_RMFAIL(47),
    /** XA: the branch was rolled back (marked rollback-only: a send in it failed, TMFAIL, its session closed): XA_RBROLLBACK. */
    XA_RBROLLBACK(45),
    /** XA: the branch was rolled back because its transaction timeout expired: XA_RBTIMEOUT. */
    XA_RBTIMEOUT(46),
    /** A bug or an unexpected condition in the server; the message says more. */
    INTERNAL_ERROR(99);

    private final short code;

    ErrorCode(int code) {
        this.code = (short) code;
    }

    /** The value written on the wire. */
    public short code() {
        return code;
    }

    /** The error for a wire value; unknown values map to {@link #INTERNAL_ERROR} so a newer server never breaks an older client. */
    public static ErrorCode of(short code) {
        for (ErrorCode c : values()) {
            if (c.code == code) {
                return c;
            }
        }
        return INTERNAL_ERROR;
    }
}
