package org.wharfmq.server.config;

/**
 * A queue defined in the configuration, so that it exists from startup (and is the only kind there is when
 * {@code autoCreate} is off).
 *
 * @param name     the queue name, e.g. {@code REQUEST}
 * @param maxDepth the queue's own depth limit, or null for the server-wide {@code maxQueueDepth}
 */
public record QueueDefinition(String name, Long maxDepth) {
}
