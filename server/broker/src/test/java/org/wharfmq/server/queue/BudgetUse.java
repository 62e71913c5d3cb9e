package org.wharfmq.server.queue;

/** What the queues add to and take from a {@link MemoryBudget}, for tests of those who wait for it elsewhere. */
public final class BudgetUse {

    private BudgetUse() {
    }

    /** Counts {@code bytes} more held, as a queue does when it takes a message. */
    public static void add(MemoryBudget budget, long bytes) {
        budget.add(bytes);
    }

    /** Counts {@code bytes} less held, as a queue does when a message leaves it; wakes the waiters it brings room to. */
    public static void release(MemoryBudget budget, long bytes) {
        budget.release(bytes);
    }
}
