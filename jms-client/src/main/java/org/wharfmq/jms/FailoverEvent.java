package org.wharfmq.jms;

import javax.jms.JMSException;

/**
 * What a {@link FailoverListener} is told.
 *
 * @param kind     what happened
 * @param address  the server's address: the one lost (DISCONNECTED, FAILED) or the one reconnected to (RECONNECTED),
 *                 e.g. {@code tcp://mq2:7414}
 * @param attempts reconnection attempts made so far (0 for DISCONNECTED); each goes once round the URL's addresses
 * @param cause    why the connection was lost (DISCONNECTED) or why reconnecting gave up (FAILED); null for RECONNECTED
 */
public record FailoverEvent(Kind kind, String address, int attempts, JMSException cause) {

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
