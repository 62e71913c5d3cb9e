package org.wharfmq.server.queue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.message.MessageHeaders;
import org.wharfmq.protocol.message.TransmissionHeader;
import org.wharfmq.protocol.selector.Selector;
import org.wharfmq.server.LockOrder;
import org.wharfmq.server.OrderedLock;
import org.wharfmq.server.WharfException;
import org.wharfmq.server.config.QueueDefinition;
import org.wharfmq.server.store.Persistence;
import org.wharfmq.server.store.StoreCompletion;

import java.time.InstantSource;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.IntConsumer;

/**
 * A named point-to-point queue: messages in priority order (JMS priority 9 first), FIFO within a priority, handed to
 * its consumers as their credit allows. This class is the queue's way in (every caller outside the package uses it:
 * a message reserved, offered, given back, acknowledged; consumers registered and given credit) and its one lock;
 * each of its concerns is a class of its own, owned by the queue and run under its lock:
 *
 * <ul>
 *   <li>{@link QueueDispatch}: the waiting messages (a list per priority, the correlation index) and the consumers,
 *       a message handed to one with credit that wants it, else linked or paged, a consumer's credit filled;</li>
 *   <li>{@link QueueAccounting}: depth and depth limit, the memory held against the queue's budget and the server's,
 *       the producers held back, the drop policy, depth events and the management view's counters;</li>
 *   <li>{@link QueueAdministration}: what operators see and do (the queue's numbers, snapshot, browse, move and
 *       clear);</li>
 *   <li>{@link QueueBackout}: the backout threshold and queue, and the messages backed out too often;</li>
 *   <li>{@link QueueRecovery}: the messages recovered from the store at start, and the backouts due then;</li>
 *   <li>{@link QueueLife}: whether it is in use (consumers and browsers attached) or deleted, its deletion when
 *       unused, and its end (every message it holds discarded when it is deleted or the server stops);</li>
 *   <li>{@link QueueAdmission}: whether a message about to be reserved is taken (the depth limit, the memory
 *       policy, drop's drops, the disk budgets);</li>
 *   <li>{@link QueuePaging}: the paged messages, written and read back by the {@link Pager}'s thread, with its
 *       {@link PagedLookups} (consumers' selectors among the paged messages) and {@link PagingDiskFailure}. The
 *       queue and paging meet at two interfaces that list the whole seam: the queue's side asks paging what
 *       {@link QueuePager} offers, and paging asks the queue what {@link PagingHost} offers ({@link PagingSide},
 *       over the queue's parts).</li>
 * </ul>
 *
 * <h2>Invariant</h2>
 * A registered consumer with credit never has a matching message waiting on the lists: every change that could
 * break this (a message arrives or comes back, a consumer registers or gains credit) dispatches at once. That is
 * what makes direct hand-over FIFO-correct.
 *
 * <h2>Hand-off</h2>
 * A transmission queue's sender channel, while it streams non-persistent messages, may take one as it is put, before
 * the queue does ({@link HandOff}, {@link #handOver}): it spends its consumer's credit for it under the lock, and only
 * while nothing waits here and its consumer holds no delivery it has not sent ({@link #spendForHandOff}), so the
 * message overtakes none and what the channel holds unconfirmed stays within its credit. It counts in the depth until
 * the channel settles it ({@link #settleHandedOver}).
 *
 * <h2>Memory</h2>
 * When the queue's memory budget or the server's is spent, a send meets the queue's policy: {@code fail} refuses it in
 * {@link #reserve} (QUEUE_FULL, naming the budget, the bytes held and the setting); {@code drop} (subscriptions) first
 * drops the oldest waiting non-persistent messages; {@code block} accepts it, and the sending session stops returning
 * its producer's credit until the queue is back under its budget ({@link #overBudget}, {@link #whenUnderBudget});
 * {@code page} pages a message nobody takes at once (docs/resilience.md, "Paging"): from then on, until every paged
 * message is read back, every new message is paged too, so none overtakes a paged one. A queue that does not page
 * holds at most the server's share ({@link MemoryBudget#shareBytes}) whatever its own budget: the rest of the server's
 * budget stays for others, its own consumers' sends among them.
 *
 * <h2>Deletion when unused</h2>
 * A queue created by use ({@link #autoCreated}) is <i>unused</i> while its depth is 0 (no message waiting,
 * delivered, reserved by an open transaction or waiting for its delivery time) and no consumer or browser is
 * {@link #attach attached}; it remembers since when ({@link QueueLife}). {@link #deleteIfUnused} deletes it once that
 * has lasted the delay, under the lock, so nothing can use it in between: a reservation or attachment that comes later finds it
 * deleted and fails ({@link #reserve} false, {@link #attach} false), and its caller looks the queue up again, which
 * finds or creates its successor. Nothing is ever offered to a deleted auto-created queue, since only a reservation
 * can lead to an offer. Time is read from the queue manager's clock, never from the system directly.
 *
 * <h2>Threading</h2>
 * Every public method may be called from any thread. All state is guarded by one short lock per queue (an
 * {@link OrderedLock} of rank {@link LockOrder.Rank#QUEUE}), held only for in-memory work: consumers record deliveries
 * under it (taking their session's lock inside it, always in that order) but write to sockets only after it is
 * released, via {@link QueueConsumer#flushDeliveries()}. The parts run under it and assert so; the paging thread takes
 * it only to hand messages over, never across its disk I/O. Expiry is checked whenever a message would be delivered;
 * an expired message is discarded, never delivered.
 *
 * <h2>After the lock</h2>
 * What comes due under the lock and would take another lock is done once it is released, by {@link #unlock()}: a
 * message given back ({@link #giveBack}) whose delivery count has passed the queue's {@code backoutThreshold} is moved
 * to its backout queue ({@link DeadLetters#backOut}); a message whose properties a selector cannot decode, to the
 * dead-letter queue (SEND and recovery check every message's encoding first, so only a bug can bring one here);
 * depth events are published; producers waiting for the budget are woken.
 */
public final class LocalQueue {

    /** JMS priority 9, delivered first. */
    static final int HIGHEST_PRIORITY = 9;
    private static final Comparator<QueuedMessage> RETURN_ORDER =
            Comparator.comparingInt(QueuedMessage::priority).reversed().thenComparingLong(QueuedMessage::sequence);

    private final String name;
    private final Persistence persistence;
    private final boolean journaled;
    private final boolean temporary;
    /** Whether its settings make it a transmission queue ({@link #configure}; read without the lock). */
    private volatile boolean transmission;
    private final InstantSource clock;
    private final DeadLetters deadLetters;

    /** The queue's one lock (see "Threading"); its parts that run under it assert they do. */
    private final OrderedLock lock;
    private final QueueAccounting accounting;
    private final QueueDispatch dispatch;
    /** Whether a message about to be reserved is taken: depth limit, memory policy, disk budgets. */
    private final QueueAdmission admission;
    /** The queue's paged messages and its work on the paging thread ({@link QueuePaging}); guarded by the lock. */
    private final QueuePager paging;
    private final QueueAdministration administration;
    private final QueueRecovery recovery;
    private final QueueBackout backout;
    /** Whether it is in use or deleted, and its end ({@link QueueLife}); guarded by the lock. */
    private final QueueLife life;

    private long nextSequence = 1;
    /** What takes a non-persistent message as it is put, before the queue ({@link #handOver}); null: nothing. */
    private final AtomicReference<HandOff> handOff = new AtomicReference<>();

    /**
     * A queue defined in the configuration, on the system clock.
     *
     * @param name               the queue name
     * @param maxDepth           most messages the queue holds
     * @param maxDepthSetOnQueue whether the limit comes from the queue's own {@code maxDepth} (for error messages)
     * @param persistence        where persistent messages that expire are removed from
     * @param deadLetters        where messages that cannot be decoded go
     */
    public LocalQueue(String name, long maxDepth, boolean maxDepthSetOnQueue, Persistence persistence,
                      DeadLetters deadLetters) {
        this(name, maxDepth, maxDepthSetOnQueue, persistence, true, false, false, InstantSource.system(), deadLetters,
                MemoryLimit.none("queue '" + name + "'"), MemoryBudget.unlimited(), null);
    }

    private LocalQueue(String name, long maxDepth, boolean maxDepthSetOnQueue, Persistence persistence, boolean journaled,
                       boolean temporary, boolean autoCreated, InstantSource clock, DeadLetters deadLetters,
                       MemoryLimit limit, MemoryBudget budget, Pager pager) {
        if (limit.pages() && pager == null) {
            throw new IllegalArgumentException(limit.owner() + " pages but has no pager");
        }
        this.name = name;
        this.lock = new OrderedLock(LockOrder.Rank.QUEUE, "queue '" + name + "'");
        this.accounting = new QueueAccounting(name, lock, clock, maxDepth, maxDepthSetOnQueue, limit, budget);
        CompactionArena arena = new CompactionArena(ByteBufAllocator.DEFAULT);
        PagingSide pagingSide = new PagingSide(this, lock, clock, accounting);
        this.paging = new QueuePaging(pagingSide, name, journaled, lock, pager, budget, arena, clock, persistence);
        this.dispatch = new QueueDispatch(this, lock, arena, accounting, paging);
        this.admission = new QueueAdmission(this, lock, accounting, dispatch, paging);
        this.backout = new QueueBackout(lock);
        this.administration = new QueueAdministration(this, lock, dispatch, accounting, paging, clock);
        this.recovery = new QueueRecovery(this, dispatch, accounting, paging, backout);
        this.life = new QueueLife(this, lock, clock, autoCreated, accounting, dispatch, paging, persistence);
        pagingSide.attach(dispatch, life);
        this.deadLetters = deadLetters;
        this.journaled = journaled;
        this.persistence = persistence;
        this.temporary = temporary;
        this.clock = clock;
    }

    /** A queue defined in the configuration: never deleted. */
    static LocalQueue defined(String name, long maxDepth, boolean maxDepthSetOnQueue, Persistence persistence,
                              DeadLetters deadLetters, InstantSource clock, MemoryLimit limit, MemoryBudget budget,
                              Pager pager) {
        return new LocalQueue(name, maxDepth, maxDepthSetOnQueue, persistence, true, false, false, clock, deadLetters,
                limit, budget, pager);
    }

    /**
     * A queue created by use (or recovered from the journal, where only such queues are recorded): deleted by
     * {@link #deleteIfUnused} once unused for the auto-delete delay. Unused from now.
     */
    static LocalQueue autoCreated(String name, long maxDepth, Persistence persistence, DeadLetters deadLetters,
                                  InstantSource clock, MemoryLimit limit, MemoryBudget budget, Pager pager) {
        return new LocalQueue(name, maxDepth, false, persistence, true, false, true, clock, deadLetters, limit, budget,
                pager);
    }

    /**
     * A topic subscription's queue: lives as long as its subscription.
     *
     * @param journaled whether its persistent messages go to the store: true for a durable subscription, false for
     *                  a non-durable one, whose queue dies with its consumer anyway
     * @param limit     the subscription's memory budget and policy
     * @param budget    the server's memory budget
     * @param pager     where it pages, with the policy page
     */
    public static LocalQueue subscription(String name, long maxDepth, Persistence persistence, boolean journaled,
                                          DeadLetters deadLetters, InstantSource clock, MemoryLimit limit,
                                          MemoryBudget budget, Pager pager) {
        return new LocalQueue(name, maxDepth, false, persistence, journaled, false, false, clock, deadLetters, limit,
                budget, pager);
    }

    /**
     * A JMS temporary queue: lives as long as the connection that created it (or until deleted) and never touches
     * the store, whatever the delivery mode of its messages (JMS: a temporary destination does not survive its
     * connection, so there is nothing to recover).
     */
    static LocalQueue temporary(String name, long maxDepth, Persistence persistence, DeadLetters deadLetters,
                                InstantSource clock, MemoryLimit limit, MemoryBudget budget, Pager pager) {
        return new LocalQueue(name, maxDepth, false, persistence, false, true, false, clock, deadLetters, limit, budget,
                pager);
    }

    /** Whether this thread holds the queue's lock: its consumers' credit is guarded by it (for their assertions). */
    public boolean lockHeldByCurrentThread() {
        return lock.isHeldByCurrentThread();
    }

    /** The queue name. */
    public String name() {
        return name;
    }

    /** Whether the queue is deleted (by an administrator, or as unused): what reaches it is discarded. */
    public boolean isDeleted() {
        lock.lock();
        try {
            return life.deleted();
        } finally {
            lock.unlock();
        }
    }

    /** Whether persistent messages on this queue are recorded in the store (never for a temporary queue). */
    public boolean journaled() {
        return journaled;
    }

    /** Whether this is a temporary queue: sends to it after {@link #delete()} are refused, not discarded. */
    public boolean isTemporary() {
        return temporary;
    }

    /** Whether this queue was created by use: it is deleted once unused for the auto-delete delay. */
    public boolean autoCreated() {
        return life.autoCreated();
    }

    /** How many consumers are registered (temporary queues may not be deleted while they have any). */
    public int consumerCount() {
        return administration.consumerCount();
    }

    /** The most messages this queue holds. */
    public long maxDepth() {
        return administration.maxDepth();
    }

    /** Messages the queue is responsible for: waiting, delivered but unacknowledged, or sent in an open transaction. */
    public long depth() {
        return administration.depth();
    }

    /**
     * Whether the queue holds its own memory budget or more (read without the lock); a queue whose policy keeps its
     * messages in memory (block, fail, drop) has at most the server's share ({@link MemoryBudget#shareBytes}) as its
     * own, so that it alone never spends the server's budget. A sending session whose producer's policy is block
     * withholds its credit until {@link #whenUnderBudget} runs.
     */
    public boolean overBudget() {
        return accounting.overBudget();
    }

    /**
     * Whether a sender to this queue is to be slowed: it is over its own budget and its policy is block, or a disk
     * budget is spent and its page-full policy is block. Volatile reads: what a SEND pays for producer flow control
     * while nothing is over budget.
     */
    public boolean blocksProducers() {
        return paging.blocksProducers() || accounting.blocksOverBudget();
    }

    /**
     * Runs {@code task} once the queue is back under its own budget: at once (in this call) when it is under it now,
     * else once the lock is released by whatever takes it below, on that thread. The task must only hand work on.
     */
    public void whenUnderBudget(Runnable task) {
        boolean serverDiskSpent = false;
        lock.lock();
        try {
            if (!life.deleted()) {
                QueuePager.PageFull pageFull = paging.pageFull();
                if (accounting.blocksOverBudget() || pageFull == QueuePager.PageFull.OWN_BUDGET
                        || pageFull == QueuePager.PageFull.WRITE_BEHIND) {
                    accounting.holdBack(task);
                    return;
                }
                serverDiskSpent = pageFull == QueuePager.PageFull.SERVER_BUDGET;
            }
        } finally {
            lock.unlock();
        }
        if (serverDiskSpent) {
            paging.whenDiskAvailable(task); // other queues' paged messages fill it: their reads free it
        } else {
            task.run();
        }
    }

    /**
     * How many producer sessions wait for this queue to be back under its budget (their credit held back), for
     * administration and tests.
     */
    public int producersHeldBack() {
        return administration.producersHeldBack();
    }

    /** The queue's own memory budget and policy. */
    public MemoryLimit memoryLimit() {
        return accounting.limit();
    }

    /** The memory of the messages depth counts, in bytes, each as {@link QueuedMessage#memoryBytes()} counts it. */
    public long heldBytes() {
        return administration.heldBytes();
    }

    /** Messages the drop policy has dropped over the queue's life. */
    public long dropped() {
        return administration.dropped();
    }

    /**
     * Whether messages wait on the lists, read without the lock (a hint: it may change at once). A publication routed
     * to a subscription whose queue has a backlog will wait there, so it is compacted once for all subscriptions.
     */
    public boolean backlogged() {
        return dispatch.backlogged();
    }

    /**
     * The bytes the waiting messages keep alive: the capacity of every distinct buffer under their bytes (the one a
     * message arrived in, or the region it was compacted into), each counted once. A walk of the lists under the
     * lock, for administration and tests, never on a message's path.
     */
    public long retainedBufferBytes() {
        return administration.retainedBufferBytes();
    }

    /**
     * How many consumers have been examined while placing new or returned messages, over the queue's life. Lets
     * tests prove that a reply finds its correlation-id consumer without looking at any other.
     */
    public long consumerVisits() {
        return administration.consumerVisits();
    }

    // ---- a message's way: reserve, offer, deliver, acknowledge ----

    /**
     * Takes a place on the queue for a message about to be accepted and gives it its sequence number. The message
     * counts towards the depth from now on; follow with {@link #offer} (now or at commit) or {@link #cancel}.
     *
     * @return false, taking nothing, when this auto-created queue has been deleted as unused since it was looked
     *         up: look it up again (never false for other queues)
     * @throws WharfException QUEUE_FULL when the queue holds its maximum depth, or when its memory budget or the
     *                        server's is spent and its policy is fail (or drop, with nothing left to drop)
     */
    public boolean reserve(QueuedMessage message) {
        lock.lock();
        try {
            if (life.deleted()) {
                if (life.refusesUse()) {
                    return false;
                }
                if (temporary) {
                    throw new WharfException(ErrorCode.UNKNOWN_DESTINATION, "Temporary queue '" + name
                            + "' has been deleted (by TemporaryQueue.delete() or because its connection closed).");
                }
            }
            admission.admit(message);
            take(message);
            return true;
        } finally {
            unlock();
        }
    }

    /** What {@link #reserveCopy} did with a publication's copy. */
    public enum Admission {
        /** Reserved, as {@link #reserve} does. */
        RESERVED,
        /** Not taken: the drop policy found no room even after dropping what it could (counted in {@link #dropped}). */
        DROPPED,
        /** Not taken: the queue holds its maximum depth ({@link #depthRefusal} says so). */
        FULL
    }

    /**
     * Takes a place on a topic subscription's queue for a copy of a publication, as {@link #reserve} does for a
     * send; a subscription's queue is never deleted as unused, so it never answers "look again". Its depth limit and
     * the drop policy answer instead of throwing: the topic manager applies its rules for them.
     *
     * @throws WharfException QUEUE_FULL when its memory budget or the server's is spent and its policy refuses the
     *                        copy: fail, or drop for a persistent copy that nothing could make room for
     */
    public Admission reserveCopy(QueuedMessage copy) {
        lock.lock();
        try {
            Admission admitted = admission.admitCopy(copy);
            if (admitted == Admission.RESERVED) {
                take(copy);
            }
            return admitted;
        } finally {
            unlock();
        }
    }

    /**
     * Whether {@link #reserveCopy} could refuse a copy of a publication here by throwing (and so refuse the publication
     * for every subscriber): the queue's memory policy is fail, drop for a persistent copy, or page with a page-full
     * policy of fail. A volatile read, without the lock; a subscription's queue keeps the limit it was created with
     * (only defined queues are {@linkplain #configure configured}), so the answer holds under the lock too.
     */
    public boolean mayRefuseCopy(boolean persistent) {
        return admission.mayRefuseCopy(persistent);
    }

    /**
     * {@link #reserveCopy} and {@link #offerWhenDue} under one acquisition of the lock, for a copy of a publication
     * that is offered as it is routed (outside a transaction, and stored nowhere) on a queue that cannot refuse it
     * ({@link #mayRefuseCopy} false): reserved and numbered, then handed to a consumer with credit, linked or paged
     * (or discarded, when it has expired or the queue is deleted). A copy not yet due is offered by a task on
     * {@code timer} at its delivery time, as {@link #offerWhenDue} does.
     *
     * @return what the queue did with it: {@link Admission#DROPPED} and {@link Admission#FULL} as {@link #reserveCopy}
     *         says, the copy not taken
     */
    public Admission putCopy(QueuedMessage copy, ScheduledExecutorService timer) {
        assert !mayRefuseCopy(copy.headers().persistent()) : "queue '" + name + "' may refuse a copy: reserve it first";
        long now = clock.millis();
        QueueConsumer receiver = null;
        Admission admitted;
        lock.lock();
        try {
            admitted = admission.admitCopy(copy);
            if (admitted == Admission.RESERVED) {
                take(copy);
                if (copy.deliveryTime() <= now) {
                    receiver = placeOffered(copy, now);
                }
            }
        } finally {
            unlock();
        }
        if (receiver != null) {
            receiver.flushDeliveries();
        } else if (admitted == Admission.RESERVED && copy.deliveryTime() > now) {
            timer.schedule(() -> offer(copy), copy.deliveryTime() - now, TimeUnit.MILLISECONDS);
        }
        return admitted;
    }

    /** Why a copy found the queue {@link Admission#FULL}: the QUEUE_FULL refusal {@link #reserve} would throw. */
    public WharfException depthRefusal() {
        lock.lock();
        try {
            return accounting.queueFull();
        } finally {
            lock.unlock();
        }
    }

    /** Counts a reserved message and numbers it; under the lock. */
    private void take(QueuedMessage message) {
        accounting.raiseDepth();
        accounting.hold(message);
        message.sequence = nextSequence++;
    }

    /**
     * A consumer or browser starts using the queue, from its creation until {@link #detach}: an auto-created queue
     * is not deleted meanwhile.
     *
     * @return false, attaching nothing, when this auto-created queue has been deleted as unused since it was looked
     *         up: look it up again (never false for other queues)
     */
    public boolean attach() {
        lock.lock();
        try {
            return life.attach();
        } finally {
            lock.unlock();
        }
    }

    /** A consumer or browser attached with {@link #attach} has closed. */
    public void detach() {
        lock.lock();
        try {
            life.detach();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Deletes this auto-created queue if it has been unused (depth 0, nothing attached) for at least {@code delay}
     * ms at {@code now}; from then on it refuses reservations and attachments. The queue manager forgets it in the
     * same step (see {@link QueueManager#deleteUnusedQueues}).
     *
     * @return whether it was deleted now
     */
    boolean deleteIfUnused(long now, long delay) {
        lock.lock();
        try {
            return life.deleteIfUnused(now, delay);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Takes a place for a message the queue manager itself moves here (a dead letter) and gives it its sequence
     * number. Like a recovered message, it is never refused: the depth limit does not apply. Follow with
     * {@link #offer}.
     */
    void admit(QueuedMessage message) {
        lock.lock();
        try {
            take(message);
        } finally {
            unlock();
        }
    }

    /** Gives back a place taken by {@link #reserve} for a message that will not be offered (rolled back, failed). */
    public void cancel(QueuedMessage message) {
        leave(message, Departure.CANCELLED);
    }

    /**
     * Makes a reserved message available: hands it to a consumer waiting for it, or links it into the lists.
     * An already expired message is discarded.
     */
    public void offer(QueuedMessage message) {
        long now = clock.millis();
        QueueConsumer receiver;
        lock.lock();
        try {
            receiver = placeOffered(message, now);
        } finally {
            unlock();
        }
        if (receiver != null) {
            receiver.flushDeliveries();
        }
    }

    /**
     * Places a reserved message now offered: discarded when the queue is deleted or it has expired at {@code now},
     * else {@linkplain QueueDispatch#place placed}. Under the lock.
     *
     * @return the consumer it was handed to, to flush once the lock is released; null: none
     */
    private QueueConsumer placeOffered(QueuedMessage message, long now) {
        accounting.countEnqueued();
        if (life.deleted() || message.isExpiredAt(now)) {
            discard(message);
            return null;
        }
        return dispatch.place(message);
    }

    /**
     * Offers a reserved message at its JMS delivery time: at once when that has come (by this queue's clock), else
     * from a task {@code timer} runs then. Until then it counts towards the depth but no consumer sees it.
     */
    public void offerWhenDue(QueuedMessage message, ScheduledExecutorService timer) {
        long delay = message.deliveryTime() - clock.millis();
        if (delay > 0) {
            timer.schedule(() -> offer(message), delay, TimeUnit.MILLISECONDS);
        } else {
            offer(message);
        }
    }

    /**
     * Puts delivered messages back, each at its original position, for example after a rollback. The caller has
     * already counted the redelivery on those the application may have seen. Messages may go straight to waiting
     * consumers, highest priority and oldest first ({@code messages} is sorted into that order in place). One backed
     * out more often than the queue's backout threshold goes to its backout queue instead, once the lock is released
     * ({@link DeadLetters#backOut}).
     */
    public void giveBack(List<QueuedMessage> messages) {
        if (messages.isEmpty()) {
            return;
        }
        if (messages.size() > 1) {
            messages.sort(RETURN_ORDER);
        }
        long now = clock.millis();
        List<QueueConsumer> receivers = null;
        lock.lock();
        try {
            for (int i = 0; i < messages.size(); i++) {
                QueuedMessage message = messages.get(i);
                if (life.deleted() || message.isExpiredAt(now)) {
                    discard(message);
                    continue;
                }
                if (backout.tooOften(message)) {
                    backout.backOut(message);
                    continue;
                }
                receivers = dispatch.placeReturned(message, receivers);
            }
        } finally {
            unlock();
        }
        QueueDispatch.flush(receivers);
    }

    /** Removes an acknowledged message for good. The caller has already recorded the removal in the store. */
    public void acknowledge(QueuedMessage message) {
        leave(message, Departure.DEQUEUED);
    }

    /**
     * Removes acknowledged messages for good, as {@link #acknowledge(QueuedMessage)} does each: those of
     * {@code messages} from {@code from} (inclusive) to {@code to} (exclusive), every one this queue's, under one
     * acquisition of the lock (an ACK settles a consumer's run of deliveries at once), their bytes given back to the
     * budgets in one step. The caller has already recorded the removals in the store.
     */
    public void acknowledge(List<QueuedMessage> messages, int from, int to) {
        long bytes = 0;
        lock.lock();
        try {
            for (int i = from; i < to; i++) {
                QueuedMessage message = messages.get(i);
                assert message.queue() == this
                        : "a message of queue '" + message.queue().name() + "' acknowledged on '" + name + "'";
                accounting.countDequeued();
                accounting.lowerDepth();
                bytes += message.memoryBytes();
            }
            letGoBytes(bytes);
            life.noteIfUnused();
        } finally {
            unlock();
        }
        for (int i = from; i < to; i++) {
            messages.get(i).release();
        }
    }

    /** Why a message the depth counts leaves the queue, for its counters. */
    private enum Departure { CANCELLED, DEQUEUED, DEAD_LETTERED }

    /** A message the depth counts leaves the queue: counted, its place and memory given up, its bytes released. */
    private void leave(QueuedMessage message, Departure departure) {
        lock.lock();
        try {
            if (departure == Departure.DEQUEUED) {
                accounting.countDequeued();
            } else if (departure == Departure.DEAD_LETTERED) {
                accounting.countDeadLettered();
            }
            accounting.lowerDepth();
            letGo(message);
            life.noteIfUnused();
        } finally {
            unlock();
        }
        message.release();
    }

    /**
     * A message moved to a backout or the dead-letter queue leaves this one: counted as dead-lettered, its place in
     * the depth given up. The caller has recorded its removal in the store (with the move, in one transaction).
     */
    void removeDeadLettered(QueuedMessage message) {
        leave(message, Departure.DEAD_LETTERED);
    }

    // ---- a message handed over as it is put ----

    /**
     * Lets {@code taker} take the non-persistent messages put to this queue before the queue does ({@link #handOver}),
     * in place of any other; it spends its consumer's credit for each ({@link #spendForHandOff}).
     */
    public void startHandOff(HandOff taker) {
        handOff.set(taker);
    }

    /** Ends {@code taker}'s hand-off, unless another has replaced it. */
    public void endHandOff(HandOff taker) {
        handOff.compareAndSet(taker, null);
    }

    /**
     * Offers a message about to be put here, outside a unit of work (the caller's to know), to the queue's hand-off
     * ({@link #startHandOff}) before any place is taken for it: one that is non-persistent, due now and not expired.
     *
     * @param message the message as put, with the transmission header it is to carry; {@code headers} its headers
     * @return whether the hand-off took {@code message} (its buffer then the hand-off's); false: put it as any message
     */
    public boolean handOver(TransmissionHeader.Addressed message, MessageHeaders headers) {
        HandOff taker = handOff.get();
        if (taker == null || headers.persistent() || headers.deliveryTime() > 0) {
            return false;
        }
        long expiration = headers.expiration();
        if (expiration != 0 && clock.millis() >= expiration) {
            return false; // the queue discards it
        }
        return taker.take(message);
    }

    /**
     * For a message the hand-off of {@code consumer} (its taker, registered here) takes: spends one of the consumer's
     * credit, as a delivery would, so that what it holds unsettled stays within its credit, and counts the message in
     * the depth until {@link #settleHandedOver}. Only while nothing waits here and {@code nothingDelivered} says the
     * consumer holds no delivery it has not sent (asked under the lock, under which deliveries are made: so the message
     * overtakes none), and the queue would take it (not deleted, below its depth limit).
     *
     * @return whether it may take the message; false: it goes on the queue
     */
    public boolean spendForHandOff(QueueConsumer consumer, BooleanSupplier nothingDelivered) {
        lock.lock();
        try {
            if (life.deleted() || paging.hasPaged() || !dispatch.nothingWaits() || !consumer.window().hasCredit()
                    || !nothingDelivered.getAsBoolean() || accounting.full()) {
                return false;
            }
            consumer.window().spend(0); // a hand-off's taker bounds its messages by count alone
            accounting.countEnqueued();
            accounting.raiseDepth();
            return true;
        } finally {
            unlock();
        }
    }

    /** {@code count} messages handed over ({@link #spendForHandOff}) have left for good: out of the depth. */
    public void settleHandedOver(int count) {
        if (count == 0) {
            return;
        }
        lock.lock();
        try {
            for (int i = 0; i < count; i++) {
                accounting.countDequeued();
                accounting.lowerDepth();
            }
            life.noteIfUnused();
        } finally {
            unlock();
        }
    }

    // ---- consumers ----

    /** Registers a consumer and sends it what its credit allows. */
    public void addConsumer(QueueConsumer consumer) {
        boolean delivered;
        lock.lock();
        try {
            delivered = dispatch.addConsumer(consumer, clock.millis());
        } finally {
            unlock();
        }
        if (delivered) {
            consumer.flushDeliveries();
        }
    }

    /** Unregisters a consumer: from now on nothing more is delivered to it. */
    public void removeConsumer(QueueConsumer consumer) {
        lock.lock();
        try {
            dispatch.removeConsumer(consumer);
        } finally {
            lock.unlock();
        }
    }

    /** Adds credit (a CREDIT frame) and sends what it now allows. */
    public void addCredit(QueueConsumer consumer, int credit) {
        addCredit(consumer, credit, 0);
    }

    /**
     * Adds credit, and settles {@code settledBytes} of what the consumer held ({@link DeliveryWindow}'s bound for a
     * consumer inside the queue manager), and sends what that now allows.
     */
    public void addCredit(QueueConsumer consumer, int credit, long settledBytes) {
        boolean delivered;
        lock.lock();
        try {
            consumer.window().add(credit);
            consumer.window().settle(settledBytes);
            delivered = dispatch.fill(consumer, clock.millis());
        } finally {
            unlock();
        }
        if (delivered) {
            consumer.flushDeliveries();
        }
    }

    /** Takes the consumer's credit away until {@link #resume}; see {@link DeliveryWindow#suspend()}. */
    public void suspend(QueueConsumer consumer) {
        lock.lock();
        try {
            consumer.window().suspend();
        } finally {
            lock.unlock();
        }
    }

    /** Restores the consumer's initial credit and sends what it allows. */
    public void resume(QueueConsumer consumer) {
        boolean delivered;
        lock.lock();
        try {
            consumer.window().reset();
            delivered = dispatch.fill(consumer, clock.millis());
        } finally {
            unlock();
        }
        if (delivered) {
            consumer.flushDeliveries();
        }
    }

    /**
     * Delivers one matching message to the consumer whether or not it has credit (PULL). The delivery spends a
     * credit like any other, even if that takes the window below zero: the client returns credit for every message
     * it consumes, pulled or pushed, so the window stays exact.
     *
     * @return whether a message was delivered
     */
    public boolean pull(QueueConsumer consumer) {
        QueuedMessage message;
        lock.lock();
        try {
            message = dispatch.pull(consumer, clock.millis());
        } finally {
            unlock();
        }
        if (message != null) {
            consumer.flushDeliveries();
        }
        return message != null;
    }

    // ---- administration and browsing: QueueAdministration's, never on a message's way ----

    /** Starts a browse: a cursor that will show the messages waiting now, in delivery order, that {@code selector} accepts. */
    public BrowseCursor browse(Selector selector) {
        return administration.browse(selector);
    }

    /**
     * Shows the browser up to {@code max} more messages: hands {@code sink} a {@code retainedDuplicate()} of each
     * one's bytes (taken under the lock, while the message is surely alive) and its delivery count. Nothing is
     * taken off the queue or counted as delivered; expired messages met on the way are discarded, as a consumer
     * would. Resumes right after the last message shown when that one is still waiting, else by sequence.
     *
     * @return how many were shown; fewer than {@code max} only once the cursor is {@link BrowseCursor#finished()}
     */
    public int browse(BrowseCursor cursor, int max, BrowseSink sink) {
        return browse(cursor, max, Long.MAX_VALUE, sink);
    }

    /**
     * As {@link #browse(BrowseCursor, int, BrowseSink)}, showing none more once the messages shown reach
     * {@code maxBytes} of encoded lengths (so at least one): a browser's window in bytes.
     *
     * @return how many were shown; fewer than {@code max} only once {@code maxBytes} is reached or the cursor is
     *         {@link BrowseCursor#finished()}
     */
    public int browse(BrowseCursor cursor, int max, long maxBytes, BrowseSink sink) {
        return administration.browse(cursor, max, maxBytes, sink);
    }

    /**
     * Shows the browser up to {@code max} more of the queue's paged messages, and none more once they reach
     * {@code maxBytes} of encoded lengths (so at least one), once {@link #browse(BrowseCursor, int, long,
     * BrowseSink)} has walked every priority in memory: reads them from the page files on the paging thread (in the
     * order paged; those read back into memory meanwhile are not shown again) and hands {@code sink} a copy of each,
     * there; then runs {@code done} with how many it showed, on {@code whereDone}. Fewer than {@code max} only once
     * {@code maxBytes} is reached or the cursor is {@link BrowseCursor#finished()}. The copies are the caller's and
     * no queue counts them: a browser counts them against the server's memory budget ({@link #holdBrowsed}).
     */
    public void browsePaged(BrowseCursor cursor, int max, long maxBytes, BrowseSink sink, Executor whereDone,
                            IntConsumer done) {
        administration.browsePaged(cursor, max, maxBytes, sink, whereDone, done);
    }

    /**
     * As {@link #browsePaged(BrowseCursor, int, long, BrowseSink, Executor, IntConsumer)} without a bound in bytes,
     * waiting for it (administration, never on an event loop).
     */
    public int browsePaged(BrowseCursor cursor, int max, BrowseSink sink) {
        return administration.browsePaged(cursor, max, sink);
    }

    /**
     * Counts {@code bytes} of this queue's paged messages, read back as copies for a browser, against the server's
     * memory budget (maxMemoryBytes) until {@link #releaseBrowsed} gives them back: memory the server holds for the
     * browse, outside any queue's count. Any thread.
     */
    public void holdBrowsed(long bytes) {
        accounting.budget().add(bytes);
    }

    /** Gives back {@code bytes} {@link #holdBrowsed} counted (waking producers held for the budget). Any thread. */
    public void releaseBrowsed(long bytes) {
        accounting.budget().release(bytes);
    }

    /** Receives what {@link #browse(BrowseCursor, int, BrowseSink)} shows; called under the queue's lock, so it only collects. */
    @FunctionalInterface
    public interface BrowseSink {
        /** One message: {@code content} is a reference the sink now owns; {@code deliveryCount} as a DELIVER carries it. */
        void browsed(ByteBuf content, int deliveryCount);
    }

    /** The queue's numbers now, read under its lock in one go (depth, consumers, counters, oldest waiting message). */
    public QueueSnapshot snapshot() {
        return administration.snapshot();
    }

    /** A producer whose destination is this queue was created. */
    public void producerOpened() {
        administration.producerOpened();
    }

    /** A producer counted by {@link #producerOpened} closed (or its session or connection did). */
    public void producerClosed() {
        administration.producerClosed();
    }

    /**
     * The queue's settings (at creation, or an administrator's change): depth limit, memory budget and policy, backout
     * and events. A new depth limit refuses puts beyond it from now on (messages already on the queue stay, even
     * above it); a new memory budget counts what the queue holds now. The event thresholds are percentages of the
     * depth limit, so they follow it.
     *
     * @param maxDepth   the depth limit in force (the queue's own, or the server-wide one)
     * @param definition the settings; its maxDepth says whether the limit is the queue's own (for error messages)
     * @param events     where the queue's events go
     */
    void configure(long maxDepth, MemoryLimit memoryLimit, QueueDefinition definition, QueueEvents events) {
        lock.lock();
        try {
            accounting.configure(maxDepth, memoryLimit, definition, events);
            backout.configure(definition);
            transmission = definition.transmission();
        } finally {
            unlock();
        }
    }

    /**
     * Whether its settings make it a transmission queue (usage transmission), as they were last given: read without
     * a lock, for a check on every message a channel brings.
     */
    public boolean transmission() {
        return transmission;
    }

    /**
     * Takes up to {@code max} waiting messages that {@code selector} accepts off the lists, in delivery order (one
     * walk of each priority's list), for an administrator's move or clear. They still count towards the depth, as
     * delivered ones do, until the caller {@link #acknowledge}s each (gone for good: it has removed it from the store)
     * or {@link #giveBack}s them. Expired messages met on the way are discarded; delivered and delayed ones are not
     * waiting, so not taken.
     */
    public List<QueuedMessage> takeWaiting(Selector selector, int max) {
        return administration.takeWaiting(selector, max);
    }

    /**
     * Has the paging thread read the next batch of paged messages back now, whatever the low watermark, and waits
     * until it has: an administrator's clear or move takes the waiting messages in batches and reads the paged ones
     * back this way. Never call it on an event loop (it waits for disk I/O).
     *
     * @return false when nothing is paged
     */
    public boolean readBackNow() {
        return paging.readBackNow();
    }

    /** An administrator defined this queue created by use: it is no longer deleted when unused. */
    void keep() {
        lock.lock();
        try {
            life.keep();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Messages paged and not read back yet (waiting to be written, or on disk): part of the depth, not of the memory
     * held. For administration and tests.
     */
    public long paged() {
        return administration.paged();
    }

    /**
     * Why the queue's page files cannot be written or read now (a full disk, an I/O error: its paging has stopped
     * and tries again every {@link org.wharfmq.server.Configuration#PAGE_RETRY_MILLIS}), or null while they can.
     */
    public String pagingFailure() {
        return administration.pagingFailure();
    }

    /** The bytes of the paged messages' records, as the disk budgets count them. */
    public long pagedBytes() {
        return administration.pagedBytes();
    }

    /**
     * How many paged messages the consumers' selectors have been evaluated on while they looked for one among them
     * (on disk or not written yet), over the queue's life: tests check that a waiting consumer looks at each once.
     */
    public long recordsScanned() {
        return administration.recordsScanned();
    }

    /** How many distinct correlation ids the index holds messages for (tests check the index is kept tidy). */
    int indexedCorrelationIds() {
        return administration.indexedCorrelationIds();
    }

    // ---- recovery: QueueRecovery's ----

    /**
     * Puts back a message recovered from the store at startup, with the sequence number it had, before any
     * consumer exists. The depth limit does not apply: a recovered message is never refused. A queue that pages and
     * is over its memory budget (or finds the server's three quarters spent) pages it, as it would a new message, so
     * that a journal holding more than the budgets recovers within them; every few MiB recovery pages so (on all
     * queues), the calling thread (recovery's, never an event loop) waits for the paging thread to have written them,
     * so that recovery cannot outrun the disk.
     */
    public void restore(QueuedMessage message, long sequence) {
        recovery.restore(message, sequence);
    }

    /**
     * Like {@link #restore}, for a message whose JMS delivery time is still ahead: it counts towards the depth
     * and keeps its sequence number, but stays out of the lists until {@link #offer} at its delivery time.
     */
    public void restoreDelayed(QueuedMessage message, long sequence) {
        recovery.restoreDelayed(message, sequence);
    }

    /** Numbers new messages above {@code lastSequence}, the highest the store has seen on this queue. */
    public void sequenceAbove(long lastSequence) {
        lock.lock();
        try {
            numberAbove(lastSequence);
        } finally {
            lock.unlock();
        }
    }

    /** The highest sequence number given to a message of this queue so far (0: none). */
    long lastSequence() {
        lock.lock();
        try {
            return nextSequence - 1;
        } finally {
            lock.unlock();
        }
    }

    /**
     * After recovery: a waiting message that was backed out more often than the threshold (its last delivery, before
     * the crash, is counted) goes to the backout queue now, before any consumer sees it again.
     *
     * @return how many were moved
     */
    int backOutRecovered() {
        return recovery.backOutRecovered();
    }

    // ---- the queue's end: QueueLife's ----

    /** Releases every waiting message; the server is stopping. Delivered messages are released by their sessions. */
    public void clear() {
        life.clear();
    }

    /**
     * Deletes the queue (a subscription that ends, a temporary queue deleted or whose connection ended): every
     * waiting message is discarded (and removed from the store), and so is any message offered or given back later,
     * such as one a session still held as delivered. A temporary queue also refuses later sends (UNKNOWN_DESTINATION);
     * the caller has checked that it has no consumer.
     *
     * @return how many waiting messages were discarded
     */
    public int delete() {
        return life.delete();
    }

    /**
     * Deletes the queue for an administrator, unless it is in use and {@code force} is false. In use: it holds a
     * message (waiting, delivered, in an open transaction or delayed) or a consumer or browser is attached. Once
     * deleted it refuses reservations and attachments, so whoever looked it up just before looks the name up again;
     * its waiting messages are removed from the store (then {@code removed} runs) and released, and a message given
     * back or offered later is discarded. The caller forgets the queue in the same step (see
     * {@link QueueManager#deleteQueue}) and tells the consumers {@link Retirement#left()} their queue is gone.
     */
    Retirement retire(boolean force, StoreCompletion removed) {
        return life.retire(force, removed);
    }

    // ---- under the lock, for the queue's parts ----

    /** Takes the queue's lock, for its parts' entry points; release it with {@link #unlock()}. */
    void lock() {
        lock.lock();
    }

    /**
     * Releases the lock, then moves the messages set aside under it to the dead-letter or backout queue (which takes
     * its own lock, so never under this one), publishes the events that came due and wakes the producers waiting for
     * the budget. Every method that evaluates selectors, changes the depth or gives messages back unlocks with it.
     */
    void unlock() {
        if (!dispatch.anyUndecodable() && !backout.anyDue() && !accounting.anythingDue()) {
            lock.unlock();
            return;
        }
        List<QueuedMessage> moving = dispatch.takeUndecodable();
        QueueBackout.Due backedOut = backout.takeDue();
        QueueEvents sink = accounting.eventSink();
        List<QueueEvent> events = accounting.takeEvents();
        List<Runnable> waking = accounting.takeWaking();
        lock.unlock();
        for (QueuedMessage m : moving) {
            deadLetters.moveFromQueue(m, m.undecodable);
        }
        backedOut.move(deadLetters);
        events.forEach(sink::publish);
        waking.forEach(Runnable::run);
    }

    /** Consumers and browsers attached; under the lock. */
    int attached() {
        return life.attached();
    }

    /** Numbers new messages above {@code sequence}; under the lock. */
    void numberAbove(long sequence) {
        assert lock.isHeldByCurrentThread();
        nextSequence = Math.max(nextSequence, sequence + 1);
    }

    /** Stops counting a message the queue is no longer responsible for; under the lock. */
    void letGo(QueuedMessage m) {
        letGoBytes(m.memoryBytes());
    }

    /**
     * As {@link #letGo} for a message's bytes: back under budget, the producers it held back are due; a paging queue
     * with a consumer, under its low watermark, reads paged messages back. Under the lock.
     */
    void letGoBytes(long bytes) {
        assert lock.isHeldByCurrentThread();
        if (accounting.letGo(bytes) && !paging.blocksProducers()) {
            accounting.wakeHeldBack();
        }
        if (accounting.dropping()) {
            accounting.endDropsIfCaughtUp(dispatch.nothingWaits());
        }
        paging.readBackIfDue();
    }

    /**
     * Drops an expired message, or any message offered to a deleted queue (already unlinked, or never linked): out of
     * the depth and the memory budgets, removed from the store, released. Under the lock.
     */
    void discard(QueuedMessage m) {
        assert lock.isHeldByCurrentThread();
        if (!life.deleted()) {
            accounting.countExpired(); // every discard but a deleted queue's is an expiry
        }
        remove(m);
    }

    /**
     * Drops a waiting message the drop policy chose to make room ({@link QueueAdmission}; already unlinked): counted
     * as dropped, out of the depth and the memory budgets, released. Under the lock.
     */
    void drop(QueuedMessage m) {
        assert lock.isHeldByCurrentThread();
        remove(m);
        accounting.countDropped();
    }

    /** A message leaves the depth and the budgets for good, without a consumer: removed from the store, released. */
    private void remove(QueuedMessage m) {
        accounting.lowerDepth();
        letGo(m);
        life.noteIfUnused();
        persistence.remove(m);
        m.release();
    }
}
