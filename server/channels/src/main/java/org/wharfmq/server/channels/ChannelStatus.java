package org.wharfmq.server.channels;

/**
 * One channel as {@code wharf admin display chstatus} shows it (IBM MQ's DISPLAY CHSTATUS).
 *
 * @param state        a sender's STARTING, WAITING (for a message), RUNNING, RETRYING or STOPPED; a receiver's RUNNING
 *                     (a partner is connected) or INACTIVE
 * @param messages     a sender's messages confirmed by the partner since the start; a receiver's sequence number
 * @param sequence     the channel's sequence number as this end last knew it
 * @param lastBatchId  the id of the last batch committed (a receiver's) or confirmed (a sender's)
 * @param partner      a sender's connection; a receiver's partner queue manager, when it names one
 * @param reason       why a sender stopped by itself (a batch its partner cannot take) and the fix; else null
 */
public record ChannelStatus(String name, String type, String state, String partner, String transmissionQueue,
                            long messages, long sequence, long lastBatchId, String reason) {
}
