package org.wharfmq.server.store;

/**
 * Where persistent messages are kept so that they survive a restart. Only persistent messages are passed to a
 * store; non-persistent ones live in the queues alone.
 *
 * <p>Every method returns at once. Methods that take a {@link StoreCompletion} call it when the record is durable;
 * the server waits for that call before it tells a client its message is safe (the OK of a synchronous SEND, the
 * OK of a COMMIT or of an answered ACK). This is what lets a journal with group commit (one writer thread
 * collecting records into batches, one sync per batch, then the batch's completions) slot in without changing the
 * callers. A completion may run on any thread, or on the caller's thread before the method returns.
 *
 * <p>Transactional records ({@link #putInTransaction}, {@link #removeInTransaction}) carry no completion of their
 * own: they only take effect with the transaction's {@link #commit} marker, whose completion covers them all.
 * A transaction that is rolled back, or never committed before a crash, leaves no trace after recovery.
 *
 * <p>Implementations must be thread-safe: sessions on every event loop call them concurrently.
 */
public interface MessageStore extends AutoCloseable {

    /** Records a persistent message sent outside a transaction. */
    void put(StoredMessage message, StoreCompletion completion);

    /**
     * Records the copies of one persistent message put on several queues at once outside a transaction (a publication's
     * on its durable subscriptions; the copies carry the same bytes): {@code completion} runs once all of them are
     * durable, and a crash leaves all of them or none. Each copy is consumed on its own ({@link #remove}). By default
     * one {@link #put} each.
     */
    default void putCopies(java.util.List<? extends StoredMessage> copies, StoreCompletion completion) {
        StoreCompletion all = Persistence.countdown(copies.size(), completion);
        for (int i = 0; i < copies.size(); i++) {
            put(copies.get(i), all);
        }
    }

    /** Records that persistent messages were consumed (acknowledged outside a transaction, expired or discarded). */
    void remove(Iterable<? extends StoredMessage> messages, StoreCompletion completion);

    /** Records a persistent message sent inside transaction {@code transactionId}; effective at commit. */
    void putInTransaction(long transactionId, StoredMessage message);

    /**
     * Records the copies of one persistent message sent inside transaction {@code transactionId} (a publication's on
     * its durable subscriptions; the copies carry the same bytes); effective at commit. By default one
     * {@link #putInTransaction} each.
     */
    default void putCopiesInTransaction(long transactionId, java.util.List<? extends StoredMessage> copies) {
        for (int i = 0; i < copies.size(); i++) {
            putInTransaction(transactionId, copies.get(i));
        }
    }

    /** Records a persistent message consumed inside transaction {@code transactionId}; effective at commit. */
    void removeInTransaction(long transactionId, StoredMessage message);

    /** Writes the commit marker of a transaction, making its records effective. */
    void commit(long transactionId, StoreCompletion completion);

    /** Writes the rollback marker of a transaction, discarding its records. */
    void rollback(long transactionId, StoreCompletion completion);

    /**
     * Writes the prepare marker of an XA transaction branch: its records (written before it) and {@code branch} (the
     * Xid, opaque to the store) are durable when {@code completion} runs, and from then on the transaction survives a
     * restart in doubt, neither committed nor rolled back, until its commit or rollback marker
     * ({@link RecoveryTarget#transactionPrepared}). A store that keeps nothing across restarts has nothing to record.
     */
    default void prepare(long transactionId, byte[] branch, StoreCompletion completion) {
        completion.completed(null);
    }

    /**
     * Runs {@code completion} once every record handed to the store before this call is durable, writing nothing: the
     * barrier for records handed over with {@link StoreCompletion#NONE}, which nobody waited for and which become
     * durable with the next batch that is synced (a session's unanswered acknowledgements, before its close is
     * answered). A store that keeps nothing across restarts completes it at once.
     */
    default void sync(StoreCompletion completion) {
        completion.completed(null);
    }

    /**
     * Records that a persistent message was handed to a consumer for the {@code deliveryCount}-th time, so that
     * after a crash it comes back marked redelivered with its count. Nobody waits for this record: it becomes
     * durable with the next batch that is synced.
     */
    default void delivered(StoredMessage message, int deliveryCount) {
    }

    /** Records a queue created at run time (auto-created by use), so that it exists again after a restart. */
    default void queueCreated(String queueName) {
    }

    /**
     * Records that a queue created at run time was deleted (unused for the auto-delete delay), so that it does not
     * come back after a restart. It holds no message then; one that a crash left live still brings it back.
     */
    default void queueDeleted(String queueName) {
    }

    /** Records a durable subscription created (or replaced), so that it exists again after a restart. */
    default void subscriptionCreated(SubscriptionRecord subscription) {
    }

    /**
     * Records that the durable subscription whose queue is {@code queueName} was deleted. Its messages are removed
     * with {@link #remove} by the caller; recovery also drops any message left on a queue of a deleted subscription.
     */
    default void subscriptionDeleted(String queueName) {
    }

    /**
     * Replays what the store holds into {@code target}: called once at startup, before any client connects. A
     * store that keeps nothing across restarts replays nothing.
     */
    default void recover(RecoveryTarget target) {
    }

    /** Stops the store; records not yet durable are completed with a failure. */
    @Override
    void close();
}
