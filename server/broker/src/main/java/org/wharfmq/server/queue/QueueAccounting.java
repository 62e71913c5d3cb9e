package org.wharfmq.server.queue;

import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.server.OrderedLock;
import org.wharfmq.server.WharfException;
import org.wharfmq.server.config.MemoryPolicy;
import org.wharfmq.server.config.QueueConfiguration;
import org.wharfmq.server.config.QueueDefinition;

import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;

/**
 * One {@link LocalQueue}'s accounting: its depth and depth limit, the memory its messages hold against its own budget
 * and the server's ({@link MemoryLimit}, {@link MemoryBudget}), the producers held back until it is under budget, the
 * drop policy's episodes, its depth events and the counters of the management view.
 *
 * <h2>Depth</h2>
 * Depth counts every message the queue is responsible for: waiting, delivered but not acknowledged, paged, and sent in
 * a transaction that has not committed yet (as IBM MQ's CURDEPTH does). A change of depth that crosses the depth-high
 * or depth-low threshold, or a put refused at maxDepth, makes a {@link QueueEvent} due; a flag per kind makes it once
 * per crossing. What a message pays for this while nothing crosses: one comparison when the depth goes up, two flag
 * reads when it goes down (docs/operations.md, "Events").
 *
 * <h2>Memory</h2>
 * The queue counts the bytes of the messages depth counts ({@link QueuedMessage#memoryBytes()}) against its own budget
 * and adds them to the server's. When the queue's is spent, {@link #overBudget()} is set (a volatile, for senders);
 * once back under it, the producers waiting ({@link #holdBack}) are due. A queue whose policy keeps its messages in
 * memory (block, fail, drop) has a budget of its own even without one set: at most the server's share
 * ({@link MemoryBudget#shareBytes}), so that it alone never spends the server's budget, which its own consumers'
 * sends would wait for ({@link #maxHeld}); a paging queue pages instead.
 *
 * <h2>Threading</h2>
 * Owned by its queue and guarded by the queue's lock: every method but the volatile reads ({@link #overBudget()},
 * {@link #limit()}) runs under it and asserts so. What comes due under the lock (events, producers to wake) is taken
 * by the queue ({@link #takeEvents}, {@link #takeWaking}) and run once the lock is released.
 */
final class QueueAccounting {

    /** The queue's own logger: what a queue reports (budgets spent, drops) is under one name for its operators. */
    private static final System.Logger LOG = System.getLogger(LocalQueue.class.getName());

    private final String name;
    private final OrderedLock lock;
    private final InstantSource clock;
    private final MemoryBudget budget;
    /** An administrator may change it ({@link #configure}). */
    private long maxDepth;
    private boolean maxDepthSetOnQueue;
    /** Changed under the lock by an administrator ({@link #configure}); read without it by senders. */
    private volatile MemoryLimit limit;
    private long depth;
    /** The memory of the messages depth counts, as {@link QueuedMessage#memoryBytes()} counts it. */
    private long heldBytes;
    /**
     * What the queue may hold before its policy applies: its own budget, at most the server's share unless it pages
     * ({@link #limitTo}); {@code Long.MAX_VALUE}: no limit of its own. Guarded by the lock.
     */
    private long maxHeld;
    /** Whether heldBytes has reached {@link #maxHeld}; written under the lock as that changes, read without it. */
    private volatile boolean overLimit;
    /** What to run once the queue is back under its own budget (blocked producers' credit). */
    private final ArrayList<Runnable> budgetWaiters = new ArrayList<>(0);
    /** The queue went back under its budget: the waiters run once the lock is released. */
    private boolean budgetWaitersDue;
    /** Messages the drop policy dropped, over the queue's life, and in the episode of drops going on (0: none). */
    private long dropped;
    private long droppedThisEpisode;
    /** The depth at which a depth-high event is published; {@code Long.MAX_VALUE}: none. */
    private long depthHighEventAt = Long.MAX_VALUE;
    /** After a depth-high event, the depth at (or below) which the next is armed again. */
    private long depthLowEventAt;
    /** Whether reaching {@link #depthLowEventAt} publishes a depth-low event (else it only re-arms). */
    private boolean depthLowEvents;
    /** Whether a put that finds the queue full publishes a queue-full event. */
    private boolean fullEvents;
    /** A depth-high event was published and the depth has not fallen back yet. */
    private boolean aboveDepthHigh;
    /** A queue-full event was published and the depth has not fallen below maxDepth yet. */
    private boolean fullReported;
    /** Where events go once the lock is released. */
    private QueueEvents eventSink = QueueEvents.NONE;
    /** Events due, published once the lock is released. */
    private final ArrayList<QueueEvent> eventsDue = new ArrayList<>(0);
    /**
     * Messages offered (sent, committed, moved or dead-lettered here), removed for good (acknowledged, moved away,
     * cleared), expired and dead-lettered, since the queue manager started: plain counts kept under the lock the
     * message's way holds anyway, for the management view. No atomic, no allocation on the way of a message.
     */
    private long enqueued;
    private long dequeued;
    private long expired;
    /** Messages moved off the queue to a backout or the dead-letter queue (backed out too often, undecodable). */
    private long deadLettered;
    /** Open producers whose destination is this queue (anonymous producers are counted by no queue). */
    private int producers;

    QueueAccounting(String name, OrderedLock lock, InstantSource clock, long maxDepth, boolean maxDepthSetOnQueue,
                    MemoryLimit limit, MemoryBudget budget) {
        this.name = name;
        this.lock = lock;
        this.clock = clock;
        this.maxDepth = maxDepth;
        this.maxDepthSetOnQueue = maxDepthSetOnQueue;
        this.budget = budget;
        limitTo(limit);
    }

    // ---- read without the lock ----

    /** The queue's own memory budget and policy (a volatile read). */
    MemoryLimit limit() {
        return limit;
    }

    /**
     * Whether the queue holds its own memory budget or more (a volatile read); for a queue that does not page, at most
     * the server's share ({@link #maxHeld}).
     */
    boolean overBudget() {
        return overLimit;
    }

    /** Whether it is over its own budget and its policy is block (a volatile read): its senders are to be slowed. */
    boolean blocksOverBudget() {
        return overLimit && limit.policy() == MemoryPolicy.BLOCK;
    }

    /** The server's memory budget. */
    MemoryBudget budget() {
        return budget;
    }

    // ---- depth and events, under the lock ----

    long depth() {
        assert lock.isHeldByCurrentThread();
        return depth;
    }

    long maxDepth() {
        assert lock.isHeldByCurrentThread();
        return maxDepth;
    }

    /** Whether a put finds the queue at its depth limit: a queue-full event is due (once until it falls below it). */
    boolean full() {
        assert lock.isHeldByCurrentThread();
        if (depth < maxDepth) {
            return false;
        }
        if (fullEvents && !fullReported) {
            fullReported = true;
            eventsDue.add(event(QueueEvent.Kind.FULL, maxDepth));
        }
        return true;
    }

    /** One message more: a depth-high event when the depth reaches its threshold (once until it falls back). */
    void raiseDepth() {
        assert lock.isHeldByCurrentThread();
        if (++depth >= depthHighEventAt && !aboveDepthHigh) {
            aboveDepthHigh = true;
            eventsDue.add(event(QueueEvent.Kind.DEPTH_HIGH, depthHighEventAt));
        }
    }

    /** One message more, recovered from the store or read back: no event (nothing is put). */
    void restoreDepth() {
        assert lock.isHeldByCurrentThread();
        depth++;
    }

    /**
     * One message less: after a depth-high event, a depth-low event (or only the re-arming of depth-high) once the
     * depth falls to its threshold; after a queue-full event, re-armed once below the limit.
     */
    void lowerDepth() {
        assert lock.isHeldByCurrentThread();
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

    /** Messages leave the depth without events: the server stops, or paged messages go with their deleted queue. */
    void dropDepth(long messages) {
        assert lock.isHeldByCurrentThread();
        depth -= messages;
    }

    private QueueEvent event(QueueEvent.Kind kind, long threshold) {
        return new QueueEvent(kind, name, depth, maxDepth, threshold, clock.millis());
    }

    /** The QUEUE_FULL refusal of a put at the depth limit. */
    WharfException queueFull() {
        assert lock.isHeldByCurrentThread();
        String setting = maxDepthSetOnQueue ? "setting maxDepth of queue '" + name + "'" : "setting maxQueueDepth";
        return new WharfException(ErrorCode.QUEUE_FULL, "Queue '" + name + "' is full: it holds its maximum depth of "
                + maxDepth + " messages (" + setting + "). Consume messages or raise the limit.");
    }

    // ---- memory, under the lock ----

    long heldBytes() {
        assert lock.isHeldByCurrentThread();
        return heldBytes;
    }

    /** Counts a message the queue is now responsible for. */
    void hold(QueuedMessage m) {
        assert lock.isHeldByCurrentThread();
        long bytes = m.memoryBytes();
        heldBytes += bytes;
        budget.add(bytes);
        if (!overLimit && heldBytes >= maxHeld) {
            overLimit = true;
        }
    }

    /**
     * Stops counting bytes the queue is no longer responsible for.
     *
     * @return whether that took it back under its own budget: the producers it held back are due then, unless a disk
     *         budget still holds them ({@link #wakeHeldBack})
     */
    boolean letGo(long bytes) {
        assert lock.isHeldByCurrentThread();
        heldBytes -= bytes;
        budget.release(bytes);
        if (overLimit && heldBytes < maxHeld) {
            overLimit = false;
            return true;
        }
        return false;
    }

    /** Whether an episode of drops goes on (a field read, for the queue to check whether it is over). */
    boolean dropping() {
        assert lock.isHeldByCurrentThread();
        return droppedThisEpisode > 0;
    }

    /**
     * During an episode of drops: it is over once the consumers have caught up, the queue holding less than half its
     * budget or, without one of its own, nothing waiting ({@code nothingWaits}).
     */
    void endDropsIfCaughtUp(boolean nothingWaits) {
        assert lock.isHeldByCurrentThread();
        if (limit.limited() ? heldBytes < limit.maxBytes() / 2 : nothingWaits) {
            endDropEpisode();
        }
    }

    /** Whether a message of {@code bytes} fits the queue's budget and the server's. */
    boolean fits(long bytes) {
        assert lock.isHeldByCurrentThread();
        return heldBytes + bytes <= maxHeld && budget.hasRoomFor(bytes);
    }

    /** Whether a message that nobody takes is paged: the queue pages and is over its budget, or the server's is spent. */
    boolean pagingDue() {
        return limit.pages() && (overLimit || budget.pagingDue());
    }

    /** Counts a dropped message; the first of an episode is logged. */
    void countDropped() {
        assert lock.isHeldByCurrentThread();
        dropped++;
        if (droppedThisEpisode++ == 0) {
            LOG.log(System.Logger.Level.WARNING, "The memory budget of " + limit.owner() + " is spent (" + heldBytes
                    + " bytes held; " + budgetSetting() + "; policy drop): dropping its oldest waiting non-persistent"
                    + " messages to make room for new ones until its consumers catch up. Its consumers are too slow for"
                    + " its publishers.");
        }
    }

    long dropped() {
        assert lock.isHeldByCurrentThread();
        return dropped;
    }

    /** The consumers have caught up: the episode of drops is over. */
    private void endDropEpisode() {
        LOG.log(System.Logger.Level.INFO, limit.owner() + " is back within its memory budget; "
                + droppedThisEpisode + " messages were dropped to make room (" + dropped + " in all).");
        droppedThisEpisode = 0;
    }

    private String budgetSetting() {
        if (maxHeld == Long.MAX_VALUE) {
            return budget.toString();
        }
        return "budget " + maxHeld + " bytes, " + maxHeldSetting();
    }

    /** Where {@link #maxHeld} comes from: the queue's own budget, or the server's share for one queue. */
    private String maxHeldSetting() {
        return limit.limited() && limit.maxBytes() == maxHeld ? limit.setting() : budget.shareSetting();
    }

    /** The QUEUE_FULL refusal of a message of {@code bytes} that the queue's budget or the server's has no room for. */
    WharfException overBudget(long bytes) {
        assert lock.isHeldByCurrentThread();
        if (heldBytes + bytes > maxHeld) {
            boolean own = limit.limited() && limit.maxBytes() == maxHeld;
            return new WharfException(ErrorCode.QUEUE_FULL, "The memory budget of " + limit.owner() + " is spent: it"
                    + " holds " + heldBytes + " bytes of messages and may hold " + maxHeld + " (" + maxHeldSetting()
                    + "); this message needs " + bytes + " more, and its policy, " + limit.policy() + ", refuses it."
                    + (own ? " Consume its messages or raise the budget." : " Consume its messages, raise"
                    + " maxMemoryBytes, or give it the policy page to keep what is past the share on disk."));
        }
        return new WharfException(ErrorCode.QUEUE_FULL, "The server's memory budget for messages is spent: its queues"
                + " hold " + budget.usedBytes() + " bytes and may hold " + budget.maxBytes() + " (" + budget.setting()
                + "), so " + limit.owner() + " (policy " + limit.policy() + ") takes no more. Consume messages or raise"
                + " the budget.");
    }

    // ---- producers held back ----

    /** A producer's session waits until the queue is back under its budget: {@code task} runs then. */
    void holdBack(Runnable task) {
        assert lock.isHeldByCurrentThread();
        budgetWaiters.add(task);
    }

    /** How many producer sessions wait for the queue to be back under its budget. */
    int heldBack() {
        assert lock.isHeldByCurrentThread();
        return budgetWaiters.size();
    }

    /** The waiters are due whatever the budget: the queue is deleted (it holds nobody back), or a disk budget is free. */
    void wakeHeldBack() {
        assert lock.isHeldByCurrentThread();
        budgetWaitersDue = !budgetWaiters.isEmpty();
    }

    /** Whether anything came due under the lock: events to publish, producers to wake. */
    boolean anythingDue() {
        assert lock.isHeldByCurrentThread();
        return budgetWaitersDue || !eventsDue.isEmpty();
    }

    /** The producers due to be woken, taken (empty: none); under the lock, run once it is released. */
    List<Runnable> takeWaking() {
        assert lock.isHeldByCurrentThread();
        if (!budgetWaitersDue) {
            return List.of();
        }
        List<Runnable> waking = new ArrayList<>(budgetWaiters);
        budgetWaiters.clear();
        budgetWaitersDue = false;
        return waking;
    }

    /** The events due, taken (empty: none); under the lock, published once it is released. */
    List<QueueEvent> takeEvents() {
        assert lock.isHeldByCurrentThread();
        if (eventsDue.isEmpty()) {
            return List.of();
        }
        List<QueueEvent> events = new ArrayList<>(eventsDue);
        eventsDue.clear();
        return events;
    }

    /** Where the events go. */
    QueueEvents eventSink() {
        assert lock.isHeldByCurrentThread();
        return eventSink;
    }

    // ---- the management view's counters, under the lock ----

    void countEnqueued() {
        assert lock.isHeldByCurrentThread();
        enqueued++;
    }

    void countDequeued() {
        assert lock.isHeldByCurrentThread();
        dequeued++;
    }

    void countExpired() {
        assert lock.isHeldByCurrentThread();
        expired++;
    }

    void countDeadLettered() {
        assert lock.isHeldByCurrentThread();
        deadLettered++;
    }

    /** A producer whose destination is this queue opened (+1) or closed (-1). */
    void countProducers(int change) {
        assert lock.isHeldByCurrentThread();
        producers += change;
    }

    /** The numbers of the management view, with what only the queue's other parts know. */
    QueueSnapshot snapshot(int consumers, int browsers, long oldest, long paged, long pagedBytes, String diskFailure) {
        assert lock.isHeldByCurrentThread();
        return new QueueSnapshot(depth, maxDepth, maxDepthSetOnQueue, consumers, browsers, producers, oldest, enqueued,
                dequeued, expired, deadLettered, heldBytes, paged, pagedBytes, diskFailure);
    }

    // ---- settings ----

    /**
     * The queue's settings (at creation, or an administrator's change): depth limit, memory budget and policy, and
     * events. A new depth limit refuses puts beyond it from now on; a new memory budget counts what the queue holds
     * now. The event thresholds are percentages of the depth limit, so they follow it.
     */
    void configure(long maxDepth, MemoryLimit memoryLimit, QueueDefinition definition, QueueEvents events) {
        assert lock.isHeldByCurrentThread();
        this.maxDepth = maxDepth;
        this.maxDepthSetOnQueue = definition.get(QueueConfiguration.MAX_DEPTH) != null;
        limitTo(memoryLimit);
        boolean wasOver = overLimit;
        overLimit = heldBytes >= maxHeld;
        if (wasOver && !overLimit) {
            budgetWaitersDue = !budgetWaiters.isEmpty();
        }
        eventSink = events;
        fullEvents = definition.publishesFullEvents();
        Integer high = definition.get(QueueConfiguration.DEPTH_HIGH_EVENT);
        Integer low = definition.get(QueueConfiguration.DEPTH_LOW_EVENT);
        depthHighEventAt = high == null ? Long.MAX_VALUE : Math.max(1, (maxDepth * high + 99) / 100);
        depthLowEvents = low != null;
        depthLowEventAt = low != null ? maxDepth * low / 100 : depthHighEventAt - 1;
        if (aboveDepthHigh && depth <= depthLowEventAt) {
            aboveDepthHigh = false; // below the new thresholds: armed again, without a depth-low event
        }
        if (fullReported && depth < maxDepth) {
            fullReported = false;
        }
    }

    /**
     * Takes {@code memoryLimit} and what it lets the queue hold ({@link #maxHeld}): its own budget and, unless it
     * pages, at most the server's share ({@link MemoryBudget#shareBytes}): a block queue that alone spent the
     * server's budget held back every session's credit while it was spent, its own consumers' too, so that what
     * they took could never be sent on, nor the queue drain (docs/resilience.md, "Policies").
     */
    private void limitTo(MemoryLimit memoryLimit) {
        long own = memoryLimit.limited() ? memoryLimit.maxBytes() : Long.MAX_VALUE;
        this.maxHeld = memoryLimit.pages() ? own : Math.min(own, budget.shareBytes());
        this.limit = memoryLimit;
    }
}
