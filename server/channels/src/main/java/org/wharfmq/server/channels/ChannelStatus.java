package org.wharfmq.server.channels;

/**
 * One channel as {@code wharf admin display chstatus} shows it (IBM MQ's DISPLAY CHSTATUS), the metrics count it and
 * the console lists it.
 *
 * @param state                  a sender's STARTING, WAITING (for a message), RUNNING, RETRYING or STOPPED; a
 *                               receiver's RUNNING (a partner is connected) or INACTIVE
 * @param messages               the messages the channel moved since it started: a sender's confirmed by the partner,
 *                               a receiver's committed
 * @param sequence               the channel's sequence number as this end last knew it
 * @param lastBatchId            the id of the last batch committed (a receiver's) or confirmed (a sender's)
 * @param partner                a sender's connection; a receiver's partner queue manager, when it names one
 * @param bytes                  the bytes of those messages, as stored (transmission header included)
 * @param batches                the batches of those messages
 * @param transmissionQueueDepth a sender's transmission queue's depth (null for a receiver, or when the queue is
 *                               missing)
 * @param inDoubt                whether a sender has a batch in doubt: its removal prepared on this queue manager,
 *                               its outcome waiting for the receiver's answer ({@code resolve channel})
 * @param reason                 why a sender stopped by itself (a batch its partner cannot take) and the fix; else
 *                               null
 * @param nonPersistentSpeed     the nonPersistentSpeed both ends agreed when the channel opened ({@code fast} or
 *                               {@code normal}); null while it is not connected
 */
public record ChannelStatus(String name, String type, String state, String partner, String transmissionQueue,
                            long messages, long sequence, long lastBatchId, long bytes, long batches,
                            Long transmissionQueueDepth, boolean inDoubt, String reason, String nonPersistentSpeed) {

    /** This status with what the queue manager knows of the channel's transmission queue and branches. */
    ChannelStatus with(Long depth, boolean batchInDoubt) {
        return new ChannelStatus(name, type, state, partner, transmissionQueue, messages, sequence, lastBatchId, bytes,
                batches, depth, batchInDoubt, reason, nonPersistentSpeed);
    }
}
