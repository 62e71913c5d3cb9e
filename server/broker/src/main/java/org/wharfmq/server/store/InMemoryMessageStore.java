package org.wharfmq.server.store;

/**
 * A store that keeps nothing (tests, and embedding without a disk): messages live only in the queues, so every
 * record is "durable" at once and every completion runs on the caller's thread before the method returns. Nothing
 * survives a restart. {@link org.wharfmq.server.WharfServer#start(org.wharfmq.server.config.ServerConfig)} uses the
 * journal; pass this store to {@code start(config, store)} to run without one.
 */
public final class InMemoryMessageStore implements MessageStore {

    @Override
    public void put(StoredMessage message, StoreCompletion completion) {
        completion.completed(null);
    }

    @Override
    public void remove(Iterable<? extends StoredMessage> messages, StoreCompletion completion) {
        completion.completed(null);
    }

    @Override
    public void putInTransaction(long transactionId, StoredMessage message) {
        // nothing to record: the transaction's messages are held by its session until commit
    }

    @Override
    public void removeInTransaction(long transactionId, StoredMessage message) {
        // nothing to record: the acknowledgement takes effect in the queue at commit
    }

    @Override
    public void commit(long transactionId, StoreCompletion completion) {
        completion.completed(null);
    }

    @Override
    public void rollback(long transactionId, StoreCompletion completion) {
        completion.completed(null);
    }

    @Override
    public void close() {
    }
}
