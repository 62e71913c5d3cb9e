package org.wharfmq.server.queue;

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
    private final QueueDispatch dispatch;
    private final QueueAccounting accounting;
    private final QueuePager paging;
    private final QueueBackout backout;

    QueueRecovery(LocalQueue queue, QueueDispatch dispatch, QueueAccounting accounting, QueuePager paging,
                  QueueBackout backout) {
        this.queue = queue;
        this.dispatch = dispatch;
        this.accounting = accounting;
        this.paging = paging;
        this.backout = backout;
    }

    /** See {@link LocalQueue#restore}. */
    void restore(QueuedMessage message, long sequence) {
        long pagedBytes = restore(message, sequence, true);
        if (pagedBytes > 0) {
            paging.recoveryPaged(pagedBytes);
        }
    }

    /** See {@link LocalQueue#restoreDelayed}. */
    void restoreDelayed(QueuedMessage message, long sequence) {
        restore(message, sequence, false);
    }

    /** @return the bytes of the message if it was paged (the caller tells paging, without the lock), else 0 */
    private long restore(QueuedMessage message, long sequence, boolean available) {
        long pagedBytes = 0;
        queue.lock();
        try {
            accounting.restoreDepth();
            accounting.hold(message);
            message.sequence = sequence;
            queue.numberAbove(sequence);
            if (!available) {
                return 0;
            }
            // one backed out too often stays in memory: backOutRecovered() moves it before any consumer sees it
            if (!backout.tooOften(message) && (paging.hasPaged() || accounting.pagingDue())) {
                pagedBytes = message.memoryBytes(); // read before the paging thread may write and release it
                dispatch.pageOut(message);
            } else {
                dispatch.link(message);
            }
        } finally {
            queue.unlock();
        }
        return pagedBytes;
    }

    /** See {@link LocalQueue#backOutRecovered}. */
    int backOutRecovered() {
        int moved = 0;
        queue.lock();
        try {
            if (!backout.backsOut()) {
                return 0;
            }
            for (int p = 0; p <= LocalQueue.HIGHEST_PRIORITY; p++) {
                QueuedMessage m = dispatch.list(p).head;
                while (m != null) {
                    QueuedMessage next = m.next;
                    if (backout.tooOften(m)) {
                        dispatch.unlink(m);
                        backout.backOut(m);
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
