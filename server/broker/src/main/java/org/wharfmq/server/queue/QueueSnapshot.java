package org.wharfmq.server.queue;

/**
 * A queue's numbers at one moment, read under its lock in one go ({@link LocalQueue#snapshot}): what the management
 * view shows of a queue. The counters run from the queue manager's start (or the queue's creation).
 *
 * @param depth              messages the queue is responsible for: waiting, delivered but unacknowledged, sent in
 *                           an open transaction or waiting for their delivery time
 * @param maxDepth           the most messages it holds
 * @param maxDepthSetOnQueue whether that limit is the queue's own (else the server-wide {@code maxQueueDepth})
 * @param consumers          registered consumers
 * @param browsers           open browsers
 * @param producers          open producers whose destination is this queue
 * @param oldestTimestamp    the earliest JMSTimestamp among the waiting messages at the head of each priority and
 *                           the oldest paged one ({@link QueuePager#oldestTimestamp}), epoch ms; 0 when none is
 *                           waiting (or their producers disabled timestamps)
 * @param enqueued           messages offered to the queue: sent (committed), moved or dead-lettered here
 * @param dequeued           messages removed for good: acknowledged, moved away or cleared
 * @param expired            messages discarded because they expired
 * @param deadLettered       messages moved off it to a backout queue or the dead-letter queue: backed out more often
 *                           than its backoutThreshold, or undecodable
 * @param heldBytes          the bytes of the messages it holds in memory, as its memory budget counts them
 * @param paged              messages of the depth kept on disk only (paged), not in memory
 * @param pagedBytes         the bytes of their page records, as the disk budgets count them
 * @param pagingFailure      why its page files cannot be written or read now (its paging has stopped and tries again
 *                           every second), or null
 */
public record QueueSnapshot(long depth, long maxDepth, boolean maxDepthSetOnQueue, int consumers, int browsers,
                            int producers, long oldestTimestamp, long enqueued, long dequeued, long expired,
                            long deadLettered, long heldBytes, long paged, long pagedBytes,
                            String pagingFailure) {
}
