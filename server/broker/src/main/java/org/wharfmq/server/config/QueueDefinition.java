package org.wharfmq.server.config;

/**
 * A queue defined in the configuration, so that it exists from startup (and is the only kind there is when
 * {@code autoCreate} is off).
 *
 * @param name     the queue name, e.g. {@code REQUEST}
 * @param maxDepth the queue's own depth limit, or null for the server-wide {@code maxQueueDepth}
 * @param maxBytes the queue's own memory budget in bytes (docs/resilience.md), or null for none (only the server's
 *                 {@code maxMemoryBytes} bounds it)
 * @param policy   what a send meets when a budget is spent: {@code block} or {@code fail} (null: the server-wide
 *                 {@code memoryPolicy})
 */
public record QueueDefinition(String name, Long maxDepth, Long maxBytes, String policy) {

    /** A queue with a depth limit of its own (or null) and the server-wide memory settings. */
    public QueueDefinition(String name, Long maxDepth) {
        this(name, maxDepth, null, null);
    }
}
