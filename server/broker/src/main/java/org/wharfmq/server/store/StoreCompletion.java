package org.wharfmq.server.store;

/**
 * Called by a {@link MessageStore} once a record is durable (or could not be written). The store may call it on
 * any thread, including the caller's own thread before the store method returns (the in-memory store does), so an
 * implementation hands work that needs a connection's state back to that connection's event loop itself.
 */
@FunctionalInterface
public interface StoreCompletion {

    /** For records nobody waits for, such as the removal of an expired message. */
    StoreCompletion NONE = failure -> {
    };

    /**
     * @param failure null when the record is durable; otherwise why it could not be stored
     */
    void completed(Throwable failure);
}
