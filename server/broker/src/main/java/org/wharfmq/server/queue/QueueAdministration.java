package org.wharfmq.server.queue;

import org.wharfmq.protocol.selector.Selector;
import org.wharfmq.server.OrderedLock;

import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.IntConsumer;

/**
 * What operators see of one {@link LocalQueue} and do to it, never on a message's way: its numbers in one
 * {@link QueueSnapshot}, its producers counted, browsing (in memory under the lock, then its paged messages on the
 * paging thread) and taking waiting messages off for an administrator's move or clear.
 *
 * <h2>Threading</h2>
 * Owned by its queue. Each method is an entry point: it takes the queue's lock itself (releasing it with
 * {@link LocalQueue#unlock()}, which moves what a selector found undecodable once it is released) and works through the
 * queue's other parts, which assert that it holds it. A browse's cursor moves only inside {@link #browse(BrowseCursor,
 * int, long, LocalQueue.BrowseSink)}, under the lock; its paged part on the paging thread.
 */
final class QueueAdministration {

    private final LocalQueue queue;
    private final OrderedLock lock;
    private final QueueDispatch dispatch;
    private final QueueAccounting accounting;
    private final QueuePager paging;
    private final InstantSource clock;

    QueueAdministration(LocalQueue queue, OrderedLock lock, QueueDispatch dispatch, QueueAccounting accounting,
                        QueuePager paging, InstantSource clock) {
        this.queue = queue;
        this.lock = lock;
        this.dispatch = dispatch;
        this.accounting = accounting;
        this.paging = paging;
        this.clock = clock;
    }

    /** The queue's numbers now, read under its lock in one go. */
    QueueSnapshot snapshot() {
        lock.lock();
        try {
            int consumers = dispatch.consumerCount();
            return accounting.snapshot(consumers, queue.attached() - consumers, oldestTimestamp(),
                    paging.paged(), paging.pagedBytes(), paging.diskFailure());
        } finally {
            lock.unlock();
        }
    }

    /**
     * The JMSTimestamp of the oldest waiting message, in memory or paged (paged ones wait on disk until a consumer
     * comes); 0: none waits, or none is stamped. Under the lock.
     */
    private long oldestTimestamp() {
        long inMemory = dispatch.oldestTimestamp();
        long paged = paging.oldestTimestamp();
        return inMemory == 0 || paged != 0 && paged < inMemory ? paged : inMemory;
    }

    // ---- the queue's numbers, each read under its lock (see LocalQueue's accessors of the same names) ----

    int consumerCount() {
        lock.lock();
        try {
            return dispatch.consumerCount();
        } finally {
            lock.unlock();
        }
    }

    long maxDepth() {
        lock.lock();
        try {
            return accounting.maxDepth();
        } finally {
            lock.unlock();
        }
    }

    long depth() {
        lock.lock();
        try {
            return accounting.depth();
        } finally {
            lock.unlock();
        }
    }

    int producersHeldBack() {
        lock.lock();
        try {
            return accounting.heldBack();
        } finally {
            lock.unlock();
        }
    }

    long heldBytes() {
        lock.lock();
        try {
            return accounting.heldBytes();
        } finally {
            lock.unlock();
        }
    }

    long dropped() {
        lock.lock();
        try {
            return accounting.dropped();
        } finally {
            lock.unlock();
        }
    }

    long retainedBufferBytes() {
        lock.lock();
        try {
            return dispatch.retainedBufferBytes();
        } finally {
            lock.unlock();
        }
    }

    long consumerVisits() {
        lock.lock();
        try {
            return dispatch.consumerVisits();
        } finally {
            lock.unlock();
        }
    }

    long paged() {
        lock.lock();
        try {
            return paging.paged();
        } finally {
            lock.unlock();
        }
    }

    String pagingFailure() {
        lock.lock();
        try {
            return paging.diskFailure();
        } finally {
            lock.unlock();
        }
    }

    long pagedBytes() {
        lock.lock();
        try {
            return paging.pagedBytes();
        } finally {
            lock.unlock();
        }
    }

    long recordsScanned() {
        lock.lock();
        try {
            return paging.recordsScanned();
        } finally {
            lock.unlock();
        }
    }

    int indexedCorrelationIds() {
        lock.lock();
        try {
            return dispatch.indexedCorrelationIds();
        } finally {
            lock.unlock();
        }
    }

    void producerOpened() {
        lock.lock();
        try {
            accounting.countProducers(1);
        } finally {
            lock.unlock();
        }
    }

    void producerClosed() {
        lock.lock();
        try {
            accounting.countProducers(-1);
        } finally {
            lock.unlock();
        }
    }

    /** A cursor that will show the messages waiting now, in delivery order, that {@code selector} accepts. */
    BrowseCursor browse(Selector selector) {
        lock.lock();
        try {
            return new BrowseCursor(selector, queue.lastSequence() + 1, paging.hasPaged());
        } finally {
            lock.unlock();
        }
    }

    /** See {@link LocalQueue#browse(BrowseCursor, int, long, LocalQueue.BrowseSink)}. */
    int browse(BrowseCursor cursor, int max, long maxBytes, LocalQueue.BrowseSink sink) {
        long now = clock.millis();
        int shown = 0;
        long bytes = 0;
        queue.lock();
        try {
            while (cursor.priority >= 0 && shown < max && bytes < maxBytes) {
                MessageList list = dispatch.list(cursor.priority);
                QueuedMessage m = resumePoint(list, cursor);
                while (m != null && shown < max && bytes < maxBytes && m.sequence < cursor.endSequence) {
                    QueuedMessage next = m.next;
                    if (m.isExpiredAt(now)) {
                        dispatch.unlink(m);
                        queue.discard(m);
                    } else {
                        cursor.last = m;
                        cursor.lastSequence = m.sequence;
                        if (QueueDispatch.matches(cursor.selector, m)) {
                            sink.browsed(m.content().retainedDuplicate(), m.deliveryCount());
                            shown++;
                            bytes += m.content().readableBytes();
                        } else if (m.undecodable != null) {
                            dispatch.setAside(m);
                        }
                    }
                    m = next;
                }
                if (shown < max && bytes < maxBytes) {
                    cursor.priority--;
                    cursor.last = null;
                    cursor.lastSequence = 0;
                }
            }
        } finally {
            queue.unlock();
        }
        return shown;
    }

    /** The first message of {@code list} after the cursor's position; under the lock. */
    private static QueuedMessage resumePoint(MessageList list, BrowseCursor cursor) {
        QueuedMessage last = cursor.last;
        if (last != null && (last.previous != null || list.head == last)) {
            return last.next; // still waiting where it was: no walk
        }
        QueuedMessage m = list.head;
        while (m != null && m.sequence <= cursor.lastSequence) {
            m = m.next;
        }
        return m;
    }

    /** See {@link LocalQueue#browsePaged(BrowseCursor, int, long, LocalQueue.BrowseSink, Executor, IntConsumer)}. */
    void browsePaged(BrowseCursor cursor, int max, long maxBytes, LocalQueue.BrowseSink sink, Executor whereDone,
                     IntConsumer done) {
        if (cursor.pagedFinished) {
            whereDone.execute(() -> done.accept(0));
            return;
        }
        paging.browse(cursor, max, maxBytes, sink, whereDone, done);
    }

    /**
     * As {@link #browsePaged(BrowseCursor, int, long, LocalQueue.BrowseSink, Executor, IntConsumer)} without a bound in
     * bytes, waiting for it.
     */
    int browsePaged(BrowseCursor cursor, int max, LocalQueue.BrowseSink sink) {
        CompletableFuture<Integer> shown = new CompletableFuture<>();
        browsePaged(cursor, max, Long.MAX_VALUE, sink, Runnable::run, shown::complete);
        return shown.join();
    }

    /** See {@link LocalQueue#takeWaiting}. */
    List<QueuedMessage> takeWaiting(Selector selector, int max) {
        List<QueuedMessage> taken = new ArrayList<>();
        long now = clock.millis();
        queue.lock();
        try {
            for (int p = LocalQueue.HIGHEST_PRIORITY; p >= 0 && taken.size() < max; p--) {
                QueuedMessage m = dispatch.list(p).head;
                while (m != null && taken.size() < max) {
                    QueuedMessage next = m.next;
                    if (m.isExpiredAt(now)) {
                        dispatch.unlink(m);
                        queue.discard(m);
                    } else if (QueueDispatch.matches(selector, m)) {
                        dispatch.unlink(m);
                        taken.add(m);
                    } else if (m.undecodable != null) {
                        dispatch.setAside(m);
                    }
                    m = next;
                }
            }
        } finally {
            queue.unlock();
        }
        return taken;
    }
}
