/**
 * Queues: {@link org.wharfmq.server.queue.QueueManager} (queues by name, auto-creation),
 * {@link org.wharfmq.server.queue.LocalQueue} (priority lists, correlation-id index, consumers and their credit,
 * one short lock per queue), {@link org.wharfmq.server.queue.QueuePaging} (a queue's paged messages, written and
 * read back by the {@link org.wharfmq.server.queue.Pager}'s thread), {@link org.wharfmq.server.queue.QueuedMessage} (the stored bytes of one message) and
 * {@link org.wharfmq.server.queue.DeadLetters} (the dead-letter queue, for messages that cannot stay where they are).
 */
package org.wharfmq.server.queue;
