package org.wharfmq.server.queue;

import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.server.Configuration;
import org.wharfmq.server.OrderedLock;
import org.wharfmq.server.WharfException;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * What one {@link LocalQueue}'s paging does when its page files cannot be written or read (a full disk, an I/O error):
 * the queue's disk budget counts as spent from then on (its producers are held back or refused, as its
 * {@code pageFullPolicy} says; what it has in memory is delivered as usual), the paging thread does no disk work for
 * it but one try every {@link Configuration#PAGE_RETRY_MILLIS}, and once a try works, paging goes on. Said once per
 * episode in the server's log, with the error and the fix; a producer refused meanwhile is told what to do, not the
 * server's path and error ({@link #refusal}).
 *
 * <h2>Threading</h2>
 * Owned by the queue's {@link QueuePaging} and guarded by the queue's lock: the methods that read the state assert it;
 * those called on the paging thread or the retry's timer take it. It reaches the queue only through
 * {@link PagingHost}.
 */
final class PagingDiskFailure {

    private static final System.Logger LOG = System.getLogger(PagingDiskFailure.class.getName());

    /** The queue, as far as paging needs it. */
    private final PagingHost queue;
    private final OrderedLock lock;
    private final QueuePaging paging;
    private final java.time.InstantSource clock;
    /** Why the page files could not be written or read lately; null while they can. */
    private String failure;
    /** When {@link #failure} began, for the line that says it is over. */
    private long since;
    /** The retry after a failure is due: the next turn tries the disk again. */
    private boolean retryDue;

    PagingDiskFailure(PagingHost queue, OrderedLock lock, QueuePaging paging, java.time.InstantSource clock) {
        this.queue = queue;
        this.lock = lock;
        this.paging = paging;
        this.clock = clock;
    }

    /** Whether the page files cannot be written or read now; under the lock. */
    boolean failed() {
        assert lock.isHeldByCurrentThread();
        return failure != null;
    }

    /** Why the page files cannot be written or read now, or null; under the lock. */
    String failure() {
        assert lock.isHeldByCurrentThread();
        return failure;
    }

    /** Whether the paging thread is to leave the disk alone until the retry is due; under the lock. */
    boolean waitsForRetry() {
        assert lock.isHeldByCurrentThread();
        return failure != null && !retryDue;
    }

    /** A turn of the paging thread has begun (and tries the disk, if a retry was due); under the lock. */
    void retryTaken() {
        assert lock.isHeldByCurrentThread();
        retryDue = false;
    }

    /**
     * The QUEUE_FULL refusal of a message that would be paged while the page files cannot be written (pageFullPolicy
     * fail). The error itself (a path of the server's disk) is for the server's log and its administrators.
     */
    WharfException refusal(MemoryLimit limit) {
        assert lock.isHeldByCurrentThread();
        return new WharfException(ErrorCode.QUEUE_FULL, limit.owner() + " cannot page: its page files cannot be"
                + " written or read now (a full disk or an I/O error; the server's log and 'wharf admin display"
                + " queue' say which); it is over its memory budget, and its pageFullPolicy, fail, refuses this"
                + " message. Free space on the disk of the data directory's paging/ (or lower maxPageBytes to what"
                + " that disk holds); paging tries again every " + Configuration.PAGE_RETRY_MILLIS + " ms.");
    }

    /**
     * The page files could not be written or read: the queue's disk budget counts as spent from now on (its producers
     * are held back or refused, as its pageFullPolicy says; what it has in memory is delivered as usual) and the turn
     * ends; the paging thread tries again in {@link Configuration#PAGE_RETRY_MILLIS}. Said once per episode, with the
     * fix. On the paging thread.
     */
    void failed(RuntimeException e) {
        queue.lock();
        try {
            if (failure == null) {
                since = clock.millis();
                LOG.log(System.Logger.Level.WARNING, "Paging of " + queue.memoryLimit().owner() + " stops: " + e.getMessage()
                        + ". Its messages not written stay in memory, and its producers are held back (pageFullPolicy"
                        + " block) or refused (fail) until its page files can be written again: free space on that disk."
                        + " Paging tries again every " + Configuration.PAGE_RETRY_MILLIS + " ms.", e);
            }
            failure = e.getMessage();
            paging.notePageFull();
            paging.turnEnded();
            CompletableFuture.delayedExecutor(Configuration.PAGE_RETRY_MILLIS, TimeUnit.MILLISECONDS)
                    .execute(this::retry);
        } finally {
            queue.unlock();
        }
    }

    /** The time after a disk failure is up: the next turn tries the disk again. Any thread. */
    private void retry() {
        queue.lock();
        try {
            if (failure != null && !queue.deleted()) {
                retryDue = true;
                paging.schedulePaging();
            }
        } finally {
            queue.unlock();
        }
    }

    /** Disk work succeeded ({@code didIo}): a disk failure, if there was one, is over. On the paging thread. */
    void worked(boolean didIo) {
        if (!didIo) {
            return;
        }
        queue.lock();
        try {
            if (failure != null) {
                LOG.log(System.Logger.Level.INFO, "Paging of " + queue.memoryLimit().owner() + " works again, after "
                        + (clock.millis() - since) + " ms.");
                failure = null;
                paging.notePageFull(); // producers held back for it go on
            }
        } finally {
            queue.unlock();
        }
    }
}
