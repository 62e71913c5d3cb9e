package org.wharfmq.server.config;

/**
 * A queue defined in the configuration, so that it exists from startup (and is the only kind there is when
 * {@code autoCreate} is off).
 *
 * @param name     the queue name, e.g. {@code REQUEST}
 * @param maxDepth the queue's own depth limit, or null for the server-wide {@code maxQueueDepth}
 * @param maxBytes the queue's own memory budget in bytes (docs/resilience.md), or null for none (only the server's
 *                 {@code maxMemoryBytes} bounds it)
 * @param policy   what a send meets when a budget is spent: {@code page}, {@code block} or {@code fail} (null: the
 *                 server-wide {@code memoryPolicy})
 * @param maxPageBytes   with the policy page, the queue's own disk budget in bytes, or null for none (only the
 *                       server's {@code maxPageBytes} bounds it)
 * @param pageFullPolicy with the policy page, what a send meets when a disk budget is spent too: {@code block} or
 *                       {@code fail} (null: the server-wide {@code pageFullPolicy})
 */
public record QueueDefinition(String name, Long maxDepth, Long maxBytes, String policy, Long maxPageBytes,
                              String pageFullPolicy) {

    /** A queue with memory settings of its own and the server-wide disk settings. */
    public QueueDefinition(String name, Long maxDepth, Long maxBytes, String policy) {
        this(name, maxDepth, maxBytes, policy, null, null);
    }

    /** A queue with a depth limit of its own (or null) and the server-wide memory settings. */
    public QueueDefinition(String name, Long maxDepth) {
        this(name, maxDepth, null, null);
    }
}
