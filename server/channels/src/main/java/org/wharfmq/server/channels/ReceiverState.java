package org.wharfmq.server.channels;

/**
 * What a receiver channel has committed last, as its sync record on {@link ChannelConfiguration#SYNC_QUEUE} holds it:
 * the channel's sequence number (messages received on it) and the id of its last batch, which the sender compares
 * with its batch in doubt.
 *
 * @param recorded whether the channel has a sync record (which the next commit takes off its queue as it writes the
 *                 next one); false for a channel that has committed nothing yet
 */
record ReceiverState(long sequence, long batchId, boolean recorded) {

    static final ReceiverState NONE = new ReceiverState(0, 0, false);

    /** Property of a sync record: the channel's name. */
    static final String CHANNEL = "WHARF_CHANNEL";
    /** Property of a sync record: the sequence number after the batch. */
    static final String SEQUENCE = "WHARF_CHANNEL_SEQUENCE";
    /** Property of a sync record: the batch's id. */
    static final String BATCH = "WHARF_CHANNEL_BATCH";
    /** Property of a sync record: the queue manager that sent the batch. */
    static final String PARTNER = "WHARF_CHANNEL_PARTNER";
}
