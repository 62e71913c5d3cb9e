package org.wharfmq.server.queue;

import org.wharfmq.server.OrderedLock;
import org.wharfmq.server.WharfException;
import org.wharfmq.server.config.MemoryPolicy;

/**
 * Whether a {@link LocalQueue} takes a message about to be reserved (docs/resilience.md, "Memory budgets"): its depth
 * limit, its memory policy when the message's bytes do not fit the queue's budget or the server's, and a paging
 * queue's disk budgets. Of the policies, block takes it anyway (its producer's credit is withheld instead), page takes
 * it to keep it on disk, drop first drops the oldest waiting non-persistent messages until it fits, and fail refuses
 * it, as drop does when nothing is left to drop.
 *
 * <h2>Ownership</h2>
 * Owned by its queue and holding no state of its own: it reads the depth and the budgets ({@link QueueAccounting}),
 * takes the messages drop drops off the lists ({@link QueueDispatch}) and asks paging about its disk budgets
 * ({@link QueuePager}). It runs under the queue's lock, which each method asserts; the caller numbers and counts what
 * it takes ({@link LocalQueue#reserve}, {@link LocalQueue#reserveCopy}).
 */
final class QueueAdmission {

    /** The queue, which lets go of what the drop policy drops. */
    private final LocalQueue queue;
    /** The queue's lock, under which every method runs. */
    private final OrderedLock lock;
    private final QueueAccounting accounting;
    private final QueueDispatch dispatch;
    private final QueuePager paging;

    QueueAdmission(LocalQueue queue, OrderedLock lock, QueueAccounting accounting, QueueDispatch dispatch,
                   QueuePager paging) {
        this.queue = queue;
        this.lock = lock;
        this.accounting = accounting;
        this.dispatch = dispatch;
        this.paging = paging;
    }

    /**
     * A send: the message is taken, or refused. Under the lock.
     *
     * @throws WharfException QUEUE_FULL when the queue holds its maximum depth, when its memory budget or the server's
     *                        is spent and its policy is fail (or drop, with nothing left to drop), or when a disk
     *                        budget is spent and its page-full policy is fail
     */
    void admit(QueuedMessage m) {
        assert lock.isHeldByCurrentThread();
        if (accounting.full()) {
            throw accounting.queueFull();
        }
        if (!makeRoomFor(m)) {
            throw accounting.overBudget(m.memoryBytes());
        }
        paging.refuseIfFull(m);
    }

    /**
     * A publication's copy for a subscription's queue: the depth limit and the drop policy answer instead of
     * throwing, for the topic manager's rules. Under the lock.
     *
     * @throws WharfException QUEUE_FULL when the memory budget or the server's is spent and the policy refuses the
     *                        copy (fail, or drop for a persistent copy nothing could make room for), or a disk budget
     *                        is spent and the page-full policy is fail
     */
    LocalQueue.Admission admitCopy(QueuedMessage copy) {
        assert lock.isHeldByCurrentThread();
        if (accounting.full()) {
            return LocalQueue.Admission.FULL;
        }
        if (!makeRoomFor(copy)) {
            if (accounting.limit().policy() != MemoryPolicy.DROP || copy.headers().persistent()) {
                throw accounting.overBudget(copy.memoryBytes());
            }
            accounting.countDropped(); // no room even for the newest: it is the one dropped
            return LocalQueue.Admission.DROPPED;
        }
        paging.refuseIfFull(copy);
        return LocalQueue.Admission.RESERVED;
    }

    /**
     * Whether {@link #admitCopy} could throw for a copy: the policy is fail, drop for a persistent copy, or page with
     * a page-full policy of fail. A volatile read of the limit, without the lock.
     */
    boolean mayRefuseCopy(boolean persistent) {
        MemoryLimit limit = accounting.limit();
        return switch (limit.policy()) {
            case BLOCK -> false;
            case DROP -> persistent;
            case FAIL -> true;
            case PAGE -> limit.paging().whenFull() == MemoryPolicy.FAIL;
        };
    }

    /**
     * Applies the policy to a message whose bytes may not fit the queue's budget or the server's (see the class
     * comment). Under the lock.
     *
     * @return whether there is room for it
     */
    private boolean makeRoomFor(QueuedMessage m) {
        MemoryPolicy policy = accounting.limit().policy();
        if (policy == MemoryPolicy.BLOCK || policy == MemoryPolicy.PAGE) {
            return true; // block holds the producer's credit back; page keeps the message on disk
        }
        long bytes = m.memoryBytes();
        if (accounting.fits(bytes)) {
            return true;
        }
        if (policy == MemoryPolicy.DROP) {
            QueuedMessage oldest;
            while ((oldest = dispatch.unlinkOldestNonPersistent()) != null) {
                queue.drop(oldest);
                if (accounting.fits(bytes)) {
                    return true;
                }
            }
        }
        return false;
    }
}
