package org.wharfmq.server.channels;

/**
 * What a receiver channel has committed last, as its sync record on {@link ChannelConfiguration#SYNC_QUEUE} holds it:
 * the channel's sequence number (messages received on it) and the id of its last batch, which the sender compares
 * with its batch in doubt.
 *
 * @param deliveryId the delivery of the sync record to the receiver's own session, which the next batch's commit
 *                   consumes when it writes the next record; -1 when there is none yet
 */
record ReceiverState(long sequence, long batchId, long deliveryId) {

    static final ReceiverState NONE = new ReceiverState(0, 0, -1);

    /** Property of a sync record: the channel's name. */
    static final String CHANNEL = "WHARF_CHANNEL";
    /** Property of a sync record: the sequence number after the batch. */
    static final String SEQUENCE = "WHARF_CHANNEL_SEQUENCE";
    /** Property of a sync record: the batch's id. */
    static final String BATCH = "WHARF_CHANNEL_BATCH";
    /** Property of a sync record: the queue manager that sent the batch. */
    static final String PARTNER = "WHARF_CHANNEL_PARTNER";
}
