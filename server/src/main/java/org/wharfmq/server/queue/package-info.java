/**
 * Queues: {@link org.wharfmq.server.queue.QueueManager} (queues by name, auto-creation),
 * {@link org.wharfmq.server.queue.LocalQueue} (priority lists, correlation-id index, consumers and their credit,
 * one short lock per queue) and {@link org.wharfmq.server.queue.QueuedMessage} (the stored bytes of one message).
 */
package org.wharfmq.server.queue;
