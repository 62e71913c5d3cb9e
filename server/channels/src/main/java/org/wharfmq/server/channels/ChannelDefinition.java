package org.wharfmq.server.channels;

import org.wharfmq.server.config.ConfigurationException;
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
 * @param partnerCertificate a receiver's: the subject of the TLS client certificate its partner must connect with, an
 *                           X.500 name ({@code CN=qm1,O=Example}; compared as a name, not as text)
 * @param pipelineLength     a sender's batches on the way at once (1 or 2; IBM MQ's PIPELINELENGTH)
 * @param nonPersistentSpeed how non-persistent messages travel (IBM MQ's NPMSPEED), a sender's and a receiver's
 *                           attribute: FAST only when both ends say so
 * @param maxBatchAttempts   a receiver's commits of one batch before it puts it message by message, dead-lettering
 *                           those refused
 * @param tls the client TLS options for an {@code ssl://} connection ({@code trustStore}, {@code trustStorePassword},
 *            ...: those of the client's URL; docs/security.md)
 */
public record ChannelDefinition(String name, Type type, String connection, String transmissionQueue, String user,
                                String password, Map<String, String> tls, int batchSize, long batchBytes,
                                long batchIntervalMillis, long disconnectIntervalMillis, long retryMillis,
                                long maxRetryMillis, int heartbeatMillis, int connectTimeoutMillis,
                                String partnerUser, String partnerCertificate, String partnerQueueManager,
                                int pipelineLength,
                                NonPersistentSpeed nonPersistentSpeed, int maxBatchAttempts) {

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

    public ChannelDefinition {
        tls = Map.copyOf(tls);
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
        values.named(owner(name)).check();
        ChannelDefinition d = of(values, "sender".equals(type) ? Type.SENDER : Type.RECEIVER, tls);
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

    /** The channel {@code values} give, of {@code type}, with client TLS options {@code tls}; not checked. */
    private static ChannelDefinition of(SettingValues values, Type type, Map<String, String> tls) {
        return new ChannelDefinition(values.get(ChannelConfiguration.NAME), type,
                values.get(ChannelConfiguration.CONNECTION), values.get(ChannelConfiguration.TRANSMISSION_QUEUE),
                values.get(ChannelConfiguration.USER), values.get(ChannelConfiguration.PASSWORD), tls,
                values.get(ChannelConfiguration.BATCH_SIZE), values.get(ChannelConfiguration.BATCH_BYTES),
                values.get(ChannelConfiguration.BATCH_INTERVAL_MILLIS),
                values.get(ChannelConfiguration.DISCONNECT_INTERVAL_MILLIS),
                values.get(ChannelConfiguration.RETRY_MILLIS), values.get(ChannelConfiguration.MAX_RETRY_MILLIS),
                values.get(ChannelConfiguration.HEARTBEAT_MILLIS),
                values.get(ChannelConfiguration.CONNECT_TIMEOUT_MILLIS),
                values.get(ChannelConfiguration.PARTNER_USER), values.get(ChannelConfiguration.PARTNER_CERTIFICATE),
                values.get(ChannelConfiguration.PARTNER_QUEUE_MANAGER),
                values.get(ChannelConfiguration.PIPELINE_LENGTH),
                values.get(ChannelConfiguration.NON_PERSISTENT_SPEED),
                values.get(ChannelConfiguration.MAX_BATCH_ATTEMPTS));
    }

    /** Every key of a channel ({@link ChannelConfiguration}) at its default, named {@code name}. */
    private static SettingValues defaults(String name) {
        return SettingValues.defaults("", ChannelConfiguration.class).named(owner(name))
                .with(ChannelConfiguration.NAME, name);
    }

    /** A sender to {@code connection} ({@code tcp://host:port} or {@code ssl://host:port}) with the defaults. */
    public static ChannelDefinition sender(String name, String connection, String transmissionQueue, String user,
                                           String password) {
        return of(defaults(name).with(ChannelConfiguration.CONNECTION, connection)
                .with(ChannelConfiguration.TRANSMISSION_QUEUE, transmissionQueue)
                .with(ChannelConfiguration.USER, user).with(ChannelConfiguration.PASSWORD, password), Type.SENDER,
                Map.of()).checked();
    }

    /** A receiver for partners that log in as {@code partnerUser} (null: any user with the channel permission). */
    public static ChannelDefinition receiver(String name, String partnerUser, String partnerQueueManager) {
        return of(defaults(name).with(ChannelConfiguration.PARTNER_USER, partnerUser)
                .with(ChannelConfiguration.PARTNER_QUEUE_MANAGER, partnerQueueManager), Type.RECEIVER, Map.of())
                .checked();
    }

    /** This receiver for partners that connect over TLS with a client certificate whose subject is {@code subject}. */
    public ChannelDefinition withPartnerCertificate(String subject) {
        return new ChannelDefinition(name, type, connection, transmissionQueue, user, password, tls, batchSize,
                batchBytes, batchIntervalMillis, disconnectIntervalMillis, retryMillis, maxRetryMillis, heartbeatMillis,
                connectTimeoutMillis, partnerUser, subject, partnerQueueManager, pipelineLength, nonPersistentSpeed,
                maxBatchAttempts).checked();
    }

    /** This sender with batches of at most {@code size} messages. */
    public ChannelDefinition withBatchSize(int size) {
        return new ChannelDefinition(name, type, connection, transmissionQueue, user, password, tls, size, batchBytes,
                batchIntervalMillis, disconnectIntervalMillis, retryMillis, maxRetryMillis, heartbeatMillis,
                connectTimeoutMillis, partnerUser, partnerCertificate, partnerQueueManager, pipelineLength,
                nonPersistentSpeed, maxBatchAttempts).checked();
    }

    /** This sender retrying first after {@code millis}, disconnecting after {@code idleMillis} with nothing to send. */
    public ChannelDefinition withTimes(long millis, long idleMillis) {
        return new ChannelDefinition(name, type, connection, transmissionQueue, user, password, tls, batchSize,
                batchBytes, batchIntervalMillis, idleMillis, millis, maxRetryMillis, heartbeatMillis,
                connectTimeoutMillis, partnerUser, partnerCertificate, partnerQueueManager, pipelineLength,
                nonPersistentSpeed, maxBatchAttempts).checked();
    }

    /** This sender doubling its retry interval up to {@code millis} while the partner cannot be reached. */
    public ChannelDefinition withMaxRetry(long millis) {
        return new ChannelDefinition(name, type, connection, transmissionQueue, user, password, tls, batchSize,
                batchBytes, batchIntervalMillis, disconnectIntervalMillis, retryMillis, millis, heartbeatMillis,
                connectTimeoutMillis, partnerUser, partnerCertificate, partnerQueueManager, pipelineLength,
                nonPersistentSpeed, maxBatchAttempts).checked();
    }

    /** This sender asking the partner for a heartbeat every {@code millis} (0: none). */
    public ChannelDefinition withHeartbeat(int millis) {
        return new ChannelDefinition(name, type, connection, transmissionQueue, user, password, tls, batchSize,
                batchBytes, batchIntervalMillis, disconnectIntervalMillis, retryMillis, maxRetryMillis, millis,
                connectTimeoutMillis, partnerUser, partnerCertificate, partnerQueueManager, pipelineLength,
                nonPersistentSpeed, maxBatchAttempts).checked();
    }

    /** This sender with client TLS options for an {@code ssl://} connection. */
    public ChannelDefinition withTls(Map<String, String> options) {
        return new ChannelDefinition(name, type, connection, transmissionQueue, user, password, options, batchSize,
                batchBytes, batchIntervalMillis, disconnectIntervalMillis, retryMillis, maxRetryMillis, heartbeatMillis,
                connectTimeoutMillis, partnerUser, partnerCertificate, partnerQueueManager, pipelineLength,
                nonPersistentSpeed, maxBatchAttempts).checked();
    }

    /** This sender sending up to {@code length} batches before the first is confirmed (1 or 2). */
    public ChannelDefinition withPipelineLength(int length) {
        return new ChannelDefinition(name, type, connection, transmissionQueue, user, password, tls, batchSize,
                batchBytes, batchIntervalMillis, disconnectIntervalMillis, retryMillis, maxRetryMillis, heartbeatMillis,
                connectTimeoutMillis, partnerUser, partnerCertificate, partnerQueueManager, length, nonPersistentSpeed,
                maxBatchAttempts).checked();
    }

    /** This sender asking its partner for non-persistent messages at {@code speed}. */
    public ChannelDefinition withNonPersistentSpeed(NonPersistentSpeed speed) {
        return new ChannelDefinition(name, type, connection, transmissionQueue, user, password, tls, batchSize,
                batchBytes, batchIntervalMillis, disconnectIntervalMillis, retryMillis, maxRetryMillis, heartbeatMillis,
                connectTimeoutMillis, partnerUser, partnerCertificate, partnerQueueManager, pipelineLength, speed,
                maxBatchAttempts).checked();
    }

    /** This receiver putting non-persistent messages at {@code speed}, dead-lettering after {@code attempts}. */
    public ChannelDefinition withReceiving(NonPersistentSpeed speed, int attempts) {
        return new ChannelDefinition(name, type, connection, transmissionQueue, user, password, tls, batchSize,
                batchBytes, batchIntervalMillis, disconnectIntervalMillis, retryMillis, maxRetryMillis, heartbeatMillis,
                connectTimeoutMillis, partnerUser, partnerCertificate, partnerQueueManager, pipelineLength, speed,
                attempts).checked();
    }

    private ChannelDefinition checked() {
        check();
        return this;
    }

    /**
     * Checks each setting against its rules ({@link ChannelConfiguration}), then the rules between them: what a
     * sender needs and a receiver takes.
     *
     * @throws ConfigurationException naming the channel, the setting and what it must be
     */
    private void check() {
        defaults(name).with(ChannelConfiguration.TYPE, type == null ? null
                        : type.name().toLowerCase(java.util.Locale.ROOT))
                .with(ChannelConfiguration.CONNECTION, connection)
                .with(ChannelConfiguration.TRANSMISSION_QUEUE, transmissionQueue).with(ChannelConfiguration.USER, user)
                .with(ChannelConfiguration.PASSWORD, password).with(ChannelConfiguration.BATCH_SIZE, batchSize)
                .with(ChannelConfiguration.BATCH_BYTES, batchBytes)
                .with(ChannelConfiguration.BATCH_INTERVAL_MILLIS, batchIntervalMillis)
                .with(ChannelConfiguration.DISCONNECT_INTERVAL_MILLIS, disconnectIntervalMillis)
                .with(ChannelConfiguration.RETRY_MILLIS, retryMillis)
                .with(ChannelConfiguration.MAX_RETRY_MILLIS, maxRetryMillis)
                .with(ChannelConfiguration.HEARTBEAT_MILLIS, heartbeatMillis)
                .with(ChannelConfiguration.CONNECT_TIMEOUT_MILLIS, connectTimeoutMillis)
                .with(ChannelConfiguration.PARTNER_USER, partnerUser)
                .with(ChannelConfiguration.PARTNER_CERTIFICATE, partnerCertificate)
                .with(ChannelConfiguration.PARTNER_QUEUE_MANAGER, partnerQueueManager)
                .with(ChannelConfiguration.PIPELINE_LENGTH, pipelineLength)
                .with(ChannelConfiguration.NON_PERSISTENT_SPEED, nonPersistentSpeed)
                .with(ChannelConfiguration.MAX_BATCH_ATTEMPTS, maxBatchAttempts).check();
        checkBetween();
    }

    /** The rules between settings: what a sender needs, what only a receiver takes, and the other way round. */
    private void checkBetween() {
        if (type == Type.RECEIVER) {
            if (connection != null || transmissionQueue != null || user != null) {
                throw new ConfigurationException("a receiver takes no connection, transmissionQueue or user (the"
                        + " sender on the partner has them); it may name partnerUser, partnerCertificate and"
                        + " partnerQueueManager");
            }
            PartnerBinding.checkCertificate(partnerCertificate);
            return;
        }
        if (connection == null || !(connection.startsWith("tcp://") || connection.startsWith("ssl://"))) {
            throw new ConfigurationException("a sender needs connection: tcp://HOST:PORT or ssl://HOST:PORT, the"
                    + " partner queue manager's listener");
        }
        if (transmissionQueue == null || transmissionQueue.isBlank()) {
            throw new ConfigurationException("a sender needs transmissionQueue, the local queue (usage: transmission)"
                    + " whose messages it moves");
        }
        if (user != null && (password == null || password.isEmpty())) {
            throw new ConfigurationException("user '" + user + "' needs password too (the channel logs in to the"
                    + " partner as that user)");
        }
        if (partnerUser != null || partnerCertificate != null || partnerQueueManager != null) {
            throw new ConfigurationException("partnerUser, partnerCertificate and partnerQueueManager are a"
                    + " receiver's");
        }
        if (maxRetryMillis < retryMillis) {
            throw new ConfigurationException("maxRetryMillis must be at least retryMillis (" + retryMillis + "), was "
                    + maxRetryMillis);
        }
    }

    @Override
    public String toString() { // no password
        return "ChannelDefinition[name=" + name + ", type=" + type + ", connection=" + connection
                + ", transmissionQueue=" + transmissionQueue + ", user=" + user + ", batchSize=" + batchSize + "]";
    }
}
