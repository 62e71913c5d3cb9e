package org.wharfmq.server.config;

import org.wharfmq.server.Configuration;
import org.wharfmq.server.store.Durability;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The queue manager's settings, and only its own (each plugin keeps its settings: docs/architecture.md,
 * "Settings"): an immutable value, read by every part of the broker and handed to its plugins
 * ({@link org.wharfmq.server.ServerPlugin.Host#config()}), so no part sees another change a setting under it. Its
 * scalar settings are the {@link Setting}s declared in {@link Configuration} (key, default, accepted values), all of
 * them read from the file, set, checked and handed out here without a line of their own:
 * {@code ServerConfig.builder().set(Configuration.MAX_QUEUES, 50).queue("ORDERS", 1000).build()}, then
 * {@code config.get(Configuration.MAX_QUEUES)}, where {@code build()} checks every setting. The settings older than
 * that table keep a fluent setter and an accessor named after their key ({@code port(0)}, {@code port()}), which only
 * call {@link Builder#set} and {@link #get}; a new setting needs neither. The block {@code tls:} has a class of its
 * own ({@link TlsConfig}), and so have the entries of {@code queues:} and {@code topics:} ({@link QueueDefinition},
 * {@link QueueReference}, {@link TopicDefinition}: their keys declared in {@link QueueConfiguration} and
 * {@link TopicConfiguration}). {@link #read(Settings)} reads the queue manager's keys from the file's
 * tree; the command line reads the YAML ({@code org.wharfmq.server.cli.ConfigurationFile}), and the broker knows
 * nothing of it.
 */
public final class ServerConfig {

    /** The queue manager's scalar settings: every {@link Setting} {@link Configuration} declares, in its order. */
    private static final List<Setting<?>> SETTINGS = Setting.declaredIn(Configuration.class);

    /**
     * The settings as built: a copy of the builder that nothing else holds and nothing changes (its map and lists
     * immutable).
     */
    private final Builder values;

    private ServerConfig(Builder b) {
        this.values = b.copy(true);
    }

    /** Every setting at its default (see {@link Configuration}); no predefined queues. */
    public static ServerConfig defaults() {
        return builder().build();
    }

    /** A builder with every setting at its default (see {@link Configuration}) and no predefined queues. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The queue manager's part of the configuration file: its top-level keys, each a {@link Setting} of
     * {@link Configuration}, with the {@code tls:} block, {@code queues:} and {@code topics:}. A setting left out keeps
     * its default; the top-level values are checked by {@link Builder#build()}, once the command line has applied its
     * overrides, and each entry of a list as it is read (naming its line). A setting added to the broker is its declaration in {@link Configuration} and its explanation in
     * config/wharf.yaml: nothing here.
     *
     * @param file the file's top level
     * @return a builder holding the file's settings
     * @throws ConfigurationException for a value of the wrong type, an unknown key inside {@code tls:},
     *                                {@code queues:} or {@code topics:}, or a value an entry of those lists refuses
     */
    public static Builder read(Settings file) {
        Builder b = builder();
        b.values = b.values.read(file);
        for (Settings topic : file.sections("topics")) {
            b.topics.add(TopicDefinition.read(topic));
        }
        for (Settings queue : file.sections("queues")) {
            if (QueueReference.isReference(queue)) {
                b.references.add(QueueReference.read(queue));
            } else {
                b.queues.add(QueueDefinition.read(queue));
            }
        }
        Settings tls = file.section("tls");
        b.tls = tls == null ? null : TlsConfig.read(tls);
        return b;
    }

    /** A builder holding these settings, to derive a changed copy (this one stays as it is). */
    public Builder toBuilder() {
        return values.copy(false);
    }

    /**
     * The value of one of the queue manager's settings.
     *
     * @throws IllegalArgumentException for a setting {@link Configuration} does not declare (another component's)
     */
    public <T> T get(Setting<T> setting) {
        return values.get(setting);
    }

    /** The queue manager's scalar settings, as {@link Configuration} declares them, in its order. */
    public static List<Setting<?>> settings() {
        return SETTINGS;
    }

    /**
     * The scalar settings in force by key, in {@link Configuration}'s order, each as config/wharf.yaml writes it (a
     * policy in lower case), then the TLS listener's by their path ({@code tls.port}; none but {@code tls} itself,
     * {@code -}, without a {@code tls:} block), a password as {@value Setting#REDACTED}: what
     * {@code wharf admin display settings} shows of the queue manager.
     */
    public Map<String, Object> byKey() {
        Map<String, Object> byKey = new LinkedHashMap<>(values.values.shown());
        byKey.putAll(values.tls == null ? TlsConfig.none() : values.tls.shown());
        return byKey;
    }

    /** The queue manager name. */
    public String name() {
        return get(Configuration.NAME);
    }

    /** The interface the TCP listener binds. */
    public String host() {
        return get(Configuration.HOST);
    }

    /** The TCP port as configured (0 = ephemeral; the server reports the actual one). */
    public int port() {
        return get(Configuration.PORT);
    }

    /** The name of the in-VM listener. */
    public String inVmName() {
        return get(Configuration.IN_VM_NAME);
    }

    /** The directory for persistent data. */
    public Path dataDirectory() {
        return Path.of(get(Configuration.DATA_DIRECTORY));
    }

    /** Whether queues are created on first use. */
    public boolean autoCreate() {
        return get(Configuration.AUTO_CREATE);
    }

    /**
     * Whether this queue manager, finding its data directory in use by another one, waits for it to stop or die and
     * then takes over as its standby (true), or refuses to start (false, the default): docs/resilience.md, "Standby".
     */
    public boolean standby() {
        return get(Configuration.STANDBY);
    }

    /** The longest encoded message accepted, in bytes. */
    public int maxMessageLength() {
        return get(Configuration.MAX_MESSAGE_LENGTH);
    }

    /** The depth limit of queues that do not set their own. */
    public long maxQueueDepth() {
        return get(Configuration.MAX_QUEUE_DEPTH);
    }

    /** The most queues the queue manager holds (defined, created by use, temporary). */
    public int maxQueues() {
        return get(Configuration.MAX_QUEUES);
    }

    /** How long an unused queue created by use stays before it is deleted, in ms; 0 or less = never. */
    public long autoDeleteDelayMillis() {
        return get(Configuration.AUTO_DELETE_DELAY_MILLIS);
    }

    /** The number of network threads to start: the setting, or the number of available processors when it is 0. */
    public int ioThreads() {
        int threads = get(Configuration.IO_THREADS);
        return threads > 0 ? threads : Runtime.getRuntime().availableProcessors();
    }

    /** The heartbeat interval the server offers, in ms. */
    public int heartbeatMillis() {
        return get(Configuration.HEARTBEAT_MILLIS);
    }

    /** What a synced journal record survives (setting durability). */
    public Durability durability() {
        return get(Configuration.DURABILITY);
    }

    /** The size at which the journal moves on to a new file, in bytes. */
    public long journalFileBytes() {
        return get(Configuration.JOURNAL_FILE_BYTES);
    }

    /** How many bytes of dead records the journal may keep before it compacts its oldest file. */
    public long journalSlackBytes() {
        return get(Configuration.JOURNAL_SLACK_BYTES);
    }

    /** The most time a journal record nobody waits for stays unforced, in ms. */
    public long journalLazySyncMillis() {
        return get(Configuration.JOURNAL_LAZY_SYNC_MILLIS);
    }

    /** The most bytes the journal may use on disk; 0 = no limit but the disk. */
    public long journalMaxBytes() {
        return get(Configuration.JOURNAL_MAX_BYTES);
    }

    /** The predefined queues, in definition order. */
    public List<QueueDefinition> queues() {
        return values.queues;
    }

    /** The queue aliases, remote queue definitions and queue-manager aliases of {@code queues:}, in definition order. */
    public List<QueueReference> references() {
        return values.references;
    }

    /**
     * The transmission queue of messages for a queue manager that no remote definition, queue-manager alias or
     * transmission queue of its name leads to (IBM MQ's DEFXMITQ); null for none (such messages are refused).
     */
    public String defaultTransmissionQueue() {
        return get(Configuration.DEFAULT_TRANSMISSION_QUEUE);
    }

    /** The TLS listener's settings, when the server has one ({@code tls:} in the YAML). */
    public java.util.Optional<TlsConfig> tls() {
        return java.util.Optional.ofNullable(values.tls);
    }

    /** Whether the plain TCP listener ({@link #port()}) is on: always, unless TLS is configured with {@code plain: false}. */
    public boolean plainListener() {
        return values.tls == null || values.tls.plain();
    }

    /**
     * How long a connection has, from its accept, to complete the handshake (TLS, HELLO, authentication) before it is
     * closed, in ms.
     */
    public int handshakeTimeoutMillis() {
        return get(Configuration.HANDSHAKE_TIMEOUT_MILLIS);
    }

    /** The most client connections over TCP and TLS together; in-VM connections are not counted. */
    public int maxConnections() {
        return get(Configuration.MAX_CONNECTIONS);
    }

    /** The most client connections from one IP address. */
    public int maxConnectionsPerAddress() {
        return get(Configuration.MAX_CONNECTIONS_PER_ADDRESS);
    }

    /** The most temporary queues one connection holds at once. */
    public int maxTemporaryQueuesPerConnection() {
        return get(Configuration.MAX_TEMPORARY_QUEUES_PER_CONNECTION);
    }

    /** The most bytes written for one connection and not yet sent before the server stops reading it. */
    public int maxOutboundBytesPerConnection() {
        return get(Configuration.MAX_OUTBOUND_BYTES_PER_CONNECTION);
    }

    /**
     * The server's memory budget for messages, in bytes, as configured: 0 = automatic, a share of the JVM's direct
     * memory limit ({@link Configuration#DEFAULT_MEMORY_SHARE_PERCENT}; the queue manager computes it).
     */
    public long maxMemoryBytes() {
        return get(Configuration.MAX_MEMORY_BYTES);
    }

    /** The memory budget of each topic subscription no {@link #topics()} entry covers, in bytes; 0 = none of its own. */
    public long maxSubscriptionBytes() {
        return get(Configuration.MAX_SUBSCRIPTION_BYTES);
    }

    /**
     * What a send meets when a budget is spent, for destinations that do not choose: page (the default), block or
     * fail. A subscription no topic entry gives a policy takes it too, except page, which gives it block.
     */
    public MemoryPolicy memoryPolicy() {
        return get(Configuration.MEMORY_POLICY);
    }

    /**
     * The disk budget of all paging queues' page files together, in bytes, as configured: 0 = automatic, a share of
     * the data directory's free disk space when the server starts ({@link Configuration#DEFAULT_PAGE_SHARE_PERCENT}).
     */
    public long maxPageBytes() {
        return get(Configuration.MAX_PAGE_BYTES);
    }

    /** What a send to a paging queue meets when its disk budget or the server's is spent too: block or fail. */
    public MemoryPolicy pageFullPolicy() {
        return get(Configuration.PAGE_FULL_POLICY);
    }

    /** The bytes a producer's session may send before the server returns credit (producer flow control). */
    public int producerWindowBytes() {
        return get(Configuration.PRODUCER_WINDOW_BYTES);
    }

    /** The most bytes a client's consumer may have in its window (CREATE_CONSUMER's windowBytes). */
    public int maxConsumerWindowBytes() {
        return get(Configuration.MAX_CONSUMER_WINDOW_BYTES);
    }

    /**
     * What a publishing session's window amounts to in bytes times the subscriptions a publication reaches: its window
     * is narrowed to this divided by its last publication's subscriptions (producer flow control).
     */
    public long fanOutWindowBytes() {
        return get(Configuration.FAN_OUT_WINDOW_BYTES);
    }

    /** Memory settings for the subscriptions of some topics, in the configuration's order (the first that covers wins). */
    public List<TopicDefinition> topics() {
        return values.topics;
    }

    /** Every setting, {@code ServerConfig[name=WHARF, host=0.0.0.0, ..., tls=null, queues=[...], ...]}, no password. */
    @Override
    public String toString() {
        StringBuilder text = new StringBuilder("ServerConfig[");
        byKey().forEach((key, value) -> text.append(key).append('=').append(value).append(", "));
        return text.append("queues=").append(values.queues).append(", references=").append(values.references)
                .append(", topics=").append(values.topics).append(']').toString();
    }

    /**
     * The settings being chosen, every one starting at its default: any of {@link Configuration}'s with
     * {@link #set}, the older ones also with a fluent setter named after their key, the blocks with their own.
     * {@link #build()} checks them all and makes the immutable {@link ServerConfig}; the builder may then be changed
     * and built again without touching what it built before. Used by one thread.
     */
    public static final class Builder implements Cloneable {

        /** Every setting of {@link #SETTINGS}, at its default until set. */
        private SettingValues values = SettingValues.defaults("", SETTINGS);
        private List<QueueDefinition> queues = new ArrayList<>();
        private List<QueueReference> references = new ArrayList<>();
        private TlsConfig tls;
        private List<TopicDefinition> topics = new ArrayList<>();

        private Builder() {
        }

        /**
         * Sets one of the queue manager's settings ({@link Configuration}'s); {@link #build()} checks it.
         *
         * @throws IllegalArgumentException for a setting {@link Configuration} does not declare (another component's)
         */
        public <T> Builder set(Setting<T> setting, T value) {
            values = values.with(setting, value);
            return this;
        }

        /** The value {@code setting} has here. */
        private <T> T get(Setting<T> setting) {
            return values.get(setting);
        }

        /** A copy of these settings: frozen (immutable lists) for a {@link ServerConfig}, or to be changed further. */
        private Builder copy(boolean frozen) {
            Builder copy;
            try {
                copy = (Builder) clone();
            } catch (CloneNotSupportedException e) {
                throw new AssertionError("Builder is Cloneable", e);
            }
            copy.queues = frozen ? List.copyOf(queues) : new ArrayList<>(queues);
            copy.references = frozen ? List.copyOf(references) : new ArrayList<>(references);
            copy.topics = frozen ? List.copyOf(topics) : new ArrayList<>(topics);
            return copy;
        }

        // ---- memory (docs/resilience.md) ----

        /** Sets the server's memory budget for messages in bytes; 0 = automatic (a share of the JVM's direct memory). */
        public Builder maxMemoryBytes(long maxMemoryBytes) {
            return set(Configuration.MAX_MEMORY_BYTES, maxMemoryBytes);
        }

        /** Sets the memory budget of each subscription no {@code topics} entry covers, in bytes; 0 = none of its own. */
        public Builder maxSubscriptionBytes(long maxSubscriptionBytes) {
            return set(Configuration.MAX_SUBSCRIPTION_BYTES, maxSubscriptionBytes);
        }

        /** Sets what a send meets when a budget is spent, for destinations that do not choose: page, block or fail. */
        public Builder memoryPolicy(MemoryPolicy memoryPolicy) {
            return set(Configuration.MEMORY_POLICY, memoryPolicy);
        }

        /** Sets the disk budget of all page files together, in bytes (0: automatic). */
        public Builder maxPageBytes(long maxPageBytes) {
            return set(Configuration.MAX_PAGE_BYTES, maxPageBytes);
        }

        /** Sets what a send to a paging queue meets when a disk budget is spent too: block or fail. */
        public Builder pageFullPolicy(MemoryPolicy pageFullPolicy) {
            return set(Configuration.PAGE_FULL_POLICY, pageFullPolicy);
        }

        /**
         * Defines a paging queue with its own memory budget and disk budget ({@code maxPageBytes} 0: none of its own),
         * replacing an earlier definition of the same name.
         */
        public Builder pagingQueue(String name, long maxBytes, long maxPageBytes, MemoryPolicy pageFullPolicy) {
            return define(QueueDefinition.named(name).with(QueueConfiguration.MAX_BYTES, maxBytes)
                    .with(QueueConfiguration.POLICY, MemoryPolicy.PAGE.toString())
                    .with(QueueConfiguration.MAX_PAGE_BYTES, maxPageBytes == 0 ? null : maxPageBytes)
                    .with(QueueConfiguration.PAGE_FULL_POLICY, pageFullPolicy.toString()));
        }

        /** Sets the bytes a producer's session may send before the server returns credit. */
        public Builder producerWindowBytes(int producerWindowBytes) {
            return set(Configuration.PRODUCER_WINDOW_BYTES, producerWindowBytes);
        }

        /** Sets the most bytes a client's consumer may have in its window. */
        public Builder maxConsumerWindowBytes(int maxConsumerWindowBytes) {
            return set(Configuration.MAX_CONSUMER_WINDOW_BYTES, maxConsumerWindowBytes);
        }

        /** Sets what a publishing session's window amounts to in bytes times the subscriptions a publication reaches. */
        public Builder fanOutWindowBytes(long fanOutWindowBytes) {
            return set(Configuration.FAN_OUT_WINDOW_BYTES, fanOutWindowBytes);
        }

        /** Defines a queue with its own memory budget and policy (replacing an earlier definition of the same name). */
        public Builder queue(String name, long maxBytes, MemoryPolicy policy) {
            return define(QueueDefinition.named(name).with(QueueConfiguration.MAX_BYTES, maxBytes)
                    .with(QueueConfiguration.POLICY, policy.toString()));
        }

        /** Adds memory settings for the subscriptions under a topic filter (see {@link TopicDefinition}). */
        public Builder topic(String filter, long maxBytes, MemoryPolicy policy) {
            topics.add(TopicDefinition.of(filter).with(TopicConfiguration.MAX_BYTES, maxBytes)
                    .with(TopicConfiguration.POLICY, policy.toString()));
            return this;
        }

        /** Sets the memory settings of subscriptions by topic filter, replacing those given before. */
        public Builder topics(List<TopicDefinition> topics) {
            this.topics = new ArrayList<>(topics);
            return this;
        }

        /** Sets the TLS listener's settings ({@link TlsConfig#builder()}); null = no TLS listener. */
        public Builder tls(TlsConfig tls) {
            this.tls = tls;
            return this;
        }

        /** Sets the queue manager name. */
        public Builder name(String name) {
            return set(Configuration.NAME, name);
        }

        /** Sets the interface the TCP listener binds. */
        public Builder host(String host) {
            return set(Configuration.HOST, host);
        }

        /** Sets the TCP port; 0 picks a free one. */
        public Builder port(int port) {
            return set(Configuration.PORT, port);
        }

        /** Sets the name of the in-VM listener ({@code vm://NAME}); unique per JVM. */
        public Builder inVmName(String inVmName) {
            return set(Configuration.IN_VM_NAME, inVmName);
        }

        /** Sets the directory for persistent data (null: none, which {@link #build()} refuses). */
        public Builder dataDirectory(Path dataDirectory) {
            return set(Configuration.DATA_DIRECTORY, dataDirectory == null ? null : dataDirectory.toString());
        }

        /** Sets whether queues are created on first use. */
        public Builder autoCreate(boolean autoCreate) {
            return set(Configuration.AUTO_CREATE, autoCreate);
        }

        /** Sets whether this queue manager waits as the standby of the one using its data directory ({@link #standby()}). */
        public Builder standby(boolean standby) {
            return set(Configuration.STANDBY, standby);
        }

        /** Sets the longest encoded message accepted, in bytes. */
        public Builder maxMessageLength(int maxMessageLength) {
            return set(Configuration.MAX_MESSAGE_LENGTH, maxMessageLength);
        }

        /** Sets the depth limit of queues that do not set their own {@code maxDepth}. */
        public Builder maxQueueDepth(long maxQueueDepth) {
            return set(Configuration.MAX_QUEUE_DEPTH, maxQueueDepth);
        }

        /**
         * Sets the most queues the queue manager holds: defined, created by use and temporary ones (subscription queues
         * do not count). Creating one more fails with TOO_MANY_QUEUES.
         */
        public Builder maxQueues(int maxQueues) {
            return set(Configuration.MAX_QUEUES, maxQueues);
        }

        /**
         * Sets how long a queue created by use stays once unused (no message, consumer or browser) before it is
         * deleted, in ms; 0 or less = never.
         */
        public Builder autoDeleteDelayMillis(long autoDeleteDelayMillis) {
            return set(Configuration.AUTO_DELETE_DELAY_MILLIS, autoDeleteDelayMillis);
        }

        /** Sets the number of network threads; 0 = one per available processor. */
        public Builder ioThreads(int ioThreads) {
            return set(Configuration.IO_THREADS, ioThreads);
        }

        /** Sets the heartbeat interval the server offers, in ms; 0 = none from the server's side. */
        public Builder heartbeatMillis(int heartbeatMillis) {
            return set(Configuration.HEARTBEAT_MILLIS, heartbeatMillis);
        }

        /** Sets what a synced journal record survives: {@code fsync} (power loss) or {@code os} (process crash). */
        public Builder durability(Durability durability) {
            return set(Configuration.DURABILITY, durability);
        }

        /** Sets the size at which the journal moves on to a new file, in bytes. */
        public Builder journalFileBytes(long journalFileBytes) {
            return set(Configuration.JOURNAL_FILE_BYTES, journalFileBytes);
        }

        /** Sets how many bytes of dead records the journal may keep before it compacts its oldest file. */
        public Builder journalSlackBytes(long journalSlackBytes) {
            return set(Configuration.JOURNAL_SLACK_BYTES, journalSlackBytes);
        }

        /** Sets the most time a journal record nobody waits for stays unforced, in ms. */
        public Builder journalLazySyncMillis(long journalLazySyncMillis) {
            return set(Configuration.JOURNAL_LAZY_SYNC_MILLIS, journalLazySyncMillis);
        }

        /** Sets the most bytes the journal may use on disk; 0 = only the disk's free space limits it. */
        public Builder journalMaxBytes(long journalMaxBytes) {
            return set(Configuration.JOURNAL_MAX_BYTES, journalMaxBytes);
        }

        /**
         * Sets how long a connection has, from its accept, to complete the handshake (TLS, HELLO, authentication)
         * before it is closed, in ms.
         */
        public Builder handshakeTimeoutMillis(int handshakeTimeoutMillis) {
            return set(Configuration.HANDSHAKE_TIMEOUT_MILLIS, handshakeTimeoutMillis);
        }

        /** Sets the most client connections over TCP and TLS together; one more is refused (TOO_MANY_CONNECTIONS). */
        public Builder maxConnections(int maxConnections) {
            return set(Configuration.MAX_CONNECTIONS, maxConnections);
        }

        /** Sets the most client connections from one IP address; one more is refused (TOO_MANY_CONNECTIONS). */
        public Builder maxConnectionsPerAddress(int maxConnectionsPerAddress) {
            return set(Configuration.MAX_CONNECTIONS_PER_ADDRESS, maxConnectionsPerAddress);
        }

        /** Sets the most temporary queues one connection holds at once; one more is refused (TOO_MANY_QUEUES). */
        public Builder maxTemporaryQueuesPerConnection(int maxTemporaryQueuesPerConnection) {
            return set(Configuration.MAX_TEMPORARY_QUEUES_PER_CONNECTION, maxTemporaryQueuesPerConnection);
        }

        /** Sets the most bytes written for one connection and not yet sent before the server stops reading it. */
        public Builder maxOutboundBytesPerConnection(int bytes) {
            return set(Configuration.MAX_OUTBOUND_BYTES_PER_CONNECTION, bytes);
        }

        /** Defines a queue with the server-wide depth limit (replacing an earlier definition of the same name). */
        public Builder queue(String name) {
            return define(QueueDefinition.named(name));
        }

        /** Defines a queue with its own depth limit (replacing an earlier definition of the same name). */
        public Builder queue(String name, long maxDepth) {
            return define(QueueDefinition.named(name).with(QueueConfiguration.MAX_DEPTH, maxDepth));
        }

        /** Defines a queue with all its settings (replacing an earlier definition of the same name). */
        public Builder queue(QueueDefinition definition) {
            return define(definition);
        }

        /** Defines a queue alias, remote queue or queue-manager alias (replacing an earlier one of the same name). */
        public Builder reference(QueueReference reference) {
            references.removeIf(r -> r != null && reference.name().equals(r.name()));
            references.add(reference);
            return this;
        }

        /** Sets the default transmission queue (IBM MQ's DEFXMITQ); null for none. */
        public Builder defaultTransmissionQueue(String queue) {
            return set(Configuration.DEFAULT_TRANSMISSION_QUEUE, queue);
        }

        /**
         * Sets the predefined queues, replacing those defined before; unlike {@link #queue(String)}, a name given twice
         * is kept twice, for {@link #build()} to refuse (as a configuration file's repeated entry is).
         */
        public Builder queues(List<QueueDefinition> queues) {
            this.queues = new ArrayList<>(queues);
            return this;
        }

        /**
         * Checks every setting is in range and queue names are unique, and makes the settings.
         *
         * @return the settings
         * @throws ConfigurationException naming the first setting that is wrong
         */
        public ServerConfig build() {
            values.check();
            int maxQueues = get(Configuration.MAX_QUEUES);
            if (maxQueues < Math.max(1, queues.size())) {
                throw new ConfigurationException("Setting maxQueues must be at least 1 and at least the number of queues "
                        + "defined under 'queues' (" + queues.size() + "), was " + maxQueues + ".");
            }
            long journalFileBytes = get(Configuration.JOURNAL_FILE_BYTES);
            long journalMaxBytes = get(Configuration.JOURNAL_MAX_BYTES);
            if (journalMaxBytes != 0 && journalMaxBytes < 2 * journalFileBytes) {
                throw new ConfigurationException("Setting journalMaxBytes must be 0 (no limit) or at least twice "
                        + "journalFileBytes (" + 2 * journalFileBytes + "), was " + journalMaxBytes + ".");
            }
            Set<String> names = new HashSet<>();
            for (int i = 0; i < queues.size(); i++) {
                QueueDefinition q = queues.get(i);
                if (q == null || q.name() == null || q.name().isBlank()) {
                    throw new ConfigurationException("Queue number " + (i + 1) + " under 'queues' has no name.");
                }
                if (!names.add(q.name())) {
                    throw new ConfigurationException("Queue '" + q.name() + "' is defined twice under 'queues'.");
                }
                requireUnqualified(q.name());
                q.check();
            }
            for (QueueReference r : references) {
                if (r.name() == null || r.name().isBlank()) {
                    throw new ConfigurationException("A queue of type " + r.type() + " under 'queues' has no name.");
                }
                if (!names.add(r.name())) {
                    throw new ConfigurationException("Queue '" + r.name() + "' is defined twice under 'queues'.");
                }
                requireUnqualified(r.name());
                r.check();
            }
            String defaultTransmissionQueue = get(Configuration.DEFAULT_TRANSMISSION_QUEUE);
            if (defaultTransmissionQueue != null && queues.stream().noneMatch(
                    q -> q.name().equals(defaultTransmissionQueue) && q.transmission())) {
                throw new ConfigurationException("Setting defaultTransmissionQueue names '" + defaultTransmissionQueue
                        + "', which is not a queue with usage transmission under 'queues': define it there"
                        + " (usage: transmission).");
            }
            checkTopics();
            int port = get(Configuration.PORT);
            if (tls != null && tls.plain() && tls.port() != 0 && tls.port() == port) {
                throw new ConfigurationException("Settings port and tls.port are both " + port + ": the plain and the TLS "
                        + "listener need ports of their own (or set tls.plain: false to have only the TLS one).");
            }
            return new ServerConfig(this);
        }

        /** A name under queues: holds no '/', which separates a queue manager's name from a queue's. */
        private static void requireUnqualified(String queue) {
            if (queue.indexOf('/') >= 0) {
                throw new ConfigurationException("Queue '" + queue + "' under 'queues': a '/' separates a queue"
                        + " manager's name from a queue's (QM2/ORDERS), so a queue name cannot hold one.");
            }
        }

        /** The {@code topics:} entries: each with a filter of its own, and its settings as their rules say. */
        private void checkTopics() {
            Set<String> filters = new HashSet<>();
            for (int i = 0; i < topics.size(); i++) {
                TopicDefinition t = topics.get(i);
                if (t == null || t.filter() == null || t.filter().isBlank()) {
                    throw new ConfigurationException("Topic number " + (i + 1) + " under 'topics' has no filter.");
                }
                if (!filters.add(t.filter())) {
                    throw new ConfigurationException("Topic filter '" + t.filter() + "' is given twice under 'topics'.");
                }
                t.check();
            }
        }

        private Builder define(QueueDefinition definition) {
            queues.removeIf(q -> q != null && definition.name().equals(q.name()));
            queues.add(definition);
            return this;
        }
    }
}
