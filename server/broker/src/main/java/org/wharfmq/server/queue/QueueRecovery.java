package org.wharfmq.server.queue;

import org.wharfmq.server.OrderedLock;

/**
 * One {@link LocalQueue}'s recovery at start: the messages the store gives back, each with the sequence number it had,
 * linked (or paged, when the queue pages and is over its budget) before any consumer exists, and the backouts due
 * then. Runs on recovery's thread, never an event loop.
 *
 * <h2>Threading</h2>
 * Owned by its queue. Each method is an entry point: it takes the queue's lock itself and works through the queue's
 * other parts, which assert that it holds it; it waits for the paging thread only with the lock released.
 */
final class QueueRecovery {

    private final LocalQueue queue;
    private final OrderedLock lock;
    private final QueueDispatch dispatch;
    private final QueueAccounting accounting;
    private final QueuePaging paging;
    private final Pager pager;

    QueueRecovery(LocalQueue queue, OrderedLock lock, QueueDispatch dispatch, QueueAccounting accounting,
                  QueuePaging paging, Pager pager) {
        this.queue = queue;
        this.lock = lock;
        this.dispatch = dispatch;
        this.accounting = accounting;
        this.paging = paging;
        this.pager = pager;
    }

    /** See {@link LocalQueue#restore}. */
    void restore(QueuedMessage message, long sequence) {
        if (restore(message, sequence, true)) {
            paging.awaitPagingThread("writing the recovered messages of");
        }
    }

    /** See {@link LocalQueue#restoreDelayed}. */
    void restoreDelayed(QueuedMessage message, long sequence) {
        restore(message, sequence, false);
    }

    /** @return whether the caller is to wait for the paging thread: recovery has paged a batch's worth meanwhile */
    private boolean restore(QueuedMessage message, long sequence, boolean available) {
        long pagedBytes = 0;
        queue.lock();
        try {
            accounting.restoreDepth();
            accounting.hold(message);
            message.sequence = sequence;
            queue.numberAbove(sequence);
            if (!available) {
                return false;
            }
            // one backed out too often stays in memory: backOutRecovered() moves it before any consumer sees it
            if (!queue.backedOutTooOften(message) && (paging.hasPaged() || accounting.pagingDue())) {
                pagedBytes = message.memoryBytes(); // read before the paging thread may write and release it
                queue.pageOut(message);
            } else {
                dispatch.link(message);
            }
        } finally {
            queue.unlock();
        }
        return pagedBytes > 0 && pager.recoveryPaged(pagedBytes);
    }

    /** See {@link LocalQueue#backOutRecovered}. */
    int backOutRecovered() {
        int moved = 0;
        queue.lock();
        try {
            if (!queue.backsOut()) {
                return 0;
            }
            for (int p = 0; p <= LocalQueue.HIGHEST_PRIORITY; p++) {
                QueuedMessage m = dispatch.list(p).head;
                while (m != null) {
                    QueuedMessage next = m.next;
                    if (queue.backedOutTooOften(m)) {
                        dispatch.unlink(m);
                        queue.backOut(m);
                        moved++;
                    }
                    m = next;
                }
            }
        } finally {
            queue.unlock();
        }
        return moved;
    }
}
