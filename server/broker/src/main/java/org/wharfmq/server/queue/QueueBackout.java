package org.wharfmq.server.queue;

import org.wharfmq.server.OrderedLock;
import org.wharfmq.server.config.QueueConfiguration;
import org.wharfmq.server.config.QueueDefinition;

import java.util.ArrayList;
import java.util.List;

/**
 * One {@link LocalQueue}'s backout: its threshold and backout queue (IBM MQ's BOTHRESH and BOQNAME), and the messages
 * backed out too often, taken off the queue under its lock and moved to the backout queue (or the dead-letter queue)
 * by {@link DeadLetters#backOut} once the lock is released, since that takes the other queue's lock.
 *
 * <h2>Threading</h2>
 * Owned by its queue and guarded by the queue's lock: every method runs under it and asserts so; {@link #takeDue}
 * hands what came due to the thread that releases the lock ({@link LocalQueue#unlock()}).
 */
final class QueueBackout {

    private final OrderedLock lock;
    /** How many backouts a message may have before it is moved instead of given back; 0: never moved. */
    private int threshold;
    /** Where a message over the threshold goes; null: the dead-letter queue. */
    private String target;
    /** Messages backed out too often, off the lists, for {@link #takeDue} once the lock is released. */
    private final ArrayList<QueuedMessage> due = new ArrayList<>(0);

    QueueBackout(OrderedLock lock) {
        this.lock = lock;
    }

    /** The queue's backout settings (at creation, or an administrator's change). */
    void configure(QueueDefinition definition) {
        assert lock.isHeldByCurrentThread();
        Integer backoutThreshold = definition.get(QueueConfiguration.BACKOUT_THRESHOLD);
        threshold = backoutThreshold == null ? 0 : backoutThreshold;
        target = definition.get(QueueConfiguration.BACKOUT_QUEUE);
    }

    /** Whether a threshold is set. */
    boolean backsOut() {
        assert lock.isHeldByCurrentThread();
        return threshold > 0;
    }

    /** Whether {@code m} has been backed out more often than the threshold allows (as IBM MQ's BackoutCount >= BOTHRESH). */
    boolean tooOften(QueuedMessage m) {
        assert lock.isHeldByCurrentThread();
        return threshold > 0 && m.deliveryCount() > threshold;
    }

    /** A message backed out too often, off the lists: moved to the backout queue once the lock is released. */
    void backOut(QueuedMessage m) {
        assert lock.isHeldByCurrentThread();
        due.add(m);
    }

    /** Whether messages wait to be moved. */
    boolean anyDue() {
        assert lock.isHeldByCurrentThread();
        return !due.isEmpty();
    }

    /**
     * The messages to move, with where and at which threshold, taken off this part; the caller moves them once the
     * lock is released ({@link Due#move}).
     */
    Due takeDue() {
        assert lock.isHeldByCurrentThread();
        if (due.isEmpty()) {
            return Due.NONE;
        }
        Due taken = new Due(new ArrayList<>(due), target, threshold);
        due.clear();
        return taken;
    }

    /** Messages backed out too often, their backout queue (null: the dead-letter queue) and the threshold they passed. */
    record Due(List<QueuedMessage> messages, String target, int threshold) {

        static final Due NONE = new Due(List.of(), null, 0);

        /** Moves them, with the lock released. */
        void move(DeadLetters deadLetters) {
            for (QueuedMessage m : messages) {
                deadLetters.backOut(m, target, threshold);
            }
        }
    }
}
