package org.wharfmq.server.channels;

import org.wharfmq.server.config.Setting;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The channels' settings and limits: each key of an entry of {@code channels:} in config/wharf.yaml one
 * {@link Setting}, named after it, with its default and the values it accepts ({@link ChannelDefinition} reads an
 * entry's keys with them, and checks a channel defined at run time by them; the rules between them, and those of a
 * sender's or a receiver's own keys, are its {@code checkBetween}), and fixed limits. An entry's {@code tls:} block
 * holds the client's TLS options ({@code ClientTls.OPTIONS}).
 *
 * <p>A key's declaration also says whose it is: a {@code sender(...)} key, a {@code receiver(...)} key or
 * {@code both(...)}'s, and whether it names the {@code partner(...)} a channel reaches or accepts. From that alone a channel's attributes are listed
 * ({@link ChannelAttributes}: what {@code display channel} shows and channels.def keeps, in declaration order, the
 * partner's keys first) and an
 * alteration of a connected channel's partner is refused, so that a new key is its declaration here, its paragraph in
 * config/wharf.yaml and the code that reads it ({@code definition.get(ChannelConfiguration.KEY)}).
 */
public final class ChannelConfiguration {

    // Filled as the declarations below are made, in their order: first, so that they exist by then.
    private static final List<Setting<?>> SENDERS = new ArrayList<>();
    private static final List<Setting<?>> RECEIVERS = new ArrayList<>();
    private static final List<Setting<?>> PARTNERS = new ArrayList<>();

    /** {@code name}: the channel's, the same on both queue managers; required. */
    public static final Setting<String> NAME = Setting.text("name", null);
    /** {@code type}: sender or receiver; required. */
    public static final Setting<String> TYPE = both(Setting.text("type", null));
    /** {@code connection} of a sender: the partner's listener, {@code tcp://HOST:PORT} or {@code ssl://HOST:PORT}. */
    public static final Setting<String> CONNECTION = partner(sender(Setting.text("connection", null)));
    /** {@code transmissionQueue} of a sender: the local queue (usage: transmission) whose messages it moves. */
    public static final Setting<String> TRANSMISSION_QUEUE = partner(sender(
            Setting.text("transmissionQueue", null)));
    /** {@code user} of a sender: who it logs in to the partner as; none by default (anonymous). */
    public static final Setting<String> USER = partner(sender(Setting.text("user", null)));
    /** {@code password} of a sender: the user's, never shown. */
    public static final Setting<String> PASSWORD = partner(sender(Setting.text("password", null).secret()));
    /**
     * {@code partnerUser} of a receiver: the user its partner must log in as; any with the channel permission by
     * default.
     */
    public static final Setting<String> PARTNER_USER = partner(receiver(Setting.text("partnerUser", null)));
    /** {@code partnerCertificate} of a receiver: the subject of the TLS client certificate its partner must show. */
    public static final Setting<String> PARTNER_CERTIFICATE = partner(receiver(
            Setting.text("partnerCertificate", null)));
    /** {@code partnerQueueManager} of a receiver: the queue manager its partner must be. */
    public static final Setting<String> PARTNER_QUEUE_MANAGER = partner(receiver(
            Setting.text("partnerQueueManager", null)));
    /**
     * {@code batchSize}: the most messages in one batch (IBM MQ's BATCHSZ, whose default is 50 too), up to
     * {@link #MAX_BATCH_SIZE}.
     */
    public static final Setting<Integer> BATCH_SIZE = sender(Setting.integer("batchSize", 50)
            .between(1, ChannelConfiguration.MAX_BATCH_SIZE, "messages"));
    /**
     * {@code batchBytes}: a batch ends once its messages hold this many bytes (IBM MQ's BATCHLIM; 5 MiB), up to
     * {@link #MAX_BATCH_BYTES}.
     */
    public static final Setting<Long> BATCH_BYTES = sender(Setting.whole("batchBytes", 5L * 1024 * 1024)
            .between(1, ChannelConfiguration.MAX_BATCH_BYTES, "bytes"));
    /**
     * {@code batchIntervalMillis}: how long a batch waits for more messages once its transmission queue is empty (IBM
     * MQ's BATCHINT); 0 ends it at once.
     */
    public static final Setting<Long> BATCH_INTERVAL_MILLIS = sender(Setting.whole("batchIntervalMillis", 0)
            .zeroOrMore("a batch ends once its transmission queue is empty"));
    /** {@code disconnectIntervalMillis}: a sender with nothing to send this long disconnects (IBM MQ's DISCINT). */
    public static final Setting<Long> DISCONNECT_INTERVAL_MILLIS = sender(
            Setting.whole("disconnectIntervalMillis", 60_000).atLeast(1));
    /** {@code retryMillis}: the first wait before connecting again to a partner that is down; doubled each time. */
    public static final Setting<Long> RETRY_MILLIS = sender(Setting.whole("retryMillis", 1_000).atLeast(1));
    /** {@code maxRetryMillis}: the longest wait between attempts, at least retryMillis ({@code ChannelDefinition}). */
    public static final Setting<Long> MAX_RETRY_MILLIS = sender(Setting.whole("maxRetryMillis", 60_000));
    /** {@code heartbeatMillis}: the heartbeat asked of the partner, which finds it dead (IBM MQ's HBINT). */
    public static final Setting<Integer> HEARTBEAT_MILLIS = sender(Setting.integer("heartbeatMillis", 10_000)
            .zeroOrMore("none"));
    /** {@code connectTimeoutMillis}: how long a connect and its handshake may take. */
    public static final Setting<Integer> CONNECT_TIMEOUT_MILLIS = sender(
            Setting.integer("connectTimeoutMillis", 10_000).atLeast(1));
    /**
     * {@code pipelineLength}: how many batches a sender has on the way at once (IBM MQ's PIPELINELENGTH, whose
     * default is 1 too): at 2 it sends the next batch while the receiver commits the last one.
     */
    public static final Setting<Integer> PIPELINE_LENGTH = sender(Setting.integer("pipelineLength", 1).check(
            n -> n != null && n >= 1 && n <= ChannelConfiguration.MAX_PIPELINE_LENGTH,
            n -> "must be 1 or " + ChannelConfiguration.MAX_PIPELINE_LENGTH + ", was " + n));
    /**
     * {@code nonPersistentSpeed} of a sender and of a receiver: FAST (when both ends say so) sends non-persistent
     * messages outside the batches, with no unit of work at either end (IBM MQ's NPMSPEED, whose default is FAST too).
     */
    public static final Setting<ChannelDefinition.NonPersistentSpeed> NON_PERSISTENT_SPEED = both(Setting.choice(
            "nonPersistentSpeed", ChannelDefinition.NonPersistentSpeed.FAST, ChannelDefinition.NonPersistentSpeed::of)
            .check(s -> s != null, s -> "must be fast or normal, was none"));
    /**
     * {@code fastConfirmTimeoutMillis} of a sender: how long its partner may leave a confirmation of the messages sent
     * outside the batches ({@code nonPersistentSpeed: fast}, CHANNEL_FAST_CONFIRM) unanswered, though it keeps the
     * connection alive (its heartbeats): past it the sender closes the connection and retries ({@code stopCause}
     * {@link ChannelStatus#FAST_UNCONFIRMED} meanwhile), as it does for a batch unanswered for
     * {@link #ANSWER_TIMEOUT_MILLIS}. Without it such a partner, holding the whole credit unconfirmed, would stop the
     * channel's non-persistent traffic for good, and nobody told.
     */
    public static final Setting<Long> FAST_CONFIRM_TIMEOUT_MILLIS = sender(
            Setting.whole("fastConfirmTimeoutMillis", 60_000).atLeast(1));
    /**
     * {@code maxBatchAttempts} of a receiver: a batch it could not commit this many times is put message by message,
     * each message it cannot put going to the dead-letter queue with the reason (as IBM MQ's MRRTY).
     */
    public static final Setting<Integer> MAX_BATCH_ATTEMPTS = receiver(
            Setting.integer("maxBatchAttempts", 10).atLeast(1));
    /**
     * {@code maxSubscriptionSetsPerMinute} of a receiver: the most proxy subscription sets (publish/subscribe
     * hierarchy) its partner may send a minute, in bursts of as many ({@link SubscriptionSetRate}). A batch with one
     * more is refused, its partner told why (its sender retries the batch after its retryMillis, the set taken then),
     * and the log has one line per run of refusals: each set remakes up to maxProxySubscriptions durable
     * subscriptions, so this bounds that churn in time, not only per set.
     */
    public static final Setting<Integer> MAX_SUBSCRIPTION_SETS_PER_MINUTE = receiver(
            Setting.integer("maxSubscriptionSetsPerMinute", 60).atLeast(1));
    /** The most batches a sender has on the way at once (as IBM MQ's PIPELINELENGTH). */
    public static final int MAX_PIPELINE_LENGTH = 2;
    /**
     * The most messages in one batch (IBM MQ's BATCHSZ's most, 9999): the most a sender's {@code batchSize} may be,
     * and the most a receiver holds of one batch before its partner ends it. A partner that sends more is closed: a
     * receiver holds a batch's messages in memory until the batch ends.
     */
    public static final int MAX_BATCH_SIZE = 9_999;
    /**
     * The most bytes a sender's {@code batchBytes} may be (100 MiB). A receiver holds at most this and one message
     * ({@code maxMessageLength}) of one batch before its partner ends it, and closes a partner that sends more.
     */
    public static final long MAX_BATCH_BYTES = 100L * 1024 * 1024;
    /**
     * The most of the server's memory budget (maxMemoryBytes) one batch a receiver holds may take, in percent: a batch
     * that holds more (its messages' lengths, and the server's overhead per message, as a queue counts them) can never
     * be put whatever frees, so it is refused and its sender stops, saying so. What a receiver holds of all its
     * partners' batches (the buffers their messages were read in, which may be more than their lengths) counts against
     * the whole budget: a batch that finds no room is refused and sent again later.
     */
    public static final int BATCH_BUDGET_PERCENT = 25;
    /**
     * The most message ids of non-persistent messages a FAST receiver remembers as put but not yet in a committed
     * batch (so that a batch sent again does not put them twice); beyond it, it forgets them all.
     */
    public static final int MAX_FAST_IDS = 100_000;
    /**
     * The longest destination ({@code QM/QUEUE}, or a queue of this queue manager) a receiver takes from a transmission
     * header, in characters: a longer one goes to the dead-letter queue (its name cut short), so that a partner cannot
     * make the receiver remember ({@link #MAX_SEND_VERDICTS} of them), log or copy names as long as a message.
     */
    public static final int MAX_DESTINATION_CHARS = 1_024;
    /**
     * The most destinations a receiver remembers its partner's send permission on ({@code SendVerdicts}), asked once
     * each while the rules stay the same; beyond it, it forgets them all and asks again.
     */
    public static final int MAX_SEND_VERDICTS = 256;
    /**
     * How long a sender's transmission queue stays empty after a message sent outside the batches
     * ({@code nonPersistentSpeed: fast}) before the sender acknowledges it there (and those sent before it), unless
     * half its credit is out first: a stream of such messages, each alone on the queue as it comes (a request/reply
     * application's), costs one acknowledgement (a task on the queue manager's event loop) per pause or per half
     * the credit, not one per message. Until then the transmission queue's depth still counts them.
     */
    public static final long FAST_SETTLE_MILLIS = 10;
    /**
     * The longest message a sender takes from its partner: {@value}, none. A receiver answers a sender (OK, ERROR,
     * CHANNEL_STATUS) and never sends it a message, so the sender reads frames of at most
     * {@link org.wharfmq.protocol.message.MessageLengthLimit#FRAME_OVERHEAD_BYTES} (64 KiB) from it, whatever
     * maxMessageLength the partner declares: a hostile partner (or a man in the middle of a plain connection) that
     * declares 2 GiB cannot make the sending queue manager hold more than that per channel. A longer frame stops the
     * channel ({@code stopCause} {@link ChannelStatus#PARTNER_BREACH}), its messages kept on its transmission queue.
     */
    public static final int SENDER_MAX_RECEIVE_LENGTH = 0;
    /** How long a sender waits for the partner's answer to a batch before taking the channel for broken. */
    public static final long ANSWER_TIMEOUT_MILLIS = 60_000;
    /**
     * The system queue where a receiver keeps each channel's sync record (its sequence number, last batch id and that
     * batch's message ids), committed with the batch's puts (IBM MQ's SYSTEM.CHANNEL.SYNCQ).
     */
    public static final String SYNC_QUEUE = "SYSTEM.CHANNEL.SYNCQ";

    private ChannelConfiguration() {
    }

    /** The keys of a channel of {@code type} (its name aside), in declaration order: {@code type} first. */
    static List<Setting<?>> keysOf(ChannelDefinition.Type type) {
        return Collections.unmodifiableList(type == ChannelDefinition.Type.SENDER ? SENDERS : RECEIVERS);
    }

    /** Whether {@code setting} names the partner a sender reaches or a receiver accepts. */
    static boolean namesPartner(Setting<?> setting) {
        return PARTNERS.contains(setting);
    }

    /** {@code setting}, a key of a sender's only. */
    private static <T> Setting<T> sender(Setting<T> setting) {
        SENDERS.add(setting);
        return setting;
    }

    /** {@code setting}, a key of a receiver's only. */
    private static <T> Setting<T> receiver(Setting<T> setting) {
        RECEIVERS.add(setting);
        return setting;
    }

    /** {@code setting}, a key of a sender's and of a receiver's. */
    private static <T> Setting<T> both(Setting<T> setting) {
        SENDERS.add(setting);
        RECEIVERS.add(setting);
        return setting;
    }

    /** {@code setting}, naming the partner a channel reaches or accepts: it cannot change while one is connected. */
    private static <T> Setting<T> partner(Setting<T> setting) {
        PARTNERS.add(setting);
        return setting;
    }
}
