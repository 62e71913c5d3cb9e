package org.wharfmq.jms;

import javax.jms.JMSException;

/**
 * What a {@link FailoverListener} is told. (A final class, not a record: the jakarta client is made from this one's
 * bytecode by the Eclipse Transformer, which does not rename a record's component types, here JMSException.)
 */
public final class FailoverEvent {

    private final Kind kind;
    private final String address;
    private final int attempts;
    private final JMSException cause;

    /**
     * @param kind     what happened
     * @param address  the server's address: the one lost (DISCONNECTED, FAILED) or the one reconnected to
     *                 (RECONNECTED), e.g. {@code tcp://mq2:7414}
     * @param attempts reconnection attempts made so far (0 for DISCONNECTED); each goes once round the URL's addresses
     * @param cause    why the connection was lost (DISCONNECTED) or why reconnecting gave up (FAILED); null for
     *                 RECONNECTED
     */
    public FailoverEvent(Kind kind, String address, int attempts, JMSException cause) {
        this.kind = kind;
        this.address = address;
        this.attempts = attempts;
        this.cause = cause;
    }

    /** What happened. */
    public Kind kind() {
        return kind;
    }

    /** The server's address: the one lost (DISCONNECTED, FAILED) or the one reconnected to (RECONNECTED). */
    public String address() {
        return address;
    }

    /** Reconnection attempts made so far (0 for DISCONNECTED). */
    public int attempts() {
        return attempts;
    }

    /** Why the connection was lost (DISCONNECTED) or why reconnecting gave up (FAILED); null for RECONNECTED. */
    public JMSException cause() {
        return cause;
    }

    @Override
    public String toString() {
        return "FailoverEvent[" + kind + " " + address + ", attempts " + attempts + (cause == null ? "" : ", " + cause.getMessage()) + "]";
    }

    /** What happened. */
    public enum Kind {
        /**
         * The connection to the server was lost and the client is reconnecting: sends and synchronous receives wait,
         * MessageListeners are not called meanwhile.
         */
        DISCONNECTED,
        /**
         * The client has connected again (to the same server or the next in its list) and re-established the
         * connection's client ID, temporary destinations, sessions and consumers: work goes on. Messages the
         * application received and had not acknowledged come again marked JMSRedelivered; a transaction that was open
         * is rolled back (its commit says so).
         */
        RECONNECTED,
        /** Reconnecting gave up (attempts exhausted, or credentials refused); the ExceptionListener is told too. */
        FAILED
    }
}
