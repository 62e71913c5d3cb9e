package org.wharfmq.server.queue;

import io.netty.buffer.ByteBuf;

import java.util.List;

/**
 * Everything a queue's paging ({@link QueuePaging}, {@link PagedLookups}, {@link PagingDiskFailure}) asks of its
 * {@link LocalQueue}, in one place: its lock, what it holds against its budget, its consumers' correlation ids, and
 * the hand-over of messages between memory and the page files. The paging classes hold no reference to the queue but
 * this one; the queue's side of the same seam is {@link QueuePager}.
 *
 * <h2>Ownership</h2>
 * The state behind these methods is the queue's and its parts' ({@link QueueAccounting}: depth, bytes held, budgets;
 * {@link QueueDispatch}: consumers, the lists), guarded by the queue's lock. Paging reads and changes it only through
 * these methods; those documented "under the lock" assert that the calling thread holds it.
 *
 * <p>Implemented once, by the queue (a single implementation: the JIT inlines the calls).
 */
interface PagingHost {

    // ---- the queue's lock ----

    /** Takes the queue's lock (the paging thread does so only to hand messages over, never across disk I/O). */
    void lock();

    /**
     * Releases the queue's lock and runs what came due under it (dead letters, events, producers to wake), as
     * {@link LocalQueue#unlock()} does.
     */
    void unlock();

    /** Whether the queue is deleted: under the lock (a paged browse reads it without: a hint). */
    boolean deleted();

    // ---- its budget ----

    /** The queue's own memory budget, its policy and disk budget (a volatile read, any thread). */
    MemoryLimit memoryLimit();

    /** Whether the queue holds its own memory budget or more (a volatile read, any thread). */
    boolean overBudget();

    /** The memory of the messages the depth counts, in bytes (the low watermark's measure); under the lock. */
    long bytesHeld();

    /** Whether no message waits in memory for the queue's consumers (all it holds is delivered); under the lock. */
    boolean nothingWaits();

    // ---- its consumers ----

    /**
     * Whether any consumer is registered, with credit or not: paged messages are read back only for consumers. Under
     * the lock.
     */
    boolean hasConsumers();

    /** Whether a consumer waits for messages with {@code correlationId}, with credit or not; under the lock. */
    boolean awaitsCorrelationId(String correlationId);

    /** Whether a consumer with credit waits for messages with {@code correlationId}; under the lock. */
    boolean waitsWithCredit(String correlationId);

    // ---- messages between memory and the page files ----

    /**
     * A message of this queue made of {@code content}, bytes of a page file's record (a copy the message owns, or a
     * slice of the read buffer to evaluate a selector on), its headers read from them. Any thread; takes no lock.
     */
    QueuedMessage fromPage(ByteBuf content);

    /** A message read back from the page files is in memory again: its bytes count against the budgets. Under the lock. */
    void hold(QueuedMessage m);

    /**
     * Offers a message read back (or found out of turn) among the paged ones as a new message would be, but never
     * pages it again: to a waiting consumer, added to {@code receivers} (created when null) for the caller to flush
     * once the lock is released ({@link QueueDispatch#flush}), else linked. Under the lock.
     *
     * @return {@code receivers}, or the list created for the consumer it went to
     */
    List<QueueConsumer> offerReadBack(QueuedMessage m, List<QueueConsumer> receivers);

    /**
     * Paged messages were written to disk: their {@code bytes} in memory are let go (they stay in the depth); back
     * under its budget the queue wakes its producers, under its low watermark it reads back. Under the lock.
     */
    void letGo(long bytes);

    /**
     * A disk budget is no longer spent: unless the memory budget still holds them back, the producers waiting for the
     * queue are due. Under the lock.
     */
    void pageFullEnded();
}
