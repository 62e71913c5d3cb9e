package org.wharfmq.server.channels;

import org.wharfmq.server.config.ConfigurationException;
import org.wharfmq.server.config.Setting;
import org.wharfmq.server.config.SettingValues;
import org.wharfmq.server.config.Settings;

import java.util.Map;

/**
 * One channel of {@code channels:} in config/wharf.yaml: a sender (it moves its transmission queue's messages to the
 * partner queue manager at {@code connection}, logging in there as {@code user}) or a receiver (it takes the channel of
 * the same name from a partner that logs in as {@code partnerUser}, when given, over TLS with the client certificate
 * whose subject is {@code partnerCertificate}, when given, and opens it as queue manager {@code partnerQueueManager},
 * when given: {@link PartnerBinding}). A sender and its receiver carry the same name.
 *
 * <p>It holds the value of each key ({@link ChannelConfiguration}: {@link #get}; the keys older than the declarations
 * keep an accessor named after them) and the client TLS options of its {@code tls:} block. Immutable: {@link #with}
 * makes a changed copy, checked as the file's entries are.
 */
public final class ChannelDefinition {

    /** What the channel does. */
    public enum Type { SENDER, RECEIVER }

    /**
     * How non-persistent messages travel (IBM MQ's NPMSPEED), agreed by both ends when the channel opens (either
     * end's NORMAL wins): FAST outside the batches (the sender takes them off its transmission queue without a unit
     * of work, the receiver puts them at once without one); NORMAL in the batches, with the persistent messages.
     */
    public enum NonPersistentSpeed {
        FAST, NORMAL;

        /** What the setting may be. */
        static final String WHAT = "nonPersistentSpeed is fast (non-persistent messages outside the batches, when "
                + "both ends say so) or normal (in the batches)";

        /** The speed {@code text} names ({@code fast}, {@code FAST}, {@code normal}, {@code NORMAL}), or null. */
        static NonPersistentSpeed named(String text) {
            return text == null ? null : switch (text) {
                case "fast", "FAST" -> FAST;
                case "normal", "NORMAL" -> NORMAL;
                default -> null;
            };
        }

        /**
         * The speed {@code text} names.
         *
         * @throws ConfigurationException for another text, saying what it may be
         */
        public static NonPersistentSpeed of(String text) {
            NonPersistentSpeed named = named(text);
            if (named == null) {
                throw new ConfigurationException(WHAT + ", not '" + text + "'.");
            }
            return named;
        }

        /** As config/wharf.yaml writes it: {@code fast}, {@code normal}. */
        public String text() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** The value of each key of {@link ChannelConfiguration}, named for errors as the channel's. */
    private final SettingValues values;
    /** The client TLS options for an {@code ssl://} connection ({@code ClientTls.OPTIONS}; docs/security.md). */
    private final Map<String, String> tls;

    private ChannelDefinition(SettingValues values, Map<String, String> tls) {
        this.values = values;
        this.tls = Map.copyOf(tls);
    }

    /**
     * Reads one entry of {@code channels:}: each key through its {@link ChannelConfiguration} setting, checked against
     * its rules (naming the file and its line), then the rules between them; refuses unknown keys.
     */
    static ChannelDefinition read(Settings entry, int index) {
        SettingValues values = SettingValues.ofEntry(entry, ChannelConfiguration.class);
        Settings tlsBlock = entry.section("tls");
        Map<String, String> tls = new java.util.LinkedHashMap<>();
        if (tlsBlock != null) {
            for (String key : org.wharfmq.client.core.transport.ClientTls.OPTIONS) {
                String value = tlsBlock.text(key, null);
                if (value != null) {
                    tls.put(key, value);
                }
            }
            tlsBlock.refuseUnknown();
        }
        entry.refuseUnknown();
        String name = values.get(ChannelConfiguration.NAME);
        String type = values.get(ChannelConfiguration.TYPE);
        if (name == null || name.isBlank()) {
            throw entry.invalid("name", "channel number " + (index + 1) + " needs a name, the same on both queue"
                    + " managers");
        }
        if (!"sender".equals(type) && !"receiver".equals(type)) {
            throw entry.invalid("type", "channel '" + name + "' needs type sender or receiver");
        }
        ChannelDefinition d = new ChannelDefinition(values.named(owner(name)).check(), tls);
        try {
            d.checkBetween();
        } catch (ConfigurationException e) {
            throw new ConfigurationException("Invalid channel '" + name + "' in " + entry.source() + ": "
                    + e.getMessage());
        }
        return d;
    }

    /** A channel as errors name it: {@code channel 'QM1.TO.QM2'}. */
    private static String owner(String name) {
        return "channel '" + name + "'";
    }

    /** Every key of a channel ({@link ChannelConfiguration}) at its default, named {@code name}. */
    private static SettingValues defaults(String name) {
        return SettingValues.defaults("", ChannelConfiguration.class).named(owner(name))
                .with(ChannelConfiguration.NAME, name);
    }

    /** A sender to {@code connection} ({@code tcp://host:port} or {@code ssl://host:port}) with the defaults. */
    public static ChannelDefinition sender(String name, String connection, String transmissionQueue, String user,
                                           String password) {
        return new ChannelDefinition(defaults(name).with(ChannelConfiguration.TYPE, "sender")
                .with(ChannelConfiguration.CONNECTION, connection)
                .with(ChannelConfiguration.TRANSMISSION_QUEUE, transmissionQueue)
                .with(ChannelConfiguration.USER, user).with(ChannelConfiguration.PASSWORD, password), Map.of())
                .checked();
    }

    /** A receiver for partners that log in as {@code partnerUser} (null: any user with the channel permission). */
    public static ChannelDefinition receiver(String name, String partnerUser, String partnerQueueManager) {
        return new ChannelDefinition(defaults(name).with(ChannelConfiguration.TYPE, "receiver")
                .with(ChannelConfiguration.PARTNER_USER, partnerUser)
                .with(ChannelConfiguration.PARTNER_QUEUE_MANAGER, partnerQueueManager), Map.of()).checked();
    }

    /**
     * The value of {@code setting}, one of {@link ChannelConfiguration}'s (a map lookup: read it once, where the
     * channel is made).
     */
    public <T> T get(Setting<T> setting) {
        return values.get(setting);
    }

    /** {@code setting}'s value as config/wharf.yaml writes it (a password as it is), or null for none. */
    <T> String text(Setting<T> setting) {
        return setting.asText(values.get(setting));
    }

    /**
     * This channel with {@code setting} (one of {@link ChannelConfiguration}'s) at {@code value}.
     *
     * @throws ConfigurationException when the channel breaks a rule then, naming it
     */
    public <T> ChannelDefinition with(Setting<T> setting, T value) {
        return new ChannelDefinition(values.with(setting, value), tls).checked();
    }

    /** This receiver for partners that connect over TLS with a client certificate whose subject is {@code subject}. */
    public ChannelDefinition withPartnerCertificate(String subject) {
        return with(ChannelConfiguration.PARTNER_CERTIFICATE, subject);
    }

    /** This sender with batches of at most {@code size} messages. */
    public ChannelDefinition withBatchSize(int size) {
        return with(ChannelConfiguration.BATCH_SIZE, size);
    }

    /** This sender retrying first after {@code millis}, disconnecting after {@code idleMillis} with nothing to send. */
    public ChannelDefinition withTimes(long millis, long idleMillis) {
        return new ChannelDefinition(values.with(ChannelConfiguration.RETRY_MILLIS, millis)
                .with(ChannelConfiguration.DISCONNECT_INTERVAL_MILLIS, idleMillis), tls).checked();
    }

    /** This sender doubling its retry interval up to {@code millis} while the partner cannot be reached. */
    public ChannelDefinition withMaxRetry(long millis) {
        return with(ChannelConfiguration.MAX_RETRY_MILLIS, millis);
    }

    /** This sender waiting up to {@code millis} for its partner to confirm the messages sent outside the batches. */
    public ChannelDefinition withFastConfirmTimeout(long millis) {
        return with(ChannelConfiguration.FAST_CONFIRM_TIMEOUT_MILLIS, millis);
    }

    /** This receiver taking at most {@code sets} proxy subscription sets a minute from its partner. */
    public ChannelDefinition withMaxSubscriptionSetsPerMinute(int sets) {
        return with(ChannelConfiguration.MAX_SUBSCRIPTION_SETS_PER_MINUTE, sets);
    }

    /** This sender asking the partner for a heartbeat every {@code millis} (0: none). */
    public ChannelDefinition withHeartbeat(int millis) {
        return with(ChannelConfiguration.HEARTBEAT_MILLIS, millis);
    }

    /** This sender with client TLS options for an {@code ssl://} connection. */
    public ChannelDefinition withTls(Map<String, String> options) {
        return new ChannelDefinition(values, options).checked();
    }

    /** This sender sending up to {@code length} batches before the first is confirmed (1 or 2). */
    public ChannelDefinition withPipelineLength(int length) {
        return with(ChannelConfiguration.PIPELINE_LENGTH, length);
    }

    /** This sender asking its partner for non-persistent messages at {@code speed}. */
    public ChannelDefinition withNonPersistentSpeed(NonPersistentSpeed speed) {
        return with(ChannelConfiguration.NON_PERSISTENT_SPEED, speed);
    }

    /** This receiver putting non-persistent messages at {@code speed}, dead-lettering after {@code attempts}. */
    public ChannelDefinition withReceiving(NonPersistentSpeed speed, int attempts) {
        return new ChannelDefinition(values.with(ChannelConfiguration.NON_PERSISTENT_SPEED, speed)
                .with(ChannelConfiguration.MAX_BATCH_ATTEMPTS, attempts), tls).checked();
    }

    /**
     * Checks each setting against its rules ({@link ChannelConfiguration}), then the rules between them: what a
     * sender needs and a receiver takes.
     *
     * @throws ConfigurationException naming the channel, the setting and what it must be
     */
    private ChannelDefinition checked() {
        values.check();
        checkBetween();
        return this;
    }

    /** The rules between settings: what a sender needs, what only a receiver takes, and the other way round. */
    private void checkBetween() {
        String connection = connection();
        long retryMillis = retryMillis();
        long maxRetryMillis = maxRetryMillis();
        if (type() == Type.RECEIVER) {
            if (connection != null || transmissionQueue() != null || user() != null) {
                throw new ConfigurationException("a receiver takes no connection, transmissionQueue or user (the"
                        + " sender on the partner has them); it may name partnerUser, partnerCertificate and"
                        + " partnerQueueManager");
            }
            PartnerBinding.checkCertificate(partnerCertificate());
            return;
        }
        if (connection == null || !(connection.startsWith("tcp://") || connection.startsWith("ssl://"))) {
            throw new ConfigurationException("a sender needs connection: tcp://HOST:PORT or ssl://HOST:PORT, the"
                    + " partner queue manager's listener");
        }
        if (transmissionQueue() == null || transmissionQueue().isBlank()) {
            throw new ConfigurationException("a sender needs transmissionQueue, the local queue (usage: transmission)"
                    + " whose messages it moves");
        }
        if (user() != null && (password() == null || password().isEmpty())) {
            throw new ConfigurationException("user '" + user() + "' needs password too (the channel logs in to the"
                    + " partner as that user)");
        }
        if (partnerUser() != null || partnerCertificate() != null || partnerQueueManager() != null) {
            throw new ConfigurationException("partnerUser, partnerCertificate and partnerQueueManager are a"
                    + " receiver's");
        }
        if (maxRetryMillis < retryMillis) {
            throw new ConfigurationException("maxRetryMillis must be at least retryMillis (" + retryMillis + "), was "
                    + maxRetryMillis);
        }
    }

    /** The channel's name, the same on both queue managers. */
    public String name() {
        return values.get(ChannelConfiguration.NAME);
    }

    /** Whether it is a sender or a receiver. */
    public Type type() {
        return "sender".equals(values.get(ChannelConfiguration.TYPE)) ? Type.SENDER : Type.RECEIVER;
    }

    /** The client TLS options for an {@code ssl://} connection ({@code trustStore}, ...; docs/security.md). */
    public Map<String, String> tls() {
        return tls;
    }

    /** A sender's partner listener. */
    public String connection() {
        return values.get(ChannelConfiguration.CONNECTION);
    }

    /** A sender's transmission queue. */
    public String transmissionQueue() {
        return values.get(ChannelConfiguration.TRANSMISSION_QUEUE);
    }

    /** Who a sender logs in to the partner as, or null. */
    public String user() {
        return values.get(ChannelConfiguration.USER);
    }

    /** That user's password. */
    public String password() {
        return values.get(ChannelConfiguration.PASSWORD);
    }

    /** A sender's most messages in one batch. */
    public int batchSize() {
        return values.get(ChannelConfiguration.BATCH_SIZE);
    }

    /** A sender's bytes that end a batch. */
    public long batchBytes() {
        return values.get(ChannelConfiguration.BATCH_BYTES);
    }

    /** How long a sender's batch waits for more messages. */
    public long batchIntervalMillis() {
        return values.get(ChannelConfiguration.BATCH_INTERVAL_MILLIS);
    }

    /** How long a sender with nothing to send stays connected. */
    public long disconnectIntervalMillis() {
        return values.get(ChannelConfiguration.DISCONNECT_INTERVAL_MILLIS);
    }

    /** A sender's first wait before connecting again. */
    public long retryMillis() {
        return values.get(ChannelConfiguration.RETRY_MILLIS);
    }

    /** A sender's longest wait between attempts. */
    public long maxRetryMillis() {
        return values.get(ChannelConfiguration.MAX_RETRY_MILLIS);
    }

    /** {@link ChannelConfiguration#FAST_CONFIRM_TIMEOUT_MILLIS}. */
    public long fastConfirmTimeoutMillis() {
        return values.get(ChannelConfiguration.FAST_CONFIRM_TIMEOUT_MILLIS);
    }

    /** The heartbeat a sender asks of its partner (0: none). */
    public int heartbeatMillis() {
        return values.get(ChannelConfiguration.HEARTBEAT_MILLIS);
    }

    /** How long a sender's connect and handshake may take. */
    public int connectTimeoutMillis() {
        return values.get(ChannelConfiguration.CONNECT_TIMEOUT_MILLIS);
    }

    /** The user a receiver's partner must log in as, or null. */
    public String partnerUser() {
        return values.get(ChannelConfiguration.PARTNER_USER);
    }

    /**
     * The subject of the TLS client certificate a receiver's partner must connect with, an X.500 name
     * ({@code CN=qm1,O=Example}; compared as a name, not as text), or null.
     */
    public String partnerCertificate() {
        return values.get(ChannelConfiguration.PARTNER_CERTIFICATE);
    }

    /** The queue manager a receiver's partner must be, or null. */
    public String partnerQueueManager() {
        return values.get(ChannelConfiguration.PARTNER_QUEUE_MANAGER);
    }

    /** A sender's batches on the way at once (1 or 2; IBM MQ's PIPELINELENGTH). */
    public int pipelineLength() {
        return values.get(ChannelConfiguration.PIPELINE_LENGTH);
    }

    /** How non-persistent messages travel, a sender's and a receiver's: FAST only when both ends say so. */
    public NonPersistentSpeed nonPersistentSpeed() {
        return values.get(ChannelConfiguration.NON_PERSISTENT_SPEED);
    }

    /** {@link ChannelConfiguration#MAX_SUBSCRIPTION_SETS_PER_MINUTE}. */
    public int maxSubscriptionSetsPerMinute() {
        return values.get(ChannelConfiguration.MAX_SUBSCRIPTION_SETS_PER_MINUTE);
    }

    /** A receiver's commits of one batch before it puts it message by message, dead-lettering those refused. */
    public int maxBatchAttempts() {
        return values.get(ChannelConfiguration.MAX_BATCH_ATTEMPTS);
    }

    /** Whether {@code other} is a channel with the same value of every key and the same TLS options. */
    @Override
    public boolean equals(Object other) {
        if (!(other instanceof ChannelDefinition that) || !tls.equals(that.tls)) {
            return false;
        }
        for (Setting<?> key : values.settings()) {
            if (!java.util.Objects.equals(values.get(key), that.values.get(key))) {
                return false;
            }
        }
        return true;
    }

    @Override
    public int hashCode() {
        return java.util.Objects.hash(name(), tls);
    }

    @Override
    public String toString() { // no password
        return "ChannelDefinition[name=" + name() + ", type=" + type() + ", connection=" + connection()
                + ", transmissionQueue=" + transmissionQueue() + ", user=" + user() + ", batchSize=" + batchSize()
                + "]";
    }
}
