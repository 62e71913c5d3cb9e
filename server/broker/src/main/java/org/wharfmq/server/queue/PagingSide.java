package org.wharfmq.server.queue;

import io.netty.buffer.ByteBuf;
import org.wharfmq.protocol.message.MessageHeaders;
import org.wharfmq.server.OrderedLock;

import java.time.InstantSource;
import java.util.List;

/**
 * A {@link LocalQueue} as its paging sees it ({@link PagingHost}): the one way {@link QueuePaging},
 * {@link PagedLookups} and {@link PagingDiskFailure} reach the queue, over the queue's parts ({@link QueueAccounting}
 * for its budget, {@link QueueDispatch} for its consumers and lists, {@link QueueLife} for whether it is deleted) and
 * the few steps that are the queue's own (its lock and what runs once it is released, a message discarded, memory let
 * go).
 *
 * <h2>Ownership</h2>
 * Owned by its queue, made with it; it holds no state but its references to the queue's parts. Every method that
 * reads or changes the queue's state runs under the queue's lock and asserts it, but for those {@link PagingHost}
 * documents as volatile reads ({@link #memoryLimit}, {@link #overBudget}), {@link #fromPage} (no state) and
 * {@link #deleted} (a paged browse reads it as a hint).
 */
final class PagingSide implements PagingHost {

    private final LocalQueue queue;
    private final OrderedLock lock;
    private final InstantSource clock;
    private final QueueAccounting accounting;
    /** Made after paging (they need it): set once by {@link #attach}, in the queue's constructor. */
    private QueueDispatch dispatch;
    private QueueLife life;

    PagingSide(LocalQueue queue, OrderedLock lock, InstantSource clock, QueueAccounting accounting) {
        this.queue = queue;
        this.lock = lock;
        this.clock = clock;
        this.accounting = accounting;
    }

    /** The queue's parts made after its paging; called once, by the queue's constructor, before it is shared. */
    void attach(QueueDispatch dispatch, QueueLife life) {
        this.dispatch = dispatch;
        this.life = life;
    }

    @Override
    public void lock() {
        queue.lock();
    }

    @Override
    public void unlock() {
        queue.unlock();
    }

    @Override
    public boolean deleted() {
        return life.deletedForPaging();
    }

    @Override
    public MemoryLimit memoryLimit() {
        return accounting.limit();
    }

    @Override
    public boolean overBudget() {
        return accounting.overBudget();
    }

    @Override
    public long bytesHeld() {
        assert lock.isHeldByCurrentThread();
        return accounting.heldBytes();
    }

    @Override
    public boolean nothingWaits() {
        assert lock.isHeldByCurrentThread();
        return dispatch.nothingWaits();
    }

    @Override
    public boolean hasConsumers() {
        assert lock.isHeldByCurrentThread();
        return dispatch.consumerCount() > 0;
    }

    @Override
    public boolean awaitsCorrelationId(String correlationId) {
        assert lock.isHeldByCurrentThread();
        return dispatch.awaitsCorrelationId(correlationId);
    }

    @Override
    public boolean waitsWithCredit(String correlationId) {
        assert lock.isHeldByCurrentThread();
        return dispatch.waitsWithCredit(correlationId);
    }

    @Override
    public QueuedMessage fromPage(ByteBuf content) {
        return new QueuedMessage(queue, content, MessageHeaders.read(content), null, true);
    }

    @Override
    public void hold(QueuedMessage m) {
        assert lock.isHeldByCurrentThread();
        accounting.hold(m);
    }

    @Override
    public List<QueueConsumer> offerReadBack(QueuedMessage m, List<QueueConsumer> receivers) {
        assert lock.isHeldByCurrentThread();
        if (m.isExpiredAt(clock.millis())) {
            queue.discard(m);
            return receivers;
        }
        return dispatch.placeReturned(m, receivers);
    }

    @Override
    public void letGo(long bytes) {
        assert lock.isHeldByCurrentThread();
        queue.letGoBytes(bytes);
    }

    @Override
    public void pageFullEnded() {
        assert lock.isHeldByCurrentThread();
        if (!accounting.blocksOverBudget()) {
            accounting.wakeHeldBack();
        }
    }
}
