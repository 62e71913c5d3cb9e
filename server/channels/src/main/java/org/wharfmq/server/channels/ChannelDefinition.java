package org.wharfmq.server.channels;

import org.wharfmq.server.config.ConfigurationException;
import org.wharfmq.server.config.Setting;
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

    /** Reads one entry of {@code channels:}, refusing unknown keys and missing or wrong values. */
    static ChannelDefinition read(Settings entry, int index) {
        String name = ChannelConfiguration.NAME.read(entry);
        String type = ChannelConfiguration.TYPE.read(entry);
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
        ChannelDefinition d = new ChannelDefinition(name, null, ChannelConfiguration.CONNECTION.read(entry),
                ChannelConfiguration.TRANSMISSION_QUEUE.read(entry), ChannelConfiguration.USER.read(entry),
                ChannelConfiguration.PASSWORD.read(entry), tls,
                ChannelConfiguration.BATCH_SIZE.read(entry),
                ChannelConfiguration.BATCH_BYTES.read(entry),
                ChannelConfiguration.BATCH_INTERVAL_MILLIS.read(entry),
                ChannelConfiguration.DISCONNECT_INTERVAL_MILLIS.read(entry),
                ChannelConfiguration.RETRY_MILLIS.read(entry),
                ChannelConfiguration.MAX_RETRY_MILLIS.read(entry),
                ChannelConfiguration.HEARTBEAT_MILLIS.read(entry),
                ChannelConfiguration.CONNECT_TIMEOUT_MILLIS.read(entry),
                ChannelConfiguration.PARTNER_USER.read(entry), ChannelConfiguration.PARTNER_CERTIFICATE.read(entry),
                ChannelConfiguration.PARTNER_QUEUE_MANAGER.read(entry),
                ChannelConfiguration.PIPELINE_LENGTH.read(entry),
                speed(entry),
                ChannelConfiguration.MAX_BATCH_ATTEMPTS.read(entry));
        entry.refuseUnknown();
        if (name == null || name.isBlank()) {
            throw entry.invalid("name", "channel number " + (index + 1) + " needs a name, the same on both queue"
                    + " managers");
        }
        if (!"sender".equals(type) && !"receiver".equals(type)) {
            throw entry.invalid("type", "channel '" + name + "' needs type sender or receiver");
        }
        d = d.withType("sender".equals(type) ? Type.SENDER : Type.RECEIVER);
        try {
            d.check();
        } catch (ConfigurationException e) {
            throw new ConfigurationException("Invalid channel '" + name + "' in " + entry.source() + ": "
                    + e.getMessage());
        }
        return d;
    }

    /** A sender to {@code connection} ({@code tcp://host:port} or {@code ssl://host:port}) with the defaults. */
    public static ChannelDefinition sender(String name, String connection, String transmissionQueue, String user,
                                           String password) {
        return new ChannelDefinition(name, Type.SENDER, connection, transmissionQueue, user, password, Map.of(),
                ChannelConfiguration.BATCH_SIZE.defaultValue(), ChannelConfiguration.BATCH_BYTES.defaultValue(),
                ChannelConfiguration.BATCH_INTERVAL_MILLIS.defaultValue(),
                ChannelConfiguration.DISCONNECT_INTERVAL_MILLIS.defaultValue(),
                ChannelConfiguration.RETRY_MILLIS.defaultValue(), ChannelConfiguration.MAX_RETRY_MILLIS.defaultValue(),
                ChannelConfiguration.HEARTBEAT_MILLIS.defaultValue(),
                ChannelConfiguration.CONNECT_TIMEOUT_MILLIS.defaultValue(), null, null, null,
                ChannelConfiguration.PIPELINE_LENGTH.defaultValue(),
                ChannelConfiguration.NON_PERSISTENT_SPEED.defaultValue(),
                ChannelConfiguration.MAX_BATCH_ATTEMPTS.defaultValue()).checked();
    }

    /** A receiver for partners that log in as {@code partnerUser} (null: any user with the channel permission). */
    public static ChannelDefinition receiver(String name, String partnerUser, String partnerQueueManager) {
        return new ChannelDefinition(name, Type.RECEIVER, null, null, null, null, Map.of(), 0, 0, 0, 0, 0, 0, 0, 0,
                partnerUser, null, partnerQueueManager, ChannelConfiguration.PIPELINE_LENGTH.defaultValue(),
                ChannelConfiguration.NON_PERSISTENT_SPEED.defaultValue(),
                ChannelConfiguration.MAX_BATCH_ATTEMPTS.defaultValue()).checked();
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

    private ChannelDefinition withType(Type t) {
        return new ChannelDefinition(name, t, connection, transmissionQueue, user, password, tls, batchSize, batchBytes,
                batchIntervalMillis, disconnectIntervalMillis, retryMillis, maxRetryMillis, heartbeatMillis,
                connectTimeoutMillis, partnerUser, partnerCertificate, partnerQueueManager, pipelineLength,
                nonPersistentSpeed, maxBatchAttempts);
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

    private static NonPersistentSpeed speed(Settings entry) {
        Setting<NonPersistentSpeed> speed = ChannelConfiguration.NON_PERSISTENT_SPEED;
        String value = entry.text(speed.key(), speed.defaultValue().name());
        NonPersistentSpeed named = NonPersistentSpeed.named(value);
        if (named == null) {
            throw entry.invalid(speed.key(), NonPersistentSpeed.WHAT + ", not '" + value + "'");
        }
        return named;
    }

    private ChannelDefinition checked() {
        check();
        return this;
    }

    private void check() {
        if (pipelineLength < 1 || pipelineLength > ChannelConfiguration.MAX_PIPELINE_LENGTH || maxBatchAttempts < 1
                || nonPersistentSpeed == null) {
            throw new ConfigurationException("pipelineLength must be 1 or " + ChannelConfiguration.MAX_PIPELINE_LENGTH
                    + ", maxBatchAttempts at least 1, nonPersistentSpeed fast or normal");
        }
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
        if (batchSize < 1 || batchBytes < 1 || batchIntervalMillis < 0 || disconnectIntervalMillis < 1
                || retryMillis < 1 || maxRetryMillis < retryMillis || heartbeatMillis < 0 || connectTimeoutMillis < 1) {
            throw new ConfigurationException("batchSize, batchBytes, disconnectIntervalMillis, retryMillis and"
                    + " connectTimeoutMillis must be at least 1, batchIntervalMillis and heartbeatMillis at least 0,"
                    + " maxRetryMillis at least retryMillis");
        }
    }

    @Override
    public String toString() { // no password
        return "ChannelDefinition[name=" + name + ", type=" + type + ", connection=" + connection
                + ", transmissionQueue=" + transmissionQueue + ", user=" + user + ", batchSize=" + batchSize + "]";
    }
}
