package org.wharfmq.server.management;

import java.util.List;

/**
 * The queue manager as an administrator sees it ({@code display server}).
 *
 * @param name            the queue manager's name
 * @param version         Wharf's version
 * @param startedAt       when it started, epoch ms
 * @param uptimeMillis    how long it has run
 * @param listeners       the URLs it listens on (network listeners, then the in-VM one)
 * @param dataDirectory   its data directory
 * @param journalBytes    bytes of records in the journal, live and dead; -1 when it keeps no journal
 * @param queues          queues (defined, created by use, temporary; not subscriptions' queues)
 * @param subscriptions   topic subscriptions
 * @param connections     connections past their handshake, in-VM ones included
 * @param heapUsedBytes   JVM heap in use
 * @param heapMaxBytes    the most heap the JVM may use
 * @param directUsedBytes direct memory held by the buffer pool messages live in, and by large frames past the
 *                        connections' kept buffers (theirs and idle: {@code SpareFrameBuffers})
 * @param memoryUsedBytes what the queues hold in memory, as the server's memory budget for messages counts it (each
 *                        message's encoded length and {@code Configuration.MESSAGE_OVERHEAD_BYTES})
 * @param memoryMaxBytes  that budget (setting maxMemoryBytes)
 * @param replication     its place in a replicated queue manager, null for a queue manager of its own
 */
public record ServerStatus(String name, String version, long startedAt, long uptimeMillis, List<String> listeners,
                           String dataDirectory, long journalBytes, int queues, int subscriptions, int connections,
                           long heapUsedBytes, long heapMaxBytes, long directUsedBytes, long memoryUsedBytes,
                           long memoryMaxBytes, ReplicationState replication) {
}
