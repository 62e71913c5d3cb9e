package org.wharfmq.server.queue;

import org.wharfmq.server.config.MemoryPolicy;

/**
 * One queue's (or topic subscription's) own memory budget and what a send meets when it, or the server's
 * {@link MemoryBudget}, is spent (docs/resilience.md).
 *
 * @param maxBytes the bytes the queue may hold, each message counted as {@link QueuedMessage#memoryBytes()}; 0 = no
 *                 budget of its own
 * @param policy   block, fail or drop (drop only for subscriptions)
 * @param owner    what the queue is, for messages: "queue 'ORDERS'", "subscription 'audit' on 'prices/#'"
 * @param setting  where the budget is set, for messages: "setting maxBytes of queue 'ORDERS'"
 */
public record MemoryLimit(long maxBytes, MemoryPolicy policy, String owner, String setting) {

    /** No budget of its own; the server's budget blocks. */
    static MemoryLimit none(String owner) {
        return new MemoryLimit(0, MemoryPolicy.BLOCK, owner, "none");
    }

    /** Whether the queue has a budget of its own. */
    public boolean limited() {
        return maxBytes > 0;
    }
}
