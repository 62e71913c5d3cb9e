package org.wharfmq.server.queue;

import io.netty.util.internal.PlatformDependent;
import org.wharfmq.server.Configuration;
import org.wharfmq.server.config.ServerConfig;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * The server's memory budget for messages (setting maxMemoryBytes): what every queue and subscription holds, counted
 * together. Each queue counts its own messages under its lock and adds or takes its changes here as they happen, so
 * this is the sum of the queues' counts (a publication held by several subscriptions counts once for each, which
 * errs on the safe side: their bytes are shared).
 *
 * <p>Counting is a {@link LongAdder}: queues on different event loops add to different cells, so counting costs a
 * send or an acknowledgement no contended atomic; only {@link #spent()} sums the cells. Those who wait for the budget
 * to come back ({@link #whenAvailable}: producers whose credit was withheld) are woken by the release that brings it
 * back; a release looks for them with one volatile read.
 *
 * <p>The release that brings the budget back under its maximum wakes every waiter at once, in the order they came;
 * waking is their turn, not a chance to race for the room: the room is no reservation (the woken producers' messages
 * come later, each counted as its queue takes it), so a woken waiter that looked at {@link #spent()} again before
 * going on could find it spent each time, filled by another waiter woken with it whose thread ran first (a producer
 * whose event loop is busier, starved for good while the others take the room). A woken producer window therefore
 * returns what it held when it began to wait without looking again (ProducerWindow; BudgetWakeOrderTest shows the
 * starvation it prevents), and the woken together may take the budget past its maximum by a window each at most; what
 * a window held after it began to wait looks again.
 *
 * <p>The same accounting serves as the server's disk budget for paged messages ({@link #ofDisk}, setting
 * maxPageBytes), which paging queues count their page records against ({@link Pager#diskBudget()}).
 */
public final class MemoryBudget {

    private final long maxBytes;
    /**
     * {@link Configuration#PAGE_AT_SERVER_BUDGET_PERCENT} of {@link #maxBytes}: from here on paging queues page, and
     * the most one queue whose policy keeps its messages in memory (block, fail, drop) may hold.
     */
    private final long shareBytes;
    private final String setting;
    private final LongAdder used = new LongAdder();
    /** Tasks to run once the budget is no longer spent; guarded by this. */
    private final List<Runnable> waiters = new ArrayList<>();
    private volatile boolean anyWaiting;

    /**
     * @param maxBytes the budget
     * @param setting  how the budget is set, for messages (e.g. "setting maxMemoryBytes")
     */
    MemoryBudget(long maxBytes, String setting) {
        this.maxBytes = maxBytes;
        this.shareBytes = maxBytes / 100 * Configuration.PAGE_AT_SERVER_BUDGET_PERCENT;
        this.setting = setting;
    }

    /** A budget nothing reaches: for queues made outside a queue manager (tests, benchmarks). */
    static MemoryBudget unlimited() {
        return new MemoryBudget(Long.MAX_VALUE, "no budget");
    }

    /**
     * The budget {@code config} sets: maxMemoryBytes, or when it is 0, {@link Configuration#DEFAULT_MEMORY_SHARE_PERCENT}
     * % of the JVM's direct memory limit ({@code -XX:MaxDirectMemorySize}, else the heap's {@code -Xmx}).
     */
    public static MemoryBudget of(ServerConfig config) {
        if (config.maxMemoryBytes() > 0) {
            return new MemoryBudget(config.maxMemoryBytes(), "setting maxMemoryBytes");
        }
        long automatic = PlatformDependent.maxDirectMemory() / 100 * Configuration.DEFAULT_MEMORY_SHARE_PERCENT;
        return new MemoryBudget(automatic, "setting maxMemoryBytes, 0: " + Configuration.DEFAULT_MEMORY_SHARE_PERCENT
                + " % of the JVM's direct memory limit");
    }

    /**
     * The server's disk budget for paged messages: {@code maxPageBytes}, or when 0, a share of the data directory's
     * free disk space now ({@link Configuration#DEFAULT_PAGE_SHARE_PERCENT}).
     */
    public static MemoryBudget ofDisk(ServerConfig config) {
        if (config.maxPageBytes() > 0) {
            return new MemoryBudget(config.maxPageBytes(), "setting maxPageBytes");
        }
        long free = freeSpaceOf(config.dataDirectory());
        return new MemoryBudget(free / 100 * Configuration.DEFAULT_PAGE_SHARE_PERCENT, "setting maxPageBytes, 0: "
                + Configuration.DEFAULT_PAGE_SHARE_PERCENT + " % of the data directory's free disk space at start");
    }

    /** The usable space of the disk of {@code directory} (or of its nearest existing parent). */
    private static long freeSpaceOf(java.nio.file.Path directory) {
        java.nio.file.Path p = directory.toAbsolutePath();
        while (p != null && !java.nio.file.Files.exists(p)) {
            p = p.getParent();
        }
        try {
            return p == null ? 0 : java.nio.file.Files.getFileStore(p).getUsableSpace();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException("Cannot read the free disk space of " + p + ": " + e.getMessage(), e);
        }
    }

    /** The budget in bytes. */
    public long maxBytes() {
        return maxBytes;
    }

    /** The bytes the queues hold now (a sum of counters that may be moving). */
    public long usedBytes() {
        return used.sum();
    }

    /** Whether the queues hold the whole budget or more. */
    public boolean spent() {
        return used.sum() >= maxBytes;
    }

    /**
     * Whether queues whose policy is page are to page what nobody takes at once: the budget is
     * {@link Configuration#PAGE_AT_SERVER_BUDGET_PERCENT} % spent or more.
     */
    public boolean pagingDue() {
        return used.sum() >= shareBytes;
    }

    /**
     * The most one queue or subscription whose policy keeps its messages in memory (block, fail, drop) may hold of
     * this budget, whatever its own: {@link Configuration#PAGE_AT_SERVER_BUDGET_PERCENT} % of it. The rest stays for
     * what cannot page, among it what that queue's own consumers send on (docs/resilience.md, "Policies").
     */
    public long shareBytes() {
        return shareBytes;
    }

    /** Where {@link #shareBytes} comes from, for messages. */
    public String shareSetting() {
        return Configuration.PAGE_AT_SERVER_BUDGET_PERCENT + " % of the server's memory budget of " + maxBytes
                + " bytes (" + setting + "), the most one queue that keeps its messages in memory may hold";
    }

    /** Whether {@code bytes} more fit in the budget. */
    public boolean hasRoomFor(long bytes) {
        return used.sum() + bytes <= maxBytes;
    }

    /** How the budget was set, for messages: "setting maxMemoryBytes" and how the automatic one was computed. */
    public String setting() {
        return setting;
    }

    /**
     * Counts {@code bytes} more held: a queue's messages, or what a receiver channel holds of its partner's batches
     * until it puts them (docs/distributed.md, "Limits"). No lock, no allocation.
     */
    public void add(long bytes) {
        used.add(bytes);
    }

    /** Counts {@code bytes} fewer held ({@link #add}'s), waking those waiting for the budget when it is back. */
    public void release(long bytes) {
        used.add(-bytes);
        if (anyWaiting && !spent()) {
            wakeWaiters();
        }
    }

    /**
     * Runs {@code task} once the budget is no longer spent: at once (in this call) when it is not, else from the
     * release that brings it back, on whatever thread that is. The task must only hand work on (it may run under a
     * queue's lock).
     */
    public void whenAvailable(Runnable task) {
        synchronized (this) {
            waiters.add(task);
            anyWaiting = true;
        }
        if (!spent()) { // a release between the caller's look and the registration finds the flag or this the room
            wakeWaiters();
        }
    }

    private void wakeWaiters() {
        List<Runnable> due;
        synchronized (this) {
            if (waiters.isEmpty()) {
                return;
            }
            due = new ArrayList<>(waiters);
            waiters.clear();
            anyWaiting = false;
        }
        due.forEach(Runnable::run);
    }

    @Override
    public String toString() {
        return "memory budget of " + maxBytes + " bytes (" + setting + ")";
    }
}
