package org.wharfmq.flow.runtime;

import javax.jms.JMSException;
import javax.jms.Session;

/**
 * How a reader's sends outside a transaction (its plain session's: an output node's in transaction mode NO, or any of
 * a non-transactional invocation's) reach its host's provider: as the plain session sends them ({@link #JMS}, any
 * provider); in the flow host, put inside the queue manager by the reader's thread, with no frame and no hand-off to
 * the connection's event loop (docs/architecture.md, "Flows"). Either way a send is refused, and throws, as the
 * session's send would be. Its transacted session's sends go with that session's transaction, over the connection.
 */
@FunctionalInterface
public interface PlainSends {

    /** Nothing to undo: the plain session's sends go as it sends them. */
    AutoCloseable AS_SENT = () -> { };

    /** The plain session's sends go over its connection, as any JMS session's. */
    PlainSends JMS = (flow, plain) -> AS_SENT;

    /**
     * Makes the sends outside a transaction of {@code plain}, a reader's plain session of flow {@code flow}, go the
     * host's way, on the reader's thread (the one that calls this, and that alone sends on {@code plain}).
     *
     * @return what ends that way, closed by the reader's thread before it closes its connection
     * @throws JMSException why it cannot (the flow's user is no longer known ...)
     */
    AutoCloseable open(String flow, Session plain) throws JMSException;

    /** Closes what {@link #open} returned (null: nothing); a failure is only logged. */
    static void closeQuietly(AutoCloseable sends) {
        if (sends == null) {
            return;
        }
        try {
            sends.close();
        } catch (Exception e) {
            System.getLogger(PlainSends.class.getName()).log(System.Logger.Level.DEBUG, "Closing a flow's sends: " + e);
        }
    }
}
