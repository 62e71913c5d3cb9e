package org.wharfmq.server.session;

/**
 * Where the deliveries of an in-process session go instead of DELIVER frames ({@link InProcessTakes}): the queue
 * manager's own code takes them, with no frame and no encoding.
 */
interface DeliverySink {

    /**
     * A delivery was recorded for one of the session's consumers: called under the session's lock (inside the
     * queue's), from whatever thread put the message there, so it only queues; the delivery is live (not settled).
     */
    void delivered(Delivery delivery);

    /** Gets the deliveries queued so far handled; called with no lock held, after the queue let go of its own. */
    void flush();

    /** The consumer's queue was deleted by an administrator: nothing more comes, and {@code reason} says why. */
    void failed(String reason);
}
