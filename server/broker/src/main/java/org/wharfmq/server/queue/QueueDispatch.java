package org.wharfmq.server.queue;

import io.netty.buffer.ByteBuf;
import org.wharfmq.protocol.frame.MalformedFrameException;
import org.wharfmq.protocol.selector.Selector;
import org.wharfmq.server.OrderedLock;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

/**
 * One {@link LocalQueue}'s dispatch: its waiting messages, one {@link MessageList} per priority (FIFO within a
 * priority, 9 first) with a {@link CorrelationIndex} over them, and its consumers: those whose selector pins a
 * JMSCorrelationID are kept in the index under that id; all others ("general" consumers) are tried round-robin. A new
 * message goes straight to a consumer that has credit and wants it ({@link #waitingConsumerFor}: no enqueue, no
 * dequeue); only if there is none is it linked ({@link #place}), or, while the queue pages, handed to its paging
 * ({@link QueuePager}, the one way dispatch reaches it): nothing overtakes a paged message. A consumer that gains
 * credit takes from the lists ({@link #fill}, {@link #take}): by index lookup when its selector pins a correlation
 * id, else the first match from the highest priority down; then, while messages are paged, has paging look for its
 * match among them.
 *
 * <p>A message whose properties a selector cannot decode matches no selector: it is taken off the lists and kept
 * aside ({@link #takeUndecodable}) for the queue to move to the dead-letter queue once its lock is released.
 *
 * <h2>Threading</h2>
 * Owned by its queue and guarded by the queue's lock: every method runs under it and asserts so (but
 * {@link #backlogged()}, a volatile). Its consumers' credit ({@link DeliveryWindow}) is spent under the same lock.
 * What it discards (expired messages met on the way) it hands to the queue ({@link LocalQueue#discard}), which counts
 * them.
 */
final class QueueDispatch {

    private static final int PRIORITIES = 10;

    private final LocalQueue queue;
    private final OrderedLock lock;
    private final QueueAccounting accounting;
    /** Where a message nobody takes goes while the queue pages, and where a consumer looks among the paged ones. */
    private final QueuePager paging;
    private final MessageList[] byPriority = new MessageList[PRIORITIES];
    /** Right-sized copies of the messages that wait here; its current region is let go when none waits. */
    private final CompactionArena arena;
    /** Messages on the lists. */
    private int waiting;
    /** Whether any message waits on the lists; written under the lock as that changes, read without it. */
    private volatile boolean backlogged;
    private final CorrelationIndex correlationIndex = new CorrelationIndex();
    private final ArrayList<QueueConsumer> generalConsumers = new ArrayList<>();
    private int nextGeneralConsumer;
    private long consumerVisits;
    /** Messages a selector could not decode, off the lists, for the dead-letter queue once the lock is released. */
    private final ArrayList<QueuedMessage> undecodable = new ArrayList<>(0);

    QueueDispatch(LocalQueue queue, OrderedLock lock, CompactionArena arena, QueueAccounting accounting,
                  QueuePager paging) {
        this.queue = queue;
        this.lock = lock;
        this.arena = arena;
        this.accounting = accounting;
        this.paging = paging;
        for (int p = 0; p < PRIORITIES; p++) {
            byPriority[p] = new MessageList();
        }
    }

    /** Whether messages wait on the lists, read without the lock (a hint). */
    boolean backlogged() {
        return backlogged;
    }

    // ---- consumers ----

    /**
     * Registers a consumer (in the index under the correlation id its selector pins, else among the general ones, and
     * with paging) and hands it what its credit allows ({@link #fill}).
     *
     * @return whether it was handed any
     */
    boolean addConsumer(QueueConsumer consumer, long now) {
        assert lock.isHeldByCurrentThread();
        register(consumer);
        paging.addConsumer(consumer);
        return fill(consumer, now);
    }

    private void register(QueueConsumer consumer) {
        assert lock.isHeldByCurrentThread();
        String correlationId = consumer.selector().requiredCorrelationId();
        if (correlationId != null) {
            correlationIndex.addConsumer(correlationId, consumer);
        } else {
            generalConsumers.add(consumer);
        }
    }

    /** Unregisters a consumer, here and with paging: from now on nothing more is handed to it. */
    void removeConsumer(QueueConsumer consumer) {
        assert lock.isHeldByCurrentThread();
        unregister(consumer);
        paging.removeConsumer(consumer);
    }

    private void unregister(QueueConsumer consumer) {
        assert lock.isHeldByCurrentThread();
        String correlationId = consumer.selector().requiredCorrelationId();
        if (correlationId != null) {
            correlationIndex.removeConsumer(correlationId, consumer);
        } else {
            int index = generalConsumers.indexOf(consumer);
            if (index >= 0) {
                generalConsumers.remove(index);
                if (index < nextGeneralConsumer) {
                    nextGeneralConsumer--;
                }
            }
        }
    }

    int consumerCount() {
        assert lock.isHeldByCurrentThread();
        return generalConsumers.size() + correlationIndex.consumerCount();
    }

    /** Adds every registered consumer to {@code out}. */
    void addConsumersTo(List<QueueConsumer> out) {
        assert lock.isHeldByCurrentThread();
        out.addAll(generalConsumers);
        correlationIndex.addConsumersTo(out);
    }

    /** How many consumers have been examined while placing messages, over the queue's life (for tests). */
    long consumerVisits() {
        assert lock.isHeldByCurrentThread();
        return consumerVisits;
    }

    /** How many distinct correlation ids the index holds messages for (for tests). */
    int indexedCorrelationIds() {
        assert lock.isHeldByCurrentThread();
        return correlationIndex.indexedCorrelationIds();
    }

    /** Whether a consumer waits for messages with {@code correlationId}, with credit or not. */
    boolean awaitsCorrelationId(String correlationId) {
        assert lock.isHeldByCurrentThread();
        return correlationIndex.consumers(correlationId) != null;
    }

    /** Whether a consumer with credit waits for messages with {@code correlationId}. */
    boolean waitsWithCredit(String correlationId) {
        assert lock.isHeldByCurrentThread();
        List<QueueConsumer> waiting = correlationIndex.consumers(correlationId);
        if (waiting != null) {
            for (int i = 0; i < waiting.size(); i++) {
                if (waiting.get(i).window().hasCredit()) {
                    return true;
                }
            }
        }
        return false;
    }

    // ---- handing over ----

    /**
     * Places a message offered to the queue: to the paging thread while anything is paged (nothing overtakes a paged
     * message), else to a waiting consumer with credit that wants it, else linked (or paged, when the queue pages and
     * is over its budget).
     *
     * @return the consumer it was handed to, for the caller to flush once the lock is released (null: none)
     */
    QueueConsumer place(QueuedMessage m) {
        assert lock.isHeldByCurrentThread();
        if (paging.hasPaged()) {
            return pageOut(m); // FIFO: nothing overtakes a paged message its receiver would take
        }
        QueueConsumer receiver = waitingConsumerFor(m);
        if (receiver != null) {
            handOver(receiver, m);
        } else if (accounting.pagingDue()) {
            pageOut(m); // gives it to nobody: no consumer with credit accepts it
        } else {
            linkOrSetAside(m);
        }
        return receiver;
    }

    /**
     * Places a message that comes back (given back after a rollback, or read back from the page files): to a waiting
     * consumer with credit that wants it, else linked where its sequence puts it.
     *
     * @return {@code receivers} with the consumer it was handed to, if any (created when null)
     */
    List<QueueConsumer> placeReturned(QueuedMessage m, List<QueueConsumer> receivers) {
        assert lock.isHeldByCurrentThread();
        QueueConsumer receiver = waitingConsumerFor(m);
        if (receiver == null) {
            linkOrSetAside(m);
            return receivers;
        }
        handOver(receiver, m);
        return addReceiver(receivers, receiver);
    }

    /**
     * Hands a message to the paging thread, unless a consumer with credit accepts it that has looked at every paged
     * message (no older one is for it: see {@link QueuePager#pageOut}), or a selector found it undecodable: that one
     * is set aside.
     *
     * @return the consumer it was handed over to, for the caller to flush once the lock is released (null: none)
     */
    QueueConsumer pageOut(QueuedMessage m) {
        assert lock.isHeldByCurrentThread();
        QueueConsumer receiver = paging.pageOut(m);
        if (receiver != null) {
            handOver(receiver, m);
        } else if (m.undecodable != null) {
            setAsideUnlinked(m);
        }
        return receiver;
    }

    /**
     * Hands waiting messages to the consumer while it has credit, then, while the queue pages and it still has
     * credit, has the paging thread look for its match among the paged messages.
     *
     * @return whether it handed any
     */
    boolean fill(QueueConsumer consumer, long now) {
        assert lock.isHeldByCurrentThread();
        boolean delivered = false;
        while (consumer.window().hasCredit()) {
            QueuedMessage m = take(consumer.selector(), now);
            if (m == null) {
                break;
            }
            handOver(consumer, m);
            delivered = true;
        }
        if (paging.hasPaged() && consumer.window().hasCredit()) {
            paging.lookFor(consumer);
        }
        return delivered;
    }

    /**
     * Hands one matching waiting message to the consumer whether or not it has credit (PULL), spending a credit.
     *
     * @return the message handed, or null
     */
    QueuedMessage pull(QueueConsumer consumer, long now) {
        assert lock.isHeldByCurrentThread();
        QueuedMessage m = take(consumer.selector(), now);
        if (m != null) {
            handOver(consumer, m);
        }
        return m;
    }

    /** A consumer with credit whose selector accepts {@code m}: its correlation-id waiters first, then round-robin. */
    QueueConsumer waitingConsumerFor(QueuedMessage m) {
        assert lock.isHeldByCurrentThread();
        String correlationId = m.correlationId();
        if (correlationId != null) {
            List<QueueConsumer> waiting = correlationIndex.consumers(correlationId);
            if (waiting != null) {
                for (int i = 0; i < waiting.size(); i++) {
                    QueueConsumer c = waiting.get(i);
                    consumerVisits++;
                    if (c.window().hasCredit() && matches(c.selector(), m)) {
                        return c;
                    }
                }
            }
        }
        int n = generalConsumers.size();
        for (int i = 0; i < n; i++) {
            int index = (nextGeneralConsumer + i) % n;
            QueueConsumer c = generalConsumers.get(index);
            consumerVisits++;
            if (c.window().hasCredit() && matches(c.selector(), m)) {
                nextGeneralConsumer = index + 1;
                return c;
            }
        }
        return null;
    }

    /** Hands a message to a consumer, spending a credit. */
    void handOver(QueueConsumer consumer, QueuedMessage m) {
        assert lock.isHeldByCurrentThread();
        consumer.window().spend(m.memoryBytes());
        consumer.deliver(m);
    }

    /** Unlinks and returns the best waiting message the selector accepts, discarding expired ones met on the way. */
    QueuedMessage take(Selector selector, long now) {
        assert lock.isHeldByCurrentThread();
        String correlationId = selector.requiredCorrelationId();
        if (correlationId != null) {
            return takeByCorrelationId(correlationId, selector, now);
        }
        for (int p = PRIORITIES - 1; p >= 0; p--) {
            QueuedMessage m = byPriority[p].head;
            while (m != null) {
                QueuedMessage next = m.next;
                if (m.isExpiredAt(now)) {
                    unlink(m);
                    queue.discard(m);
                } else if (matches(selector, m)) {
                    unlink(m);
                    return m;
                } else if (m.undecodable != null) {
                    setAside(m);
                }
                m = next;
            }
        }
        return null;
    }

    private QueuedMessage takeByCorrelationId(String correlationId, Selector selector, long now) {
        QueuedMessage best = null;
        QueuedMessage m = correlationIndex.first(correlationId);
        while (m != null) {
            QueuedMessage next = m.nextWithCorrelationId;
            if (m.isExpiredAt(now)) {
                unlink(m);
                queue.discard(m);
            } else if ((best == null || m.priority() > best.priority()) && matches(selector, m)) {
                best = m;
            } else if (m.undecodable != null) {
                setAside(m);
            }
            m = next;
        }
        if (best != null) {
            unlink(best);
        }
        return best;
    }

    /**
     * Whether the selector accepts {@code m}. One whose properties cannot be decoded matches nothing: the first
     * failure marks it {@link QueuedMessage#undecodable}, and the caller sets it aside for the dead-letter queue.
     */
    static boolean matches(Selector selector, QueuedMessage m) {
        if (m.undecodable != null) {
            return false;
        }
        try {
            return selector.matches(m);
        } catch (MalformedFrameException e) {
            m.undecodable = "a message selector cannot decode its properties: " + e.getMessage();
            return false;
        }
    }

    // ---- the lists ----

    /** The list of one priority (0 to 9), for the queue's walks (browse, administration, recovery). */
    MessageList list(int priority) {
        assert lock.isHeldByCurrentThread();
        return byPriority[priority];
    }

    /**
     * Links a message no consumer took, unless a selector found it undecodable: that one is set aside. It is about to
     * wait, so it stops keeping a larger buffer alive than itself ({@link QueuedMessage#compact}).
     */
    void linkOrSetAside(QueuedMessage m) {
        assert lock.isHeldByCurrentThread();
        if (m.undecodable != null) {
            undecodable.add(m);
        } else {
            m.compact(arena);
            link(m);
        }
    }

    void link(QueuedMessage m) {
        assert lock.isHeldByCurrentThread();
        byPriority[m.priority()].insert(m);
        if (m.correlationId() != null) {
            correlationIndex.add(m);
        }
        if (waiting++ == 0) {
            backlogged = true;
        }
    }

    void unlink(QueuedMessage m) {
        assert lock.isHeldByCurrentThread();
        byPriority[m.priority()].remove(m);
        if (m.correlationId() != null) {
            correlationIndex.remove(m);
        }
        if (--waiting == 0) {
            backlogged = false;
            arena.release(); // nothing waits: an idle queue keeps no region alive
            paging.readBackIfDue(); // its consumers may want the paged ones before they acknowledge what they hold
        }
    }

    /** Whether nothing waits on the lists. */
    boolean nothingWaits() {
        assert lock.isHeldByCurrentThread();
        return waiting == 0;
    }

    /** Takes every waiting message off the lists into {@code out}, highest priority last (the caller counts them). */
    void unlinkAll(List<QueuedMessage> out) {
        assert lock.isHeldByCurrentThread();
        for (MessageList list : byPriority) {
            while (!list.isEmpty()) {
                QueuedMessage m = list.head;
                unlink(m);
                out.add(m);
            }
        }
    }

    /** The oldest waiting non-persistent message, lowest priority first, unlinked; null when there is none. */
    QueuedMessage unlinkOldestNonPersistent() {
        assert lock.isHeldByCurrentThread();
        for (int p = 0; p < PRIORITIES; p++) {
            for (QueuedMessage m = byPriority[p].head; m != null; m = m.next) {
                if (!m.headers().persistent()) {
                    unlink(m);
                    return m;
                }
            }
        }
        return null;
    }

    /** Takes an undecodable message off the lists, for the dead-letter queue once the lock is released. */
    void setAside(QueuedMessage m) {
        assert lock.isHeldByCurrentThread();
        unlink(m);
        undecodable.add(m);
    }

    /** Sets aside a message a selector found undecodable that was on no list. */
    void setAsideUnlinked(QueuedMessage m) {
        assert lock.isHeldByCurrentThread();
        undecodable.add(m);
    }

    /** Whether undecodable messages wait to be moved once the lock is released. */
    boolean anyUndecodable() {
        assert lock.isHeldByCurrentThread();
        return !undecodable.isEmpty();
    }

    /** The undecodable messages set aside, taken (empty: none); under the lock, moved once it is released. */
    List<QueuedMessage> takeUndecodable() {
        assert lock.isHeldByCurrentThread();
        if (undecodable.isEmpty()) {
            return List.of();
        }
        List<QueuedMessage> moving = new ArrayList<>(undecodable);
        undecodable.clear();
        return moving;
    }

    /** The timestamp of the oldest waiting message (0: none, or none stamped): each list's head is its oldest. */
    long oldestTimestamp() {
        assert lock.isHeldByCurrentThread();
        long oldest = 0;
        for (MessageList list : byPriority) {
            QueuedMessage head = list.head;
            long timestamp = head == null ? 0 : head.headers().timestamp();
            if (timestamp != 0 && (oldest == 0 || timestamp < oldest)) {
                oldest = timestamp;
            }
        }
        return oldest;
    }

    /** The capacity of every distinct buffer under the waiting messages' bytes, each counted once. */
    long retainedBufferBytes() {
        assert lock.isHeldByCurrentThread();
        Set<ByteBuf> buffers = Collections.newSetFromMap(new IdentityHashMap<>());
        long bytes = 0;
        for (MessageList list : byPriority) {
            for (QueuedMessage m = list.head; m != null; m = m.next) {
                ByteBuf root = CompactionArena.underlying(m.content());
                if (buffers.add(root)) {
                    bytes += root.capacity();
                }
            }
        }
        return bytes;
    }

    // ---- the consumers a hand-over reached ----

    /** Adds {@code receiver} to {@code receivers} (created when null) unless it is there: the consumers to flush. */
    static List<QueueConsumer> addReceiver(List<QueueConsumer> receivers, QueueConsumer receiver) {
        if (receivers == null) {
            receivers = new ArrayList<>(2);
        }
        if (!receivers.contains(receiver)) {
            receivers.add(receiver);
        }
        return receivers;
    }

    /** Writes the deliveries recorded for {@code receivers} (null: none); once the queue's lock is released. */
    static void flush(List<QueueConsumer> receivers) {
        if (receivers != null) {
            for (int i = 0; i < receivers.size(); i++) {
                receivers.get(i).flushDeliveries();
            }
        }
    }
}
