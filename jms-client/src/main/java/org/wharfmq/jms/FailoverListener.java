package org.wharfmq.jms;

/**
 * Observes a {@link WharfConnection} losing its server and reconnecting ({@link WharfConnection#setFailoverListener}),
 * which the application otherwise does not see: while the client reconnects, sends and receives wait, and the
 * connection's ExceptionListener is told only if reconnecting gives up. For logging, metrics, or a health check that
 * reports "reconnecting".
 *
 * <p>Called on the connection's reconnection thread, one event at a time and in order (DISCONNECTED, then RECONNECTED
 * or FAILED); the reconnection goes on once it returns, so it should return quickly and must not wait for the
 * connection (a send or a receive on it would wait for the reconnection it holds up).
 */
@FunctionalInterface
public interface FailoverListener {

    /** Something happened to the connection's link to its server. */
    void onFailover(FailoverEvent event);
}
