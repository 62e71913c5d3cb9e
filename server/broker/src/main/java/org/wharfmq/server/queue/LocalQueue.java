package org.wharfmq.server.queue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.MalformedFrameException;
import org.wharfmq.protocol.selector.Selector;
import org.wharfmq.server.LockOrder;
import org.wharfmq.server.OrderedLock;
import org.wharfmq.server.WharfException;
import org.wharfmq.server.config.MemoryPolicy;
import org.wharfmq.server.config.QueueDefinition;
import org.wharfmq.server.store.Persistence;
import org.wharfmq.server.store.StoreCompletion;

import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A named point-to-point queue: messages in priority order (JMS priority 9 first), FIFO within a priority, handed to
 * its consumers as their credit allows.
 *
 * <h2>Structure</h2>
 * One {@link MessageList} per priority, plus a {@link CorrelationIndex} over the same messages, plus the consumers:
 * those whose selector pins a JMSCorrelationID are kept in the index under that id; all others ("general"
 * consumers) are tried round-robin. A new message goes straight to a consumer that has credit and wants it (no
 * enqueue, no dequeue); only if there is none is it linked into the lists. A consumer that gains credit takes from
 * the lists: by index lookup when its selector pins a correlation id, else the first match from the highest
 * priority down.
 *
 * <h2>Invariant</h2>
 * A registered consumer with credit never has a matching message waiting on the lists: every change that could
 * break this (a message arrives or comes back, a consumer registers or gains credit) dispatches at once. That is
 * what makes direct hand-over FIFO-correct.
 *
 * <h2>Depth</h2>
 * Depth counts every message the queue is responsible for: waiting on the lists, delivered but not acknowledged,
 * and sent in a transaction that has not committed yet (as IBM MQ's CURDEPTH does). A put is refused with
 * QUEUE_FULL when depth has reached the maximum.
 *
 * <h2>Memory</h2>
 * The queue counts the bytes of the messages depth counts ({@link QueuedMessage#memoryBytes()}) against its own
 * {@link MemoryLimit} and adds them to the server's {@link MemoryBudget}. When either is spent, a send meets the
 * queue's policy: {@code fail} refuses it in {@link #reserve} (QUEUE_FULL, naming the budget, the bytes held and the
 * setting); {@code drop} (subscriptions) first drops the oldest waiting non-persistent messages; {@code block}
 * accepts it, and the sending session stops returning its producer's credit until the queue is back under its
 * budget ({@link #overBudget}, {@link #whenUnderBudget}).
 *
 * <h2>Paging</h2>
 * With the policy {@code page}, a message that nobody takes at once while the queue is over its budget (or the server's
 * is spent) is <i>paged</i> ({@link QueuePaging}, which keeps the queue's paged messages, under its lock): handed to
 * the {@link Pager}'s thread, which appends it to the queue's {@link PageStore} and lets its bytes go. From then on,
 * until every paged message is read back, every new message is paged too, even one a waiting consumer would take: none
 * may overtake a paged one (FIFO per priority holds, as the lists keep sequence order). The paging thread reads
 * messages back in batches, in the order paged, whenever the queue holds less than its low watermark in memory, and
 * offers each as if it had just arrived; a consumer with a selector and credit that finds nothing in memory has it look
 * for its oldest match among the paged messages, offered out of turn. A paged message costs no memory beyond its share
 * of its segment's correlation-id set; it counts in the depth and against the disk budgets, past which {@code
 * pageFullPolicy} (block or fail) applies.
 *
 * <h2>Deletion when unused</h2>
 * A queue created by use ({@link #autoCreated}) is <i>unused</i> while its depth is 0 (no message waiting,
 * delivered, reserved by an open transaction or waiting for its delivery time) and no consumer or browser is
 * {@link #attach attached}; it remembers since when. {@link #deleteIfUnused} deletes it once that has lasted the
 * delay, under the lock, so nothing can use it in between: a reservation or attachment that comes later finds it
 * deleted and fails ({@link #reserve} false, {@link #attach} false), and its caller looks the queue up again, which
 * finds or creates its successor. Nothing is ever offered to a deleted auto-created queue, since only a reservation
 * can lead to an offer. Time is read from the queue manager's clock, never from the system directly.
 *
 * <h2>Threading</h2>
 * Every method may be called from any thread. All state is guarded by one short lock per queue, held only for
 * in-memory work: consumers record deliveries under it (taking their session's small lock inside it, always in
 * that order) but write to sockets only after it is released, via {@link QueueConsumer#flushDeliveries()}. The
 * queue's {@link QueuePaging} is guarded by the same lock; its disk I/O happens on the paging thread alone, outside it.
 * Expiry is checked whenever a message would be delivered; an expired message is discarded, never delivered.
 *
 * <h2>Backout and events</h2>
 * A message given back ({@link #giveBack}: a rollback, a recover, a listener that threw) whose delivery count has
 * passed the queue's {@code backoutThreshold} is not linked again but set aside and, once the lock is released, moved
 * to its backout queue ({@link DeadLetters#backOut}); so is a recovered one at start ({@link #backOutRecovered}).
 * A change of depth that crosses the queue's depth-high or depth-low threshold, or a put refused at maxDepth, makes a
 * {@link QueueEvent} due, published once the lock is released; a flag per kind makes it once per crossing. What a
 * message pays for this while nothing crosses: one comparison when the depth goes up, two flag reads when it goes
 * down, all on fields the lock already guards (docs/operations.md, "Events").
 *
 * <h2>Undecodable messages</h2>
 * A message whose properties a selector cannot decode matches no selector: it is taken off the lists and, once the
 * lock is released, moved to the dead-letter queue ({@link DeadLetters}), so it never fails a consumer. SEND and
 * recovery check every message's encoding first, so only a bug can bring one here.
 */
public final class LocalQueue {

    private static final System.Logger LOG = System.getLogger(LocalQueue.class.getName());
    private static final int PRIORITIES = 10;
    /** JMS priority 9, delivered first. */
    static final int HIGHEST_PRIORITY = PRIORITIES - 1;
    private static final Comparator<QueuedMessage> RETURN_ORDER =
            Comparator.comparingInt(QueuedMessage::priority).reversed().thenComparingLong(QueuedMessage::sequence);

    private final String name;
    /** Guarded by the lock: an administrator may change it ({@link #configure}). */
    private long maxDepth;
    /** Guarded by the lock, with {@link #maxDepth}. */
    private boolean maxDepthSetOnQueue;
    private final Persistence persistence;
    private final boolean journaled;
    private final boolean temporary;
    /** Written under the lock (an administrator's definition keeps the queue: {@link #keep}); read racily to skip. */
    private volatile boolean autoCreated;
    private final InstantSource clock;
    private final DeadLetters deadLetters;
    /** Changed under the lock by an administrator ({@link #configure}); read without it by {@link #blocksProducers}. */
    private volatile MemoryLimit limit;
    private final MemoryBudget budget;
    /** How many backouts a message may have before it is moved instead of given back; 0: never moved. Under the lock. */
    private int backoutThreshold;
    /** Where a message over the threshold goes; null: the dead-letter queue. Under the lock. */
    private String backoutQueue;
    /** The depth at which a depth-high event is published; {@code Long.MAX_VALUE}: none. Under the lock. */
    private long depthHighEventAt = Long.MAX_VALUE;
    /** After a depth-high event, the depth at (or below) which the next is armed again. Under the lock. */
    private long depthLowEventAt;
    /** Whether reaching {@link #depthLowEventAt} publishes a depth-low event (else it only re-arms). */
    private boolean depthLowEvents;
    /** Whether a put that finds the queue full publishes a queue-full event. Under the lock. */
    private boolean fullEvents;
    /** A depth-high event was published and the depth has not fallen back yet. Under the lock. */
    private boolean aboveDepthHigh;
    /** A queue-full event was published and the depth has not fallen below maxDepth yet. Under the lock. */
    private boolean fullReported;
    /** Where events go once the lock is released. */
    private QueueEvents eventSink = QueueEvents.NONE;
    /** Events due, published by {@link #unlock()} once the lock is released. */
    private final ArrayList<QueueEvent> eventsDue = new ArrayList<>(0);
    /** Messages backed out too often, off the lists, for {@link #unlock()} to move to the backout queue. */
    private final ArrayList<QueuedMessage> backingOut = new ArrayList<>(0);
    private final Pager pager;

    /** The queue's one lock (see "Threading"); its parts that run under it assert they do. */
    private final OrderedLock lock;
    private final MessageList[] byPriority = new MessageList[PRIORITIES];
    /** Right-sized copies of the messages that wait here; its current region is let go when none waits. */
    private final CompactionArena arena = new CompactionArena(ByteBufAllocator.DEFAULT);
    /** Messages on the lists. */
    private int waiting;
    /** Whether any message waits on the lists; written under the lock as that changes, read without it. */
    private volatile boolean backlogged;
    private final CorrelationIndex correlationIndex = new CorrelationIndex();
    private final ArrayList<QueueConsumer> generalConsumers = new ArrayList<>();
    private int nextGeneralConsumer;
    private long depth;
    private long nextSequence = 1;
    private long consumerVisits;
    /**
     * Messages offered (sent, committed, moved or dead-lettered here), removed for good (acknowledged, moved away,
     * cleared), expired and dead-lettered (below), since the queue manager started: plain counts the code that holds
     * the lock anyway keeps, for the management view ({@link #snapshot}). No atomic, no allocation on the way of a
     * message.
     */
    private long enqueued;
    private long dequeued;
    private long expired;
    /** Messages moved off the queue to a backout or the dead-letter queue (backed out too often, undecodable). */
    private long deadLettered;
    /** Open producers whose destination is this queue (anonymous producers are counted by no queue). */
    private int producers;
    /**
     * Deleted by an administrator: like a deleted auto-created queue it refuses reservations and attachments, so
     * that whoever looked it up just before looks the name up again (finding its successor, or nothing).
     */
    private boolean retired;
    /** Consumers and browsers attached ({@link #attach}): an auto-created queue is not deleted while there are any. */
    private int attached;
    /** When an auto-created queue last became unused (depth 0, nothing attached); meaningful only while unused. */
    private long unusedSince;
    /**
     * A deleted queue (temporary queue, ended subscription) keeps nothing: messages that reach it are discarded. A
     * deleted auto-created queue (deleted when unused) refuses reservations and attachments instead.
     */
    private boolean deleted;
    /** Messages a selector could not decode, off the lists, for the dead-letter queue once the lock is released. */
    private final ArrayList<QueuedMessage> undecodable = new ArrayList<>(0);
    /** The memory of the messages depth counts, as {@link QueuedMessage#memoryBytes()} counts it. */
    private long heldBytes;
    /** Whether heldBytes has reached the queue's own budget; written under the lock as that changes, read without it. */
    private volatile boolean overLimit;
    /** What to run once the queue is back under its own budget (blocked producers' credit). */
    private final ArrayList<Runnable> budgetWaiters = new ArrayList<>(0);
    /** The queue went back under its budget: {@link #unlock()} runs the waiters once the lock is released. */
    private boolean budgetWaitersDue;
    /** Messages the drop policy dropped, over the queue's life, and in the episode of drops going on (0: none). */
    private long dropped;
    private long droppedThisEpisode;
    /** The queue's paged messages and its work on the paging thread; guarded by the lock. */
    private final QueuePaging paging;

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
        this.limit = limit;
        this.budget = budget;
        this.pager = pager;
        this.paging = new QueuePaging(this, pager, budget, arena, clock, persistence);
        this.deadLetters = deadLetters;
        this.journaled = journaled;
        this.maxDepth = maxDepth;
        this.maxDepthSetOnQueue = maxDepthSetOnQueue;
        this.persistence = persistence;
        this.temporary = temporary;
        this.autoCreated = autoCreated;
        this.clock = clock;
        this.unusedSince = autoCreated ? clock.millis() : 0;
        for (int p = 0; p < PRIORITIES; p++) {
            byPriority[p] = new MessageList();
        }
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
        return autoCreated;
    }

    /** How many consumers are registered (temporary queues may not be deleted while they have any). */
    public int consumerCount() {
        lock.lock();
        try {
            return generalConsumers.size() + correlationIndex.consumerCount();
        } finally {
            lock.unlock();
        }
    }

    /** The most messages this queue holds. */
    public long maxDepth() {
        lock.lock();
        try {
            return maxDepth;
        } finally {
            lock.unlock();
        }
    }

    /** Messages the queue is responsible for: waiting, delivered but unacknowledged, or sent in an open transaction. */
    public long depth() {
        lock.lock();
        try {
            return depth;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Whether the queue holds its own memory budget or more (read without the lock). A sending session whose
     * producer's policy is block withholds its credit until {@link #whenUnderBudget} runs.
     */
    public boolean overBudget() {
        return overLimit;
    }

    /**
     * Whether a sender to this queue is to be slowed: it is over its own budget and its policy is block. A volatile
     * read and a final field: what a SEND pays for producer flow control while nothing is over budget.
     */
    public boolean blocksProducers() {
        return paging.blocksProducers() || (overLimit && limit.policy() == MemoryPolicy.BLOCK);
    }

    /**
     * Runs {@code task} once the queue is back under its own budget: at once (in this call) when it is under it now,
     * else once the lock is released by whatever takes it below, on that thread. The task must only hand work on.
     */
    public void whenUnderBudget(Runnable task) {
        boolean serverDiskSpent = false;
        lock.lock();
        try {
            if (!deleted) {
                paging.notePageFull();
                if (overLimit && limit.policy() == MemoryPolicy.BLOCK
                        || paging.blocksProducers() && paging.ownDiskBudgetSpent()) {
                    budgetWaiters.add(task);
                    return;
                }
                serverDiskSpent = paging.blocksProducers();
            }
        } finally {
            lock.unlock();
        }
        if (serverDiskSpent) {
            pager.diskBudget().whenAvailable(task); // other queues' paged messages fill it: their reads free it
        } else {
            task.run();
        }
    }

    /**
     * How many producer sessions wait for this queue to be back under its budget (their credit held back), for
     * administration and tests.
     */
    public int producersHeldBack() {
        lock.lock();
        try {
            return budgetWaiters.size();
        } finally {
            lock.unlock();
        }
    }

    /** The queue's own memory budget and policy. */
    public MemoryLimit memoryLimit() {
        return limit;
    }

    /** The memory of the messages depth counts, in bytes, each as {@link QueuedMessage#memoryBytes()} counts it. */
    public long heldBytes() {
        lock.lock();
        try {
            return heldBytes;
        } finally {
            lock.unlock();
        }
    }

    /** Messages the drop policy has dropped over the queue's life. */
    public long dropped() {
        lock.lock();
        try {
            return dropped;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Whether messages wait on the lists, read without the lock (a hint: it may change at once). A publication routed
     * to a subscription whose queue has a backlog will wait there, so it is compacted once for all subscriptions.
     */
    public boolean backlogged() {
        return backlogged;
    }

    /**
     * The bytes the waiting messages keep alive: the capacity of every distinct buffer under their bytes (the one a
     * message arrived in, or the region it was compacted into), each counted once. A walk of the lists under the
     * lock, for administration and tests, never on a message's path.
     */
    public long retainedBufferBytes() {
        Set<ByteBuf> buffers = Collections.newSetFromMap(new IdentityHashMap<>());
        long bytes = 0;
        lock.lock();
        try {
            for (MessageList list : byPriority) {
                for (QueuedMessage m = list.head; m != null; m = m.next) {
                    ByteBuf root = CompactionArena.underlying(m.content());
                    if (buffers.add(root)) {
                        bytes += root.capacity();
                    }
                }
            }
        } finally {
            lock.unlock();
        }
        return bytes;
    }

    /**
     * How many consumers have been examined while placing new or returned messages, over the queue's life. Lets
     * tests prove that a reply finds its correlation-id consumer without looking at any other.
     */
    public long consumerVisits() {
        lock.lock();
        try {
            return consumerVisits;
        } finally {
            lock.unlock();
        }
    }

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
            if (deleted) {
                if (autoCreated || retired) {
                    return false;
                }
                if (temporary) {
                    throw new WharfException(ErrorCode.UNKNOWN_DESTINATION, "Temporary queue '" + name
                            + "' has been deleted (by TemporaryQueue.delete() or because its connection closed).");
                }
            }
            if (depth >= maxDepth) {
                noteFull();
                throw queueFull();
            }
            if (!makeRoomFor(message)) {
                throw overBudget(message.memoryBytes());
            }
            paging.refuseIfFull(message);
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
            if (depth >= maxDepth) {
                noteFull();
                return Admission.FULL;
            }
            if (!makeRoomFor(copy)) {
                if (limit.policy() != MemoryPolicy.DROP || copy.headers().persistent()) {
                    throw overBudget(copy.memoryBytes());
                }
                countDropped(); // no room even for the newest: it is the one dropped
                return Admission.DROPPED;
            }
            paging.refuseIfFull(copy);
            take(copy);
            return Admission.RESERVED;
        } finally {
            unlock();
        }
    }

    /** Why a copy found the queue {@link Admission#FULL}: the QUEUE_FULL refusal {@link #reserve} would throw. */
    public WharfException depthRefusal() {
        return queueFull();
    }

    /** Counts a reserved message and numbers it; under the lock. */
    private void take(QueuedMessage message) {
        raiseDepth();
        hold(message);
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
            if (deleted && (autoCreated || retired)) {
                return false;
            }
            attached++;
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** A consumer or browser attached with {@link #attach} has closed. */
    public void detach() {
        lock.lock();
        try {
            attached--;
            noteIfUnused();
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
            if (!autoCreated || deleted || depth > 0 || attached > 0 || now - unusedSince < delay) {
                return false;
            }
            deleted = true;
            return true;
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
            raiseDepth();
            hold(message);
            message.sequence = nextSequence++;
        } finally {
            unlock();
        }
    }

    /**
     * Puts back a message recovered from the store at startup, with the sequence number it had, before any
     * consumer exists. The depth limit does not apply: a recovered message is never refused. A queue that pages and
     * is over its memory budget (or finds the server's three quarters spent) pages it, as it would a new message, so
     * that a journal holding more than the budgets recovers within them; every few MiB recovery pages so (on all
     * queues), the calling thread (recovery's, never an event loop) waits for the paging thread to have written them,
     * so that recovery cannot outrun the disk.
     */
    public void restore(QueuedMessage message, long sequence) {
        if (restore(message, sequence, true)) {
            paging.awaitPagingThread("writing the recovered messages of");
        }
    }

    /**
     * Like {@link #restore}, for a message whose JMS delivery time is still ahead: it counts towards the depth
     * and keeps its sequence number, but stays out of the lists until {@link #offer} at its delivery time.
     */
    public void restoreDelayed(QueuedMessage message, long sequence) {
        restore(message, sequence, false);
    }

    /** @return whether the caller is to wait for the paging thread: recovery has paged a batch's worth meanwhile */
    private boolean restore(QueuedMessage message, long sequence, boolean available) {
        long pagedBytes = 0;
        lock.lock();
        try {
            depth++;
            hold(message);
            message.sequence = sequence;
            nextSequence = Math.max(nextSequence, sequence + 1);
            if (!available) {
                return false;
            }
            // one backed out too often stays in memory: backOutRecovered() moves it before any consumer sees it
            if (!backedOutTooOften(message)
                    && (paging.hasPaged() || limit.pages() && (overLimit || budget.pagingDue()))) {
                pagedBytes = message.memoryBytes(); // read before the paging thread may write and release it
                pageOut(message);
            } else {
                link(message);
            }
        } finally {
            unlock();
        }
        return pagedBytes > 0 && pager.recoveryPaged(pagedBytes);
    }

    /** Numbers new messages above {@code lastSequence}, the highest the store has seen on this queue. */
    public void sequenceAbove(long lastSequence) {
        lock.lock();
        try {
            nextSequence = Math.max(nextSequence, lastSequence + 1);
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
        QueueConsumer receiver = null;
        lock.lock();
        try {
            enqueued++;
            if (deleted || message.isExpiredAt(now)) {
                discard(message);
            } else if (paging.hasPaged()) {
                receiver = pageOut(message); // FIFO: nothing overtakes a paged message its receiver would take
            } else {
                receiver = waitingConsumerFor(message);
                if (receiver == null) {
                    linkOrPage(message);
                } else {
                    handOver(receiver, message);
                }
            }
        } finally {
            unlock();
        }
        if (receiver != null) {
            receiver.flushDeliveries();
        }
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
                if (deleted || message.isExpiredAt(now)) {
                    discard(message);
                    continue;
                }
                if (backedOutTooOften(message)) {
                    backingOut.add(message);
                    continue;
                }
                QueueConsumer receiver = waitingConsumerFor(message);
                if (receiver == null) {
                    linkOrSetAside(message);
                } else {
                    handOver(receiver, message);
                    if (receivers == null) {
                        receivers = new ArrayList<>(2);
                    }
                    if (!receivers.contains(receiver)) {
                        receivers.add(receiver);
                    }
                }
            }
        } finally {
            unlock();
        }
        if (receivers != null) {
            for (QueueConsumer receiver : receivers) {
                receiver.flushDeliveries();
            }
        }
    }

    /** Removes an acknowledged message for good. The caller has already recorded the removal in the store. */
    public void acknowledge(QueuedMessage message) {
        leave(message, Departure.DEQUEUED);
    }

    /** Why a message the depth counts leaves the queue, for its counters. */
    private enum Departure { CANCELLED, DEQUEUED, DEAD_LETTERED }

    /** A message the depth counts leaves the queue: counted, its place and memory given up, its bytes released. */
    private void leave(QueuedMessage message, Departure departure) {
        lock.lock();
        try {
            if (departure == Departure.DEQUEUED) {
                dequeued++;
            } else if (departure == Departure.DEAD_LETTERED) {
                deadLettered++;
            }
            lowerDepth();
            letGo(message);
            noteIfUnused();
        } finally {
            unlock();
        }
        message.release();
    }

    /** Registers a consumer and sends it what its credit allows. */
    public void addConsumer(QueueConsumer consumer) {
        boolean delivered;
        lock.lock();
        try {
            String correlationId = consumer.selector().requiredCorrelationId();
            if (correlationId != null) {
                correlationIndex.addConsumer(correlationId, consumer);
            } else {
                generalConsumers.add(consumer);
            }
            paging.addConsumer(consumer);
            delivered = fill(consumer, clock.millis());
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
            paging.removeConsumer(consumer);
        } finally {
            lock.unlock();
        }
    }

    /** Adds credit (a CREDIT frame) and sends what it now allows. */
    public void addCredit(QueueConsumer consumer, int credit) {
        boolean delivered;
        lock.lock();
        try {
            consumer.window().add(credit);
            delivered = fill(consumer, clock.millis());
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
            delivered = fill(consumer, clock.millis());
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
            message = take(consumer.selector(), clock.millis());
            if (message != null) {
                handOver(consumer, message);
            }
        } finally {
            unlock();
        }
        if (message != null) {
            consumer.flushDeliveries();
        }
        return message != null;
    }

    /** Starts a browse: a cursor that will show the messages waiting now, in delivery order, that {@code selector} accepts. */
    public BrowseCursor browse(Selector selector) {
        lock.lock();
        try {
            return new BrowseCursor(selector, nextSequence, paging.hasPaged());
        } finally {
            lock.unlock();
        }
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
        long now = clock.millis();
        int shown = 0;
        lock.lock();
        try {
            while (cursor.priority >= 0 && shown < max) {
                MessageList list = byPriority[cursor.priority];
                QueuedMessage m = resumePoint(list, cursor);
                while (m != null && shown < max && m.sequence < cursor.endSequence) {
                    QueuedMessage next = m.next;
                    if (m.isExpiredAt(now)) {
                        unlink(m);
                        discard(m);
                    } else {
                        cursor.last = m;
                        cursor.lastSequence = m.sequence;
                        if (matches(cursor.selector, m)) {
                            sink.browsed(m.content().retainedDuplicate(), m.deliveryCount());
                            shown++;
                        } else if (m.undecodable != null) {
                            setAside(m);
                        }
                    }
                    m = next;
                }
                if (shown < max) {
                    cursor.priority--;
                    cursor.last = null;
                    cursor.lastSequence = 0;
                }
            }
        } finally {
            unlock();
        }
        return shown;
    }

    /**
     * Shows the browser up to {@code max} more of the queue's paged messages, once {@link #browse(BrowseCursor, int,
     * BrowseSink)} has walked every priority in memory: reads them from the page files on the paging thread (in the
     * order paged; those read back into memory meanwhile are not shown again) and hands {@code sink} a copy of each,
     * there; then runs {@code done} with how many it showed, on {@code whereDone}. Fewer than {@code max} only once
     * the cursor is {@link BrowseCursor#finished()}.
     */
    public void browsePaged(BrowseCursor cursor, int max, BrowseSink sink, java.util.concurrent.Executor whereDone,
                            java.util.function.IntConsumer done) {
        if (cursor.pagedFinished) {
            whereDone.execute(() -> done.accept(0));
            return;
        }
        pager.execute(() -> {
            int shown = paging.browse(cursor, max, sink);
            whereDone.execute(() -> done.accept(shown));
        });
    }

    /** As {@link #browsePaged(BrowseCursor, int, BrowseSink, java.util.concurrent.Executor, java.util.function.IntConsumer)}, waiting for it (administration, never on an event loop). */
    public int browsePaged(BrowseCursor cursor, int max, BrowseSink sink) {
        java.util.concurrent.CompletableFuture<Integer> shown = new java.util.concurrent.CompletableFuture<>();
        browsePaged(cursor, max, sink, Runnable::run, shown::complete);
        return shown.join();
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

    /** Receives what {@link #browse(BrowseCursor, int, BrowseSink)} shows; called under the queue's lock, so it only collects. */
    @FunctionalInterface
    public interface BrowseSink {
        /** One message: {@code content} is a reference the sink now owns; {@code deliveryCount} as a DELIVER carries it. */
        void browsed(ByteBuf content, int deliveryCount);
    }

    /** Releases every waiting message; the server is stopping. Delivered messages are released by their sessions. */
    public void clear() {
        lock.lock();
        try {
            for (MessageList list : byPriority) {
                while (!list.isEmpty()) {
                    QueuedMessage m = list.head;
                    unlink(m);
                    depth--; // the server stops: no event
                    letGo(m);
                    m.release();
                }
            }
            List<QueuedMessage> unwritten = new ArrayList<>();
            dropPaged(unwritten); // the pager deletes the page files as it closes
            unwritten.forEach(QueuedMessage::release);
        } finally {
            unlock();
        }
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
        List<QueuedMessage> discarded = new ArrayList<>();
        long onDisk;
        boolean persistentPaged;
        lock.lock();
        try {
            deleted = true;
            budgetWaitersDue = !budgetWaiters.isEmpty(); // a deleted queue holds nobody back
            unlinkAll(discarded);
            persistentPaged = paging.anyPersistent();
            onDisk = dropPaged(discarded);
        } finally {
            unlock();
        }
        forget(discarded, StoreCompletion.NONE);
        if (onDisk > 0) {
            paging.forgetStoreLater(persistentPaged, StoreCompletion.NONE);
        }
        return (int) Math.min(Integer.MAX_VALUE, discarded.size() + onDisk);
    }

    /** How many distinct correlation ids the index holds messages for (tests check the index is kept tidy). */
    int indexedCorrelationIds() {
        lock.lock();
        try {
            return correlationIndex.indexedCorrelationIds();
        } finally {
            lock.unlock();
        }
    }

    // ---- administration (the management view): never on a message's way ----

    /** The queue's numbers now, read under its lock in one go (depth, consumers, counters, oldest waiting message). */
    public QueueSnapshot snapshot() {
        lock.lock();
        try {
            int consumers = generalConsumers.size() + correlationIndex.consumerCount();
            long oldest = 0;
            for (MessageList list : byPriority) {
                QueuedMessage head = list.head; // a list is in arrival order: its head is its oldest
                long timestamp = head == null ? 0 : head.headers().timestamp();
                if (timestamp != 0 && (oldest == 0 || timestamp < oldest)) {
                    oldest = timestamp;
                }
            }
            return new QueueSnapshot(depth, maxDepth, maxDepthSetOnQueue, consumers, attached - consumers, producers,
                    oldest, enqueued, dequeued, expired, deadLettered, heldBytes, paging.paged(), paging.pagedBytes(),
                    paging.diskFailure());
        } finally {
            lock.unlock();
        }
    }

    /** A producer whose destination is this queue was created. */
    public void producerOpened() {
        lock.lock();
        try {
            producers++;
        } finally {
            lock.unlock();
        }
    }

    /** A producer counted by {@link #producerOpened} closed (or its session or connection did). */
    public void producerClosed() {
        lock.lock();
        try {
            producers--;
        } finally {
            lock.unlock();
        }
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
            this.maxDepth = maxDepth;
            this.maxDepthSetOnQueue = definition.maxDepth() != null;
            this.limit = memoryLimit;
            boolean wasOver = overLimit;
            overLimit = memoryLimit.limited() && heldBytes >= memoryLimit.maxBytes();
            if (wasOver && !overLimit) {
                budgetWaitersDue = !budgetWaiters.isEmpty();
            }
            backoutThreshold = definition.backoutThreshold() == null ? 0 : definition.backoutThreshold();
            backoutQueue = definition.backoutQueue();
            eventSink = events;
            fullEvents = definition.publishesFullEvents();
            Integer high = definition.depthHighEvent();
            Integer low = definition.depthLowEvent();
            depthHighEventAt = high == null ? Long.MAX_VALUE : Math.max(1, (maxDepth * high + 99) / 100);
            depthLowEvents = low != null;
            depthLowEventAt = low != null ? maxDepth * low / 100 : depthHighEventAt - 1;
            if (aboveDepthHigh && depth <= depthLowEventAt) {
                aboveDepthHigh = false; // below the new thresholds: armed again, without a depth-low event
            }
            if (fullReported && depth < maxDepth) {
                fullReported = false;
            }
        } finally {
            unlock();
        }
    }

    /**
     * After recovery: a waiting message that was backed out more often than the threshold (its last delivery, before
     * the crash, is counted) goes to the backout queue now, before any consumer sees it again.
     *
     * @return how many were moved
     */
    int backOutRecovered() {
        int moved = 0;
        lock.lock();
        try {
            if (backoutThreshold == 0) {
                return 0;
            }
            for (MessageList list : byPriority) {
                QueuedMessage m = list.head;
                while (m != null) {
                    QueuedMessage next = m.next;
                    if (backedOutTooOften(m)) {
                        unlink(m);
                        backingOut.add(m);
                        moved++;
                    }
                    m = next;
                }
            }
        } finally {
            unlock();
        }
        return moved;
    }

    /**
     * A message moved to a backout or the dead-letter queue leaves this one: counted as dead-lettered, its place in
     * the depth given up. The caller has recorded its removal in the store (with the move, in one transaction).
     */
    void removeDeadLettered(QueuedMessage message) {
        leave(message, Departure.DEAD_LETTERED);
    }

    /** An administrator defined this queue created by use: it is no longer deleted when unused. */
    void keep() {
        lock.lock();
        try {
            autoCreated = false;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Takes up to {@code max} waiting messages that {@code selector} accepts off the lists, in delivery order (one
     * walk of each priority's list), for an administrator's move or clear. They still count towards the depth, as
     * delivered ones do, until the caller {@link #acknowledge}s each (gone for good: it has removed it from the store)
     * or {@link #giveBack}s them. Expired messages met on the way are discarded; delivered and delayed ones are not
     * waiting, so not taken.
     */
    public List<QueuedMessage> takeWaiting(Selector selector, int max) {
        List<QueuedMessage> taken = new ArrayList<>();
        long now = clock.millis();
        lock.lock();
        try {
            for (int p = HIGHEST_PRIORITY; p >= 0 && taken.size() < max; p--) {
                QueuedMessage m = byPriority[p].head;
                while (m != null && taken.size() < max) {
                    QueuedMessage next = m.next;
                    if (m.isExpiredAt(now)) {
                        unlink(m);
                        discard(m);
                    } else if (matches(selector, m)) {
                        unlink(m);
                        taken.add(m);
                    } else if (m.undecodable != null) {
                        setAside(m);
                    }
                    m = next;
                }
            }
        } finally {
            unlock();
        }
        return taken;
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
        List<QueuedMessage> discarded = new ArrayList<>();
        List<QueueConsumer> left;
        long onDisk;
        boolean persistentPaged;
        long depthBefore;
        int consumers;
        int browsers;
        lock.lock();
        try {
            depthBefore = depth;
            consumers = generalConsumers.size() + correlationIndex.consumerCount();
            browsers = attached - consumers;
            if (!force && (depth > 0 || attached > 0)) {
                return new Retirement(false, depth, consumers, browsers, 0, List.of());
            }
            deleted = true;
            retired = true;
            budgetWaitersDue = !budgetWaiters.isEmpty(); // a deleted queue holds nobody back
            unlinkAll(discarded);
            persistentPaged = paging.anyPersistent();
            onDisk = dropPaged(discarded);
            left = new ArrayList<>(generalConsumers);
            correlationIndex.addConsumersTo(left);
        } finally {
            unlock(); // wakes producers waiting for this queue's budget: a deleted queue holds nobody back
        }
        StoreCompletion whenRemoved = onDisk == 0 ? removed : Persistence.countdown(2, removed);
        forget(discarded, whenRemoved);
        if (onDisk > 0) {
            paging.forgetStoreLater(persistentPaged, whenRemoved);
        }
        return new Retirement(true, depthBefore, consumers, browsers,
                (int) Math.min(Integer.MAX_VALUE, discarded.size() + onDisk), left);
    }

    /** Removes messages taken off a deleted queue from the store ({@code removed} runs then) and releases them. */
    private void forget(List<QueuedMessage> discarded, StoreCompletion removed) {
        persistence.remove(discarded, removed);
        discarded.forEach(QueuedMessage::release);
    }

    // ---- under the lock ----

    /** Takes every waiting message off the lists (and out of the depth and the memory budgets) into {@code out}. */
    private void unlinkAll(List<QueuedMessage> out) {
        for (MessageList list : byPriority) {
            while (!list.isEmpty()) {
                QueuedMessage m = list.head;
                unlink(m);
                lowerDepth();
                letGo(m);
                out.add(m);
            }
        }
    }

    /** Whether {@code m} has been backed out more often than the threshold allows (as IBM MQ's BackoutCount >= BOTHRESH). */
    private boolean backedOutTooOften(QueuedMessage m) {
        return backoutThreshold > 0 && m.deliveryCount() > backoutThreshold;
    }

    /** One message more: a depth-high event when the depth reaches its threshold (once until it falls back). */
    private void raiseDepth() {
        if (++depth >= depthHighEventAt && !aboveDepthHigh) {
            aboveDepthHigh = true;
            eventsDue.add(event(QueueEvent.Kind.DEPTH_HIGH, depthHighEventAt));
        }
    }

    /**
     * One message less: after a depth-high event, a depth-low event (or only the re-arming of depth-high) once the
     * depth falls to its threshold; after a queue-full event, re-armed once below the limit.
     */
    private void lowerDepth() {
        depth--;
        if (aboveDepthHigh && depth <= depthLowEventAt) {
            aboveDepthHigh = false;
            if (depthLowEvents) {
                eventsDue.add(event(QueueEvent.Kind.DEPTH_LOW, depthLowEventAt));
            }
        }
        if (fullReported && depth < maxDepth) {
            fullReported = false;
        }
    }

    /** A put found the queue at its depth limit: a queue-full event, once until the depth falls below it. */
    private void noteFull() {
        if (fullEvents && !fullReported) {
            fullReported = true;
            eventsDue.add(event(QueueEvent.Kind.FULL, maxDepth));
        }
    }

    private QueueEvent event(QueueEvent.Kind kind, long threshold) {
        return new QueueEvent(kind, name, depth, maxDepth, threshold, clock.millis());
    }

    /** After the depth or the attachments went down: an auto-created queue now unused starts counting its time. */
    private void noteIfUnused() {
        if (autoCreated && depth == 0 && attached == 0) {
            unusedSince = clock.millis();
        }
    }

    /** A consumer with credit whose selector accepts {@code m}: its correlation-id waiters first, then round-robin. */
    private QueueConsumer waitingConsumerFor(QueuedMessage m) {
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

    /** Sends waiting messages to the consumer while it has credit; returns whether it sent any. */
    private boolean fill(QueueConsumer consumer, long now) {
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

    private void handOver(QueueConsumer consumer, QueuedMessage m) {
        consumer.window().spend();
        consumer.deliver(m);
    }

    /** Unlinks and returns the best waiting message the selector accepts, discarding expired ones met on the way. */
    private QueuedMessage take(Selector selector, long now) {
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
                    discard(m);
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
                discard(m);
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

    /**
     * Links a message no consumer took, unless a selector found it undecodable: that one is set aside. It is about to
     * wait, so it stops keeping a larger buffer alive than itself ({@link QueuedMessage#compact}).
     */
    private void linkOrSetAside(QueuedMessage m) {
        if (m.undecodable != null) {
            undecodable.add(m);
        } else {
            m.compact(arena);
            link(m);
        }
    }

    /** Takes an undecodable message off the lists, for {@link #unlock()} to move to the dead-letter queue. */
    private void setAside(QueuedMessage m) {
        unlink(m);
        undecodable.add(m);
    }

    /**
     * Releases the lock, then moves the messages set aside under it to the dead-letter or backout queue (which takes
     * its own lock, so never under this one), publishes the events that came due and wakes the producers waiting for
     * the budget. Every method that evaluates selectors, changes the depth or gives messages back unlocks with it.
     */
    void unlock() {
        if (undecodable.isEmpty() && !budgetWaitersDue && backingOut.isEmpty() && eventsDue.isEmpty()) {
            lock.unlock();
            return;
        }
        List<QueuedMessage> moving = new ArrayList<>(undecodable);
        undecodable.clear();
        List<QueuedMessage> backedOut = List.of();
        String backoutTarget = backoutQueue;
        int threshold = backoutThreshold;
        if (!backingOut.isEmpty()) {
            backedOut = new ArrayList<>(backingOut);
            backingOut.clear();
        }
        List<QueueEvent> events = List.of();
        QueueEvents sink = eventSink;
        if (!eventsDue.isEmpty()) {
            events = new ArrayList<>(eventsDue);
            eventsDue.clear();
        }
        List<Runnable> waking = List.of();
        if (budgetWaitersDue) {
            waking = new ArrayList<>(budgetWaiters);
            budgetWaiters.clear();
            budgetWaitersDue = false;
        }
        lock.unlock();
        for (QueuedMessage m : moving) {
            deadLetters.moveFromQueue(m, m.undecodable);
        }
        for (QueuedMessage m : backedOut) {
            deadLetters.backOut(m, backoutTarget, threshold);
        }
        events.forEach(sink::publish);
        waking.forEach(Runnable::run);
    }

    // ---- paging (the paged messages themselves are QueuePaging's) ----

    /**
     * Messages paged and not read back yet (waiting to be written, or on disk): part of the depth, not of the memory
     * held. For administration and tests.
     */
    public long paged() {
        lock.lock();
        try {
            return paging.paged();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Why the queue's page files cannot be written or read now (a full disk, an I/O error: its paging has stopped
     * and tries again every {@link Configuration#PAGE_RETRY_MILLIS}), or null while they can.
     */
    public String pagingFailure() {
        lock.lock();
        try {
            return paging.diskFailure();
        } finally {
            lock.unlock();
        }
    }

    /** The bytes of the paged messages' records, as the disk budgets count them. */
    public long pagedBytes() {
        lock.lock();
        try {
            return paging.pagedBytes();
        } finally {
            lock.unlock();
        }
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

    /** A message nobody took: linked, or paged when the queue pages and is over its budget (or the server's). */
    private void linkOrPage(QueuedMessage m) {
        if (limit.pages() && (overLimit || budget.pagingDue())) {
            pageOut(m); // gives it to nobody: no consumer with credit accepts it
        } else {
            linkOrSetAside(m);
        }
    }

    /**
     * Hands a message to the paging thread, unless a consumer with credit accepts it that has looked at every paged
     * message ({@link QueuePaging#caughtUpConsumerFor}: no older one is for it), or a selector found it undecodable:
     * that one is set aside.
     *
     * @return the consumer it was handed over to, for the caller to flush once the lock is released (null: none)
     */
    private QueueConsumer pageOut(QueuedMessage m) {
        QueueConsumer receiver = paging.caughtUpConsumerFor(m);
        if (receiver != null) {
            handOver(receiver, m);
        } else if (m.undecodable != null) {
            undecodable.add(m);
        } else {
            paging.pageOut(m);
        }
        return receiver;
    }

    /**
     * How many paged messages the consumers' selectors have been evaluated on while they looked for one among them
     * (on disk or not written yet), over the queue's life: tests check that a waiting consumer looks at each once.
     */
    public long recordsScanned() {
        lock.lock();
        try {
            return paging.recordsScanned();
        } finally {
            lock.unlock();
        }
    }

    /**
     * The queue is deleted or the server stops: its paged messages leave the depth and the disk budgets, and those
     * not written yet go to {@code out}, out of the memory budgets too (as {@link #unlinkAll} does).
     *
     * @return how many were on disk (the paging thread forgets them: {@link QueuePaging#forgetStoreLater})
     */
    private long dropPaged(List<QueuedMessage> out) {
        if (!paging.hasPaged()) {
            return 0;
        }
        int first = out.size();
        long onDisk = paging.drop(out);
        for (int i = first; i < out.size(); i++) {
            depth--;
            letGo(out.get(i));
        }
        depth -= onDisk;
        noteIfUnused();
        return onDisk;
    }

    // ---- for the queue's paging, under the lock ----

    /** Takes the queue's lock, for {@link QueuePaging}; release it with {@link #unlock()}. */
    void lock() {
        lock.lock();
    }

    /** Whether the queue is deleted; under the lock (a browse of paged messages reads it without: a hint). */
    boolean deleted() {
        return deleted;
    }

    /** The memory of the messages depth counts, as {@link #heldBytes()} says, without taking the lock. */
    long bytesHeld() {
        return heldBytes;
    }

    /** Whether a consumer waits for messages with {@code correlationId}, with credit or not. */
    boolean awaitsCorrelationId(String correlationId) {
        return correlationIndex.consumers(correlationId) != null;
    }

    /** Whether a consumer with credit waits for messages with {@code correlationId}. */
    boolean waitsWithCredit(String correlationId) {
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

    /**
     * Offers a message read back (or found out of turn) among the paged ones as {@link #offer} would, but never pages
     * it again: to a waiting consumer, added to {@code receivers} (created when null) for the caller to flush once the
     * lock is released, else linked.
     *
     * @return {@code receivers}, or the list created for the consumer it went to
     */
    List<QueueConsumer> offerReadBack(QueuedMessage m, List<QueueConsumer> receivers) {
        if (m.isExpiredAt(clock.millis())) {
            discard(m);
            return receivers;
        }
        QueueConsumer receiver = waitingConsumerFor(m);
        if (receiver == null) {
            linkOrSetAside(m);
            return receivers;
        }
        handOver(receiver, m);
        if (receivers == null) {
            receivers = new ArrayList<>(2);
        }
        if (!receivers.contains(receiver)) {
            receivers.add(receiver);
        }
        return receivers;
    }

    /**
     * A disk budget is no longer spent: unless the memory budget still holds them back, the producers waiting for the
     * queue are due.
     */
    void pageFullEnded() {
        if (!(overLimit && limit.policy() == MemoryPolicy.BLOCK)) {
            budgetWaitersDue = !budgetWaiters.isEmpty();
        }
    }

    // ---- memory (under the lock) ----

    /** Counts a message the queue is now responsible for. */
    void hold(QueuedMessage m) {
        long bytes = m.memoryBytes();
        heldBytes += bytes;
        budget.add(bytes);
        if (limit.limited() && !overLimit && heldBytes >= limit.maxBytes()) {
            overLimit = true;
        }
    }

    /** Stops counting a message the queue is no longer responsible for; back under budget, its waiters are due. */
    private void letGo(QueuedMessage m) {
        letGoBytes(m.memoryBytes());
    }

    /** As {@link #letGo} for a message's bytes; a paging queue under its low watermark reads paged messages back. */
    void letGoBytes(long bytes) {
        heldBytes -= bytes;
        budget.release(bytes);
        if (overLimit && heldBytes < limit.maxBytes()) {
            overLimit = false;
            budgetWaitersDue = !paging.blocksProducers() && !budgetWaiters.isEmpty();
        }
        if (droppedThisEpisode > 0 && (limit.limited() ? heldBytes < limit.maxBytes() / 2 : waiting == 0)) {
            endDropEpisode();
        }
        paging.readBackIfDue();
    }

    /**
     * Applies the policy to a message about to be reserved when its bytes do not fit the queue's budget or the
     * server's: block takes it anyway (its producer's credit is withheld instead); drop drops the oldest waiting
     * non-persistent messages until it fits; fail, and drop with nothing left to drop, leave no room.
     *
     * @return whether there is room for it
     */
    private boolean makeRoomFor(QueuedMessage m) {
        if (limit.policy() == MemoryPolicy.BLOCK || limit.policy() == MemoryPolicy.PAGE) {
            return true; // block holds the producer's credit back; page keeps the message on disk
        }
        long bytes = m.memoryBytes();
        if (fits(bytes)) {
            return true;
        }
        if (limit.policy() == MemoryPolicy.DROP) {
            while (dropOldest()) {
                if (fits(bytes)) {
                    return true;
                }
            }
        }
        return false;
    }

    private boolean fits(long bytes) {
        return (!limit.limited() || heldBytes + bytes <= limit.maxBytes()) && budget.hasRoomFor(bytes);
    }

    /** Drops the oldest waiting non-persistent message, lowest priority first; false when there is none. */
    private boolean dropOldest() {
        for (int p = 0; p < PRIORITIES; p++) {
            for (QueuedMessage m = byPriority[p].head; m != null; m = m.next) {
                if (!m.headers().persistent()) {
                    unlink(m);
                    discard(m);
                    countDropped();
                    return true;
                }
            }
        }
        return false;
    }

    /** Counts a dropped message; the first of an episode is logged. */
    private void countDropped() {
        dropped++;
        if (droppedThisEpisode++ == 0) {
            LOG.log(System.Logger.Level.WARNING, "The memory budget of " + limit.owner() + " is spent (" + heldBytes
                    + " bytes held; " + budgetSetting() + "; policy drop): dropping its oldest waiting non-persistent"
                    + " messages to make room for new ones until its consumers catch up. Its consumers are too slow for"
                    + " its publishers.");
        }
    }

    /**
     * The consumers have caught up (the queue holds less than half its budget, or, without a budget of its own, has
     * nothing waiting): the episode of drops is over.
     */
    private void endDropEpisode() {
        if (droppedThisEpisode > 0) {
            LOG.log(System.Logger.Level.INFO, limit.owner() + " is back within its memory budget; "
                    + droppedThisEpisode + " messages were dropped to make room (" + dropped + " in all).");
            droppedThisEpisode = 0;
        }
    }

    private String budgetSetting() {
        return limit.limited() ? "budget " + limit.maxBytes() + " bytes, " + limit.setting() : budget.toString();
    }

    private WharfException overBudget(long bytes) {
        if (limit.limited() && heldBytes + bytes > limit.maxBytes()) {
            return new WharfException(ErrorCode.QUEUE_FULL, "The memory budget of " + limit.owner() + " is spent: it"
                    + " holds " + heldBytes + " bytes of messages and may hold " + limit.maxBytes() + " ("
                    + limit.setting() + "); this message needs " + bytes + " more, and its policy, " + limit.policy()
                    + ", refuses it. Consume its messages or raise the budget.");
        }
        return new WharfException(ErrorCode.QUEUE_FULL, "The server's memory budget for messages is spent: its queues"
                + " hold " + budget.usedBytes() + " bytes and may hold " + budget.maxBytes() + " (" + budget.setting()
                + "), so " + limit.owner() + " (policy " + limit.policy() + ") takes no more. Consume messages or raise"
                + " the budget.");
    }

    private void link(QueuedMessage m) {
        byPriority[m.priority()].insert(m);
        if (m.correlationId() != null) {
            correlationIndex.add(m);
        }
        if (waiting++ == 0) {
            backlogged = true;
        }
    }

    private void unlink(QueuedMessage m) {
        byPriority[m.priority()].remove(m);
        if (m.correlationId() != null) {
            correlationIndex.remove(m);
        }
        if (--waiting == 0) {
            backlogged = false;
            arena.release(); // nothing waits: an idle queue keeps no region alive
        }
    }

    /** Drops an expired message, or any message offered to a deleted queue (already unlinked, or never linked). */
    private void discard(QueuedMessage m) {
        if (!deleted) {
            expired++; // every discard but a deleted queue's is an expiry
        }
        lowerDepth();
        letGo(m);
        noteIfUnused();
        persistence.remove(m);
        m.release();
    }

    private WharfException queueFull() {
        String setting = maxDepthSetOnQueue ? "setting maxDepth of queue '" + name + "'" : "setting maxQueueDepth";
        return new WharfException(ErrorCode.QUEUE_FULL, "Queue '" + name + "' is full: it holds its maximum depth of "
                + maxDepth + " messages (" + setting + "). Consume messages or raise the limit.");
    }
}
