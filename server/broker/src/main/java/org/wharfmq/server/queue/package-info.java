/**
 * Queues: {@link org.wharfmq.server.queue.QueueManager} (queues by name, auto-creation),
 * {@link org.wharfmq.server.queue.LocalQueue} (a queue's way in and its one short lock) and the parts it owns, each
 * run under that lock: {@link org.wharfmq.server.queue.QueueDispatch} (priority lists, correlation-id index,
 * consumers and their credit), {@link org.wharfmq.server.queue.QueueAccounting} (depth, memory and budgets, events,
 * counters), {@link org.wharfmq.server.queue.QueueBackout} (the backout threshold and queue),
 * {@link org.wharfmq.server.queue.QueueLife} (in use or deleted, deletion when unused, the queue's end),
 * {@link org.wharfmq.server.queue.QueueAdministration} (the queue's numbers, snapshot, browse, move and clear),
 * {@link org.wharfmq.server.queue.QueueRecovery} (messages recovered at start) and
 * {@link org.wharfmq.server.queue.QueuePaging} (a queue's paged messages, written and read back by the
 * {@link org.wharfmq.server.queue.Pager}'s thread, with {@link org.wharfmq.server.queue.PagedLookups} and
 * {@link org.wharfmq.server.queue.PagingDiskFailure}); {@link org.wharfmq.server.queue.QueuedMessage} (the stored bytes
 * of one message) and {@link org.wharfmq.server.queue.DeadLetters} (the dead-letter queue, for messages that cannot
 * stay where they are).
 */
package org.wharfmq.server.queue;
