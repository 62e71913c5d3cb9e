package org.wharfmq.server.queue;

import org.wharfmq.protocol.selector.Selector;

/**
 * What a {@link LocalQueue} sees of a consumer: which messages it wants, how many it may be sent, and where to
 * hand them. Implemented by the session layer's consumer.
 */
public interface QueueConsumer {

    /** The consumer's selector; {@link Selector#ALL_MATCH} when it has none. */
    Selector selector();

    /** The consumer's credit, guarded by the queue's lock. */
    DeliveryWindow window();

    /**
     * Takes a message off the queue for this consumer: records the delivery and queues the DELIVER frame. Called
     * with the queue's lock held, from any thread, so it must only record (never write to a socket); the queue calls
     * {@link #flushDeliveries()} after releasing the lock.
     */
    void deliver(QueuedMessage message);

    /** Sends the deliveries recorded by {@link #deliver}; called without any queue lock held. */
    void flushDeliveries();

    /**
     * An administrator deleted the consumer's queue: nothing more will be delivered to it, and its client should be
     * told why. Called without any queue lock held; a consumer with no client to tell (a test's) does nothing.
     */
    default void queueDeleted(String reason) {
    }
}
