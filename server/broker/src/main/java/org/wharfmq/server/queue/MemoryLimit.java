package org.wharfmq.server.queue;

import org.wharfmq.server.config.MemoryPolicy;

/**
 * One queue's (or topic subscription's) own memory budget and what a send meets when it, or the server's
 * {@link MemoryBudget}, is spent (docs/resilience.md).
 *
 * @param maxBytes the bytes the queue may hold, each message counted as {@link QueuedMessage#memoryBytes()}; 0 = no
 *                 budget of its own
 * @param policy   block, fail, drop (only for subscriptions) or page
 * @param owner    what the queue is, for messages: "queue 'ORDERS'", "subscription 'audit' on 'prices/#'"
 * @param setting  where the budget is set, for messages: "setting maxBytes of queue 'ORDERS'"
 * @param paging   with the policy page: the queue's disk budget and what applies past it
 */
public record MemoryLimit(long maxBytes, MemoryPolicy policy, String owner, String setting, PageLimit paging) {

    /** No budget of its own; the server's budget blocks. */
    static MemoryLimit none(String owner) {
        return new MemoryLimit(0, MemoryPolicy.BLOCK, owner, "none", PageLimit.NONE);
    }

    /** Whether the queue has a budget of its own. */
    public boolean limited() {
        return maxBytes > 0;
    }

    /** Whether past its budget the queue pages. */
    public boolean pages() {
        return policy == MemoryPolicy.PAGE;
    }

    /**
     * A paging queue's own disk budget and the policy past it or the server's (docs/resilience.md).
     *
     * @param maxBytes the bytes its page files may hold (records: message and 20 bytes); 0 = none of its own
     * @param whenFull block or fail
     * @param setting  where the budget is set, for messages: "setting maxPageBytes of queue 'ORDERS'"
     */
    public record PageLimit(long maxBytes, MemoryPolicy whenFull, String setting) {

        /** No disk budget of its own; the server's blocks. */
        public static final PageLimit NONE = new PageLimit(0, MemoryPolicy.BLOCK, "none of its own");

        /** Whether the queue has a disk budget of its own. */
        public boolean limited() {
            return maxBytes > 0;
        }
    }
}
