package org.wharfmq.server.queue;

import org.wharfmq.server.store.StoreCompletion;

import java.util.List;
import java.util.concurrent.Executor;
import java.util.function.IntConsumer;

/**
 * Everything a {@link LocalQueue} and its parts ({@link QueueAdministration}, {@link QueueRecovery}) ask of the
 * queue's paging, in one place (docs/resilience.md, "Paging"). Its implementation, {@link QueuePaging} with
 * {@link PagedLookups} and {@link PagingDiskFailure}, sees the queue only through {@link PagingHost}.
 *
 * <h2>Ownership</h2>
 * The paged messages (those not written yet and those on disk), their counts against the disk budgets, the page files
 * and the consumers' lookups among them are the paging's, guarded by the queue's lock: the methods documented "under
 * the lock" assert that the caller holds it. Disk I/O runs on the {@link Pager}'s thread, never under the lock.
 *
 * <p>Implemented once, by {@link QueuePaging} (a single implementation: the JIT inlines the calls).
 */
interface QueuePager {

    /**
     * What holds a paging queue's producers back ({@link #pageFull}): a disk budget when its page-full policy is block,
     * or its write-behind.
     */
    enum PageFull {
        /** No disk budget holds them back. */
        NONE,
        /** The queue's own disk budget (its maxPageBytes) is spent: the queue wakes them as its messages are read back. */
        OWN_BUDGET,
        /** The server's disk budget is spent (or the page files fail): other queues' reads free it. */
        SERVER_BUDGET,
        /**
         * The messages waiting to be written hold {@link org.wharfmq.server.Configuration#PAGE_WRITE_BEHIND_BYTES} or
         * more: the queue wakes them as the paging thread writes.
         */
        WRITE_BEHIND
    }

    // ---- a message's way, under the lock ----

    /** Whether any message is paged (not read back yet): then every new message is paged too. Under the lock. */
    boolean hasPaged();

    /**
     * A message nobody took: unless a consumer with credit that has looked at every paged message accepts it (no older
     * paged message is for it: {@link PagedLookups#caughtUpConsumerFor}), or a selector found it undecodable, it is
     * handed to the paging thread and counts as paged from now on. Under the lock.
     *
     * @return the consumer to hand it to instead (null: paged, or undecodable, which the caller sets aside)
     */
    QueueConsumer pageOut(QueuedMessage m);

    /** A send that will be paged finds a disk budget spent and the page-full policy fail: refused. Under the lock. */
    void refuseIfFull(QueuedMessage m);

    /**
     * The queue let memory go: under its low watermark now, and with a consumer, the paging thread reads back. Under
     * the lock.
     */
    void readBackIfDue();

    /**
     * Whether a disk budget is spent and the page-full policy is block, or the write-behind is past its bound (a
     * volatile read, any thread).
     */
    boolean blocksProducers();

    // ---- producers held back ----

    /** Notes whether a disk budget holds the producers back now, and which; under the lock. */
    PageFull pageFull();

    /** Runs {@code task} once the server's disk budget has room (at once when it has); without the queue's lock. */
    void whenDiskAvailable(Runnable task);

    // ---- consumers, under the lock ----

    /**
     * A consumer registers (the queue counts it already): one with a selector looks among the paged messages as it
     * needs ({@link PagedLookups}); the first of a queue that holds nothing in memory has the paging thread read back.
     */
    void addConsumer(QueueConsumer consumer);

    /** A consumer leaves: its lookup, if any, is forgotten. */
    void removeConsumer(QueueConsumer consumer);

    /** A consumer with credit found nothing in memory: the paging thread looks for its match among the paged ones. */
    void lookFor(QueueConsumer consumer);

    // ---- the queue's end ----

    /** Whether any paged message is persistent (a deleted queue's page files are read for those); under the lock. */
    boolean anyPersistent();

    /**
     * The queue is deleted or the server stops: the messages not written yet go to {@code out} (the queue takes them
     * out of the depth and the memory budgets), the others leave the disk budgets. Under the lock.
     *
     * @return how many were on disk (they leave the depth too; {@link #forgetStoreLater} forgets them)
     */
    long drop(List<QueuedMessage> out);

    /**
     * For a deleted queue whose page files held messages: has the paging thread remove its persistent paged messages
     * from the store ({@code removed} runs then) and delete its page files. Any thread.
     */
    void forgetStoreLater(boolean persistentPaged, StoreCompletion removed);

    // ---- administration ----

    /** Messages paged and not read back yet; under the lock. */
    long paged();

    /** The bytes of the paged messages' records, as the disk budgets count them; under the lock. */
    long pagedBytes();

    /**
     * The JMSTimestamp of the oldest paged message, or a little older (the last read back in order's), for the queue's
     * oldest waiting message: paged messages wait on disk until a consumer comes. 0: none paged, or none stamped.
     * Under the lock.
     */
    long oldestTimestamp();

    /** Why the page files cannot be written or read now (a full disk, an I/O error), or null; under the lock. */
    String diskFailure();

    /** Paged messages the consumers' selector scans have looked at, over the queue's life; under the lock. */
    long recordsScanned();

    /**
     * Has the paging thread read the next batch back now, whatever the low watermark, and waits until it has. Takes
     * the queue's lock; never call it on an event loop (it waits for disk I/O).
     *
     * @return false when nothing is paged
     */
    boolean readBackNow();

    /**
     * The paged part of a browse, on the paging thread: up to {@code max} more paged messages the cursor's selector
     * accepts, and no more once their encoded lengths reach {@code maxBytes} (at least one), each handed to
     * {@code sink} as a copy of its own; then {@code done} runs with how many, on {@code whereDone}. Without the
     * queue's lock.
     */
    void browse(BrowseCursor cursor, int max, long maxBytes, LocalQueue.BrowseSink sink, Executor whereDone,
                IntConsumer done);

    // ---- recovery ----

    /**
     * Recovery paged a message of {@code bytes}: every few MiB so paged (on all queues), waits for the paging thread
     * to have written them, so that recovery cannot outrun the disk. Without the queue's lock; never on an event loop.
     */
    void recoveryPaged(long bytes);
}
