package org.wharfmq.server.queue;

import java.util.List;

/**
 * What an administrator's deletion of a queue found ({@link LocalQueue#retire}): whether it was deleted, and what it
 * held and served at that moment.
 *
 * @param deleted   whether the queue was deleted (false: it was in use and the deletion was not forced)
 * @param depth     messages it held (waiting, delivered, in open transactions, delayed)
 * @param consumers consumers registered on it
 * @param browsers  browsers open on it
 * @param discarded waiting messages discarded by the deletion
 * @param left      the consumers that were registered on the deleted queue, to be told it is gone
 */
record Retirement(boolean deleted, long depth, int consumers, int browsers, int discarded, List<QueueConsumer> left) {
}
