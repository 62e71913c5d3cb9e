package org.wharfmq.server.channels;

/** The channels' defaults, each a named constant (the keys of {@code channels:} in config/wharf.yaml). */
public final class ChannelConfiguration {

    /** {@code batchSize}: the most messages in one batch (IBM MQ's BATCHSZ, whose default is 50 too). */
    public static final int DEFAULT_BATCH_SIZE = 50;
    /** {@code batchBytes}: a batch ends once its messages hold this many bytes (IBM MQ's BATCHLIM; 5 MiB). */
    public static final long DEFAULT_BATCH_BYTES = 5L * 1024 * 1024;
    /**
     * {@code batchIntervalMillis}: how long a batch waits for more messages once its transmission queue is empty (IBM
     * MQ's BATCHINT); 0 ends it at once.
     */
    public static final long DEFAULT_BATCH_INTERVAL_MILLIS = 0;
    /** {@code disconnectIntervalMillis}: a sender with nothing to send this long disconnects (IBM MQ's DISCINT). */
    public static final long DEFAULT_DISCONNECT_INTERVAL_MILLIS = 60_000;
    /** {@code retryMillis}: the first wait before connecting again to a partner that is down; doubled each time. */
    public static final long DEFAULT_RETRY_MILLIS = 1_000;
    /** {@code maxRetryMillis}: the longest wait between attempts. */
    public static final long DEFAULT_MAX_RETRY_MILLIS = 60_000;
    /** {@code heartbeatMillis}: the heartbeat asked of the partner, which finds it dead (IBM MQ's HBINT). */
    public static final int DEFAULT_HEARTBEAT_MILLIS = 10_000;
    /** {@code connectTimeoutMillis}: how long a connect and its handshake may take. */
    public static final int DEFAULT_CONNECT_TIMEOUT_MILLIS = 10_000;
    /**
     * {@code pipelineLength}: how many batches a sender has on the way at once (IBM MQ's PIPELINELENGTH, whose
     * default is 1 too): at 2 it sends the next batch while the receiver commits the last one.
     */
    public static final int DEFAULT_PIPELINE_LENGTH = 1;
    /** The most batches a sender has on the way at once (as IBM MQ's PIPELINELENGTH). */
    public static final int MAX_PIPELINE_LENGTH = 2;
    /**
     * {@code nonPersistentSpeed} of a sender and of a receiver: FAST (when both ends say so) sends non-persistent
     * messages outside the batches, with no unit of work at either end (IBM MQ's NPMSPEED, whose default is FAST too).
     */
    public static final ChannelDefinition.NonPersistentSpeed DEFAULT_NON_PERSISTENT_SPEED =
            ChannelDefinition.NonPersistentSpeed.FAST;
    /**
     * {@code maxBatchAttempts} of a receiver: a batch it could not commit this many times is put message by message,
     * each message it cannot put going to the dead-letter queue with the reason (as IBM MQ's MRRTY).
     */
    public static final int DEFAULT_MAX_BATCH_ATTEMPTS = 10;
    /**
     * The most message ids of non-persistent messages a FAST receiver remembers as put but not yet in a committed
     * batch (so that a batch sent again does not put them twice); beyond it, it forgets them all.
     */
    public static final int MAX_FAST_IDS = 100_000;
    /**
     * {@code maxProxySubscriptions} of {@code hierarchy:}: the most proxy subscriptions each partner of the
     * publish/subscribe hierarchy may have on this queue manager; the filters of its set beyond it are refused.
     */
    public static final int DEFAULT_MAX_PROXY_SUBSCRIPTIONS = 10_000;
    /** How long a sender waits for the partner's answer to a batch before taking the channel for broken. */
    public static final long ANSWER_TIMEOUT_MILLIS = 60_000;
    /**
     * The system queue where a receiver keeps each channel's sync record (its sequence number, last batch id and that
     * batch's message ids), committed with the batch's puts (IBM MQ's SYSTEM.CHANNEL.SYNCQ).
     */
    public static final String SYNC_QUEUE = "SYSTEM.CHANNEL.SYNCQ";

    private ChannelConfiguration() {
    }
}
