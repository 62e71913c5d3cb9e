package org.wharfmq.server.management;

import org.wharfmq.server.queue.QueueOrigin;

import java.util.Map;

/**
 * One queue as an administrator sees it ({@code display queue}): its settings, what it holds and serves now, and its
 * counters since the queue manager started.
 *
 * @param name            the queue name
 * @param origin          where it comes from (configuration, run time, first use, a connection, the queue manager)
 * @param depth           messages it holds: waiting, delivered but unacknowledged, in open transactions, delayed
 * @param maxDepth        the most messages it holds
 * @param ownMaxDepth     whether {@code maxDepth} is the queue's own setting (else the server-wide maxQueueDepth)
 * @param consumers       open consumers
 * @param browsers        open browsers
 * @param producers       open producers whose destination is this queue
 * @param oldestMessageAgeMillis the age of the oldest waiting message by its JMSTimestamp, in ms; null when none is
 *                        waiting (or their producers disabled timestamps)
 * @param enqueued        messages put on it (sent and committed, moved or dead-lettered here)
 * @param dequeued        messages removed for good (acknowledged, moved away, cleared)
 * @param expired         messages discarded because they expired
 * @param deadLettered    messages moved off it to its backout queue or the dead-letter queue: backed out as often as
 *                        its backoutThreshold allows, or undecodable
 * @param memoryBytes     the bytes of the messages it holds in memory, as its memory budget (maxBytes) and the
 *                        server's (maxMemoryBytes) count them: encoded length plus the server's objects for each
 * @param paged           messages of its depth kept on disk only, paged (docs/resilience.md, "Paging")
 * @param pagedBytes      the bytes of their page records, as the disk budgets (maxPageBytes) count them
 * @param pagingFailure   why its page files cannot be written or read now (its paging has stopped, its
 *                        pageFullPolicy applies, and it tries again every second), or null
 * @param settings        its settings in force, by key as config/wharf.yaml names them, every key of a queue (its name
 *                        first, one left at its default null: {@code QueueDefinition.shown})
 */
public record QueueStatus(String name, QueueOrigin origin, long depth, long maxDepth, boolean ownMaxDepth,
                          int consumers, int browsers, int producers, Long oldestMessageAgeMillis, long enqueued,
                          long dequeued, long expired, long deadLettered, long memoryBytes, long paged,
                          long pagedBytes, String pagingFailure, Map<String, Object> settings) {
}
