package org.wharfmq.server.config;

import org.wharfmq.server.Configuration;
import org.wharfmq.server.store.Durability;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The queue manager's settings, and only its own (each plugin keeps its settings: docs/architecture.md,
 * "Settings"): an immutable value, read by every part of the broker and handed to its plugins
 * ({@link org.wharfmq.server.ServerPlugin.Host#config()}), so no part sees another change a setting under it. Built
 * with {@link Builder}'s fluent setters, each named after its YAML key in {@code config/wharf.yaml}:
 * {@code ServerConfig.builder().port(0).autoCreate(false).queue("ORDERS", 1000).build()}, where {@code build()}
 * checks every setting. Defaults are the constants of {@link Configuration}. {@link #read(Settings)} reads the
 * queue manager's keys from the file's tree; the command line reads the YAML
 * ({@code org.wharfmq.server.cli.ConfigurationFile}), and the broker knows nothing of it.
 */
public final class ServerConfig {

    /**
     * The settings as built: a copy of the builder that nothing else holds and nothing changes (its lists
     * immutable). A setting is a field of {@link Builder} only; its accessor here reads it.
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
     * The queue manager's part of the configuration file: its top-level keys, each named after the {@link Builder}
     * setter it calls, with the {@code tls:} block, {@code queues:} and {@code topics:}. A setting left out keeps its
     * default ({@link Configuration}); the values are checked by {@link Builder#build()}, once the command line has
     * applied its overrides. A setting added to the broker is, in this class, a field and a setter of {@link Builder}, an
     * accessor, a line here and its check in {@link Builder#build()}; then its default in {@link Configuration} and
     * its explanation in config/wharf.yaml.
     *
     * @param file the file's top level
     * @return a builder holding the file's settings
     * @throws ConfigurationException for a value of the wrong type, or an unknown key inside {@code tls:},
     *                                {@code queues:} or {@code topics:}
     */
    public static Builder read(Settings file) {
        Builder b = builder();
        b.name = file.text("name", b.name);
        b.host = file.text("host", b.host);
        b.port = file.intValue("port", b.port);
        b.inVmName = file.text("inVmName", b.inVmName);
        b.dataDirectory = file.text("dataDirectory", b.dataDirectory);
        b.autoCreate = file.flag("autoCreate", b.autoCreate);
        b.standby = file.flag("standby", b.standby);
        b.maxMessageLength = file.intValue("maxMessageLength", b.maxMessageLength);
        b.maxQueueDepth = file.longValue("maxQueueDepth", b.maxQueueDepth);
        b.maxQueues = file.intValue("maxQueues", b.maxQueues);
        b.autoDeleteDelayMillis = file.longValue("autoDeleteDelayMillis", b.autoDeleteDelayMillis);
        b.ioThreads = file.intValue("ioThreads", b.ioThreads);
        b.heartbeatMillis = file.intValue("heartbeatMillis", b.heartbeatMillis);
        if (file.has("durability")) {
            b.durability(Durability.parse(file.text("durability", null)));
        }
        b.journalFileBytes = file.longValue("journalFileBytes", b.journalFileBytes);
        b.journalSlackBytes = file.longValue("journalSlackBytes", b.journalSlackBytes);
        b.journalMaxBytes = file.longValue("journalMaxBytes", b.journalMaxBytes);
        b.handshakeTimeoutMillis = file.intValue("handshakeTimeoutMillis", b.handshakeTimeoutMillis);
        b.maxConnections = file.intValue("maxConnections", b.maxConnections);
        b.maxConnectionsPerAddress = file.intValue("maxConnectionsPerAddress", b.maxConnectionsPerAddress);
        b.maxTemporaryQueuesPerConnection = file.intValue("maxTemporaryQueuesPerConnection",
                b.maxTemporaryQueuesPerConnection);
        b.maxMemoryBytes = file.longValue("maxMemoryBytes", b.maxMemoryBytes);
        b.maxSubscriptionBytes = file.longValue("maxSubscriptionBytes", b.maxSubscriptionBytes);
        if (file.has("memoryPolicy")) {
            b.memoryPolicy = MemoryPolicy.parse(file.text("memoryPolicy", null), "memoryPolicy");
        }
        b.maxPageBytes = file.longValue("maxPageBytes", b.maxPageBytes);
        if (file.has("pageFullPolicy")) {
            b.pageFullPolicy = MemoryPolicy.parse(file.text("pageFullPolicy", null), "pageFullPolicy");
        }
        b.producerWindowBytes = file.intValue("producerWindowBytes", b.producerWindowBytes);
        b.fanOutWindowBytes = file.longValue("fanOutWindowBytes", b.fanOutWindowBytes);
        for (Settings topic : file.sections("topics")) {
            b.topics.add(TopicDefinition.read(topic));
        }
        b.defaultTransmissionQueue = file.text("defaultTransmissionQueue", b.defaultTransmissionQueue);
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

    /** The queue manager name. */
    public String name() {
        return values.name;
    }

    /** The interface the TCP listener binds. */
    public String host() {
        return values.host;
    }

    /** The TCP port as configured (0 = ephemeral; the server reports the actual one). */
    public int port() {
        return values.port;
    }

    /** The name of the in-VM listener. */
    public String inVmName() {
        return values.inVmName;
    }

    /** The directory for persistent data. */
    public Path dataDirectory() {
        return Path.of(values.dataDirectory);
    }

    /** Whether queues are created on first use. */
    public boolean autoCreate() {
        return values.autoCreate;
    }

    /**
     * Whether this queue manager, finding its data directory in use by another one, waits for it to stop or die and
     * then takes over as its standby (true), or refuses to start (false, the default): docs/resilience.md, "Standby".
     */
    public boolean standby() {
        return values.standby;
    }

    /** The longest encoded message accepted, in bytes. */
    public int maxMessageLength() {
        return values.maxMessageLength;
    }

    /** The depth limit of queues that do not set their own. */
    public long maxQueueDepth() {
        return values.maxQueueDepth;
    }

    /** The most queues the queue manager holds (defined, created by use, temporary). */
    public int maxQueues() {
        return values.maxQueues;
    }

    /** How long an unused queue created by use stays before it is deleted, in ms; 0 or less = never. */
    public long autoDeleteDelayMillis() {
        return values.autoDeleteDelayMillis;
    }

    /** The number of network threads to start: the setting, or the number of available processors when it is 0. */
    public int ioThreads() {
        return values.ioThreads > 0 ? values.ioThreads : Runtime.getRuntime().availableProcessors();
    }

    /** The heartbeat interval the server offers, in ms. */
    public int heartbeatMillis() {
        return values.heartbeatMillis;
    }

    /** What a synced journal record survives (setting durability). */
    public Durability durability() {
        return Durability.parse(values.durability);
    }

    /** The size at which the journal moves on to a new file, in bytes. */
    public long journalFileBytes() {
        return values.journalFileBytes;
    }

    /** How many bytes of dead records the journal may keep before it compacts its oldest file. */
    public long journalSlackBytes() {
        return values.journalSlackBytes;
    }

    /** The most bytes the journal may use on disk; 0 = no limit but the disk. */
    public long journalMaxBytes() {
        return values.journalMaxBytes;
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
        return values.defaultTransmissionQueue;
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
        return values.handshakeTimeoutMillis;
    }

    /** The most client connections over TCP and TLS together; in-VM connections are not counted. */
    public int maxConnections() {
        return values.maxConnections;
    }

    /** The most client connections from one IP address. */
    public int maxConnectionsPerAddress() {
        return values.maxConnectionsPerAddress;
    }

    /** The most temporary queues one connection holds at once. */
    public int maxTemporaryQueuesPerConnection() {
        return values.maxTemporaryQueuesPerConnection;
    }

    /**
     * The server's memory budget for messages, in bytes, as configured: 0 = automatic, a share of the JVM's direct
     * memory limit ({@link Configuration#DEFAULT_MEMORY_SHARE_PERCENT}; the queue manager computes it).
     */
    public long maxMemoryBytes() {
        return values.maxMemoryBytes;
    }

    /** The memory budget of each topic subscription no {@link #topics()} entry covers, in bytes; 0 = none of its own. */
    public long maxSubscriptionBytes() {
        return values.maxSubscriptionBytes;
    }

    /**
     * What a send meets when a budget is spent, for destinations that do not choose: page (the default), block or
     * fail. A subscription no topic entry gives a policy takes it too, except page, which gives it block.
     */
    public MemoryPolicy memoryPolicy() {
        return values.memoryPolicy;
    }

    /**
     * The disk budget of all paging queues' page files together, in bytes, as configured: 0 = automatic, a share of
     * the data directory's free disk space when the server starts ({@link Configuration#DEFAULT_PAGE_SHARE_PERCENT}).
     */
    public long maxPageBytes() {
        return values.maxPageBytes;
    }

    /** What a send to a paging queue meets when its disk budget or the server's is spent too: block or fail. */
    public MemoryPolicy pageFullPolicy() {
        return values.pageFullPolicy;
    }

    /** The bytes a producer's session may send before the server returns credit (producer flow control). */
    public int producerWindowBytes() {
        return values.producerWindowBytes;
    }

    /**
     * What a publishing session's window amounts to in bytes times the subscriptions a publication reaches: its window
     * is narrowed to this divided by its last publication's subscriptions (producer flow control).
     */
    public long fanOutWindowBytes() {
        return values.fanOutWindowBytes;
    }

    /** Memory settings for the subscriptions of some topics, in the configuration's order (the first that covers wins). */
    public List<TopicDefinition> topics() {
        return values.topics;
    }

    /** Every setting, {@code ServerConfig[name=WHARF, host=0.0.0.0, ...]}: the builder's fields, so a new one needs no line here. */
    @Override
    public String toString() {
        StringBuilder text = new StringBuilder();
        for (Field field : Builder.class.getDeclaredFields()) {
            if (!Modifier.isStatic(field.getModifiers())) {
                try {
                    text.append(text.length() == 0 ? "" : ", ").append(field.getName()).append('=').append(field.get(values));
                } catch (IllegalAccessException e) {
                    throw new AssertionError("a nestmate's field", e);
                }
            }
        }
        return "ServerConfig[" + text + "]";
    }

    /**
     * The settings being chosen: one fluent setter per YAML key, every one starting at its default.
     * {@link #build()} checks them all and makes the immutable {@link ServerConfig}; the builder may then be changed
     * and built again without touching what it built before.
     */
    public static final class Builder implements Cloneable {

        private String name = Configuration.DEFAULT_NAME;
        private String host = Configuration.DEFAULT_HOST;
        private int port = Configuration.DEFAULT_PORT;
        private String inVmName = Configuration.DEFAULT_IN_VM_NAME;
        private String dataDirectory = Configuration.DEFAULT_DATA_DIRECTORY;
        private boolean autoCreate = Configuration.DEFAULT_AUTO_CREATE;
        private boolean standby = Configuration.DEFAULT_STANDBY;
        private int maxMessageLength = Configuration.DEFAULT_MAX_MESSAGE_LENGTH;
        private long maxQueueDepth = Configuration.DEFAULT_MAX_QUEUE_DEPTH;
        private int maxQueues = Configuration.DEFAULT_MAX_QUEUES;
        private long autoDeleteDelayMillis = Configuration.DEFAULT_AUTO_DELETE_DELAY_MILLIS;
        private int ioThreads = Configuration.DEFAULT_IO_THREADS;
        private int heartbeatMillis = Configuration.DEFAULT_HEARTBEAT_MILLIS;
        private String durability = Configuration.DEFAULT_DURABILITY;
        private long journalFileBytes = Configuration.DEFAULT_JOURNAL_FILE_BYTES;
        private long journalSlackBytes = Configuration.DEFAULT_JOURNAL_SLACK_BYTES;
        private long journalMaxBytes = Configuration.DEFAULT_JOURNAL_MAX_BYTES;
        private List<QueueDefinition> queues = new ArrayList<>();
        private List<QueueReference> references = new ArrayList<>();
        private String defaultTransmissionQueue = Configuration.DEFAULT_TRANSMISSION_QUEUE;
        private TlsConfig tls;
        private int handshakeTimeoutMillis = Configuration.DEFAULT_HANDSHAKE_TIMEOUT_MILLIS;
        private int maxConnections = Configuration.DEFAULT_MAX_CONNECTIONS;
        private int maxConnectionsPerAddress = Configuration.DEFAULT_MAX_CONNECTIONS_PER_ADDRESS;
        private int maxTemporaryQueuesPerConnection = Configuration.DEFAULT_MAX_TEMPORARY_QUEUES_PER_CONNECTION;
        private long maxMemoryBytes = Configuration.DEFAULT_MAX_MEMORY_BYTES;
        private long maxSubscriptionBytes = Configuration.DEFAULT_MAX_SUBSCRIPTION_BYTES;
        private MemoryPolicy memoryPolicy = Configuration.DEFAULT_MEMORY_POLICY;
        private long maxPageBytes = Configuration.DEFAULT_MAX_PAGE_BYTES;
        private MemoryPolicy pageFullPolicy = Configuration.DEFAULT_PAGE_FULL_POLICY;
        private int producerWindowBytes = Configuration.DEFAULT_PRODUCER_WINDOW_BYTES;
        private long fanOutWindowBytes = Configuration.DEFAULT_FAN_OUT_WINDOW_BYTES;
        private List<TopicDefinition> topics = new ArrayList<>();

        private Builder() {
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
            this.maxMemoryBytes = maxMemoryBytes;
            return this;
        }

        /** Sets the memory budget of each subscription no {@code topics} entry covers, in bytes; 0 = none of its own. */
        public Builder maxSubscriptionBytes(long maxSubscriptionBytes) {
            this.maxSubscriptionBytes = maxSubscriptionBytes;
            return this;
        }

        /** Sets what a send meets when a budget is spent, for destinations that do not choose: page, block or fail. */
        public Builder memoryPolicy(MemoryPolicy memoryPolicy) {
            this.memoryPolicy = memoryPolicy;
            return this;
        }

        /** Sets the disk budget of all page files together, in bytes (0: automatic). */
        public Builder maxPageBytes(long maxPageBytes) {
            this.maxPageBytes = maxPageBytes;
            return this;
        }

        /** Sets what a send to a paging queue meets when a disk budget is spent too: block or fail. */
        public Builder pageFullPolicy(MemoryPolicy pageFullPolicy) {
            this.pageFullPolicy = pageFullPolicy;
            return this;
        }

        /**
         * Defines a paging queue with its own memory budget and disk budget ({@code maxPageBytes} 0: none of its own),
         * replacing an earlier definition of the same name.
         */
        public Builder pagingQueue(String name, long maxBytes, long maxPageBytes, MemoryPolicy pageFullPolicy) {
            return define(new QueueDefinition(name, null, maxBytes, MemoryPolicy.PAGE.toString(),
                    maxPageBytes == 0 ? null : maxPageBytes, pageFullPolicy.toString()));
        }

        /** Sets the bytes a producer's session may send before the server returns credit. */
        public Builder producerWindowBytes(int producerWindowBytes) {
            this.producerWindowBytes = producerWindowBytes;
            return this;
        }

        /** Sets what a publishing session's window amounts to in bytes times the subscriptions a publication reaches. */
        public Builder fanOutWindowBytes(long fanOutWindowBytes) {
            this.fanOutWindowBytes = fanOutWindowBytes;
            return this;
        }

        /** Defines a queue with its own memory budget and policy (replacing an earlier definition of the same name). */
        public Builder queue(String name, long maxBytes, MemoryPolicy policy) {
            return define(new QueueDefinition(name, null, maxBytes, policy.toString()));
        }

        /** Adds memory settings for the subscriptions under a topic filter (see {@link TopicDefinition}). */
        public Builder topic(String filter, long maxBytes, MemoryPolicy policy) {
            topics.add(new TopicDefinition(filter, maxBytes, policy.toString()));
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
            this.name = name;
            return this;
        }

        /** Sets the interface the TCP listener binds. */
        public Builder host(String host) {
            this.host = host;
            return this;
        }

        /** Sets the TCP port; 0 picks a free one. */
        public Builder port(int port) {
            this.port = port;
            return this;
        }

        /** Sets the name of the in-VM listener ({@code vm://NAME}); unique per JVM. */
        public Builder inVmName(String inVmName) {
            this.inVmName = inVmName;
            return this;
        }

        /** Sets the directory for persistent data (null: none, which {@link #build()} refuses). */
        public Builder dataDirectory(Path dataDirectory) {
            this.dataDirectory = dataDirectory == null ? null : dataDirectory.toString();
            return this;
        }

        /** Sets whether queues are created on first use. */
        public Builder autoCreate(boolean autoCreate) {
            this.autoCreate = autoCreate;
            return this;
        }

        /** Sets whether this queue manager waits as the standby of the one using its data directory ({@link #standby()}). */
        public Builder standby(boolean standby) {
            this.standby = standby;
            return this;
        }

        /** Sets the longest encoded message accepted, in bytes. */
        public Builder maxMessageLength(int maxMessageLength) {
            this.maxMessageLength = maxMessageLength;
            return this;
        }

        /** Sets the depth limit of queues that do not set their own {@code maxDepth}. */
        public Builder maxQueueDepth(long maxQueueDepth) {
            this.maxQueueDepth = maxQueueDepth;
            return this;
        }

        /**
         * Sets the most queues the queue manager holds: defined, created by use and temporary ones (subscription queues
         * do not count). Creating one more fails with TOO_MANY_QUEUES.
         */
        public Builder maxQueues(int maxQueues) {
            this.maxQueues = maxQueues;
            return this;
        }

        /**
         * Sets how long a queue created by use stays once unused (no message, consumer or browser) before it is
         * deleted, in ms; 0 or less = never.
         */
        public Builder autoDeleteDelayMillis(long autoDeleteDelayMillis) {
            this.autoDeleteDelayMillis = autoDeleteDelayMillis;
            return this;
        }

        /** Sets the number of network threads; 0 = one per available processor. */
        public Builder ioThreads(int ioThreads) {
            this.ioThreads = ioThreads;
            return this;
        }

        /** Sets the heartbeat interval the server offers, in ms; 0 = none from the server's side. */
        public Builder heartbeatMillis(int heartbeatMillis) {
            this.heartbeatMillis = heartbeatMillis;
            return this;
        }

        /** Sets what a synced journal record survives: {@code fsync} (power loss) or {@code os} (process crash). */
        public Builder durability(Durability durability) {
            this.durability = durability.name().toLowerCase(java.util.Locale.ROOT);
            return this;
        }

        /** Sets the size at which the journal moves on to a new file, in bytes. */
        public Builder journalFileBytes(long journalFileBytes) {
            this.journalFileBytes = journalFileBytes;
            return this;
        }

        /** Sets how many bytes of dead records the journal may keep before it compacts its oldest file. */
        public Builder journalSlackBytes(long journalSlackBytes) {
            this.journalSlackBytes = journalSlackBytes;
            return this;
        }

        /** Sets the most bytes the journal may use on disk; 0 = only the disk's free space limits it. */
        public Builder journalMaxBytes(long journalMaxBytes) {
            this.journalMaxBytes = journalMaxBytes;
            return this;
        }

        /**
         * Sets how long a connection has, from its accept, to complete the handshake (TLS, HELLO, authentication)
         * before it is closed, in ms.
         */
        public Builder handshakeTimeoutMillis(int handshakeTimeoutMillis) {
            this.handshakeTimeoutMillis = handshakeTimeoutMillis;
            return this;
        }

        /** Sets the most client connections over TCP and TLS together; one more is refused (TOO_MANY_CONNECTIONS). */
        public Builder maxConnections(int maxConnections) {
            this.maxConnections = maxConnections;
            return this;
        }

        /** Sets the most client connections from one IP address; one more is refused (TOO_MANY_CONNECTIONS). */
        public Builder maxConnectionsPerAddress(int maxConnectionsPerAddress) {
            this.maxConnectionsPerAddress = maxConnectionsPerAddress;
            return this;
        }

        /** Sets the most temporary queues one connection holds at once; one more is refused (TOO_MANY_QUEUES). */
        public Builder maxTemporaryQueuesPerConnection(int maxTemporaryQueuesPerConnection) {
            this.maxTemporaryQueuesPerConnection = maxTemporaryQueuesPerConnection;
            return this;
        }

        /** Defines a queue with the server-wide depth limit (replacing an earlier definition of the same name). */
        public Builder queue(String name) {
            return define(new QueueDefinition(name, null));
        }

        /** Defines a queue with its own depth limit (replacing an earlier definition of the same name). */
        public Builder queue(String name, long maxDepth) {
            return define(new QueueDefinition(name, maxDepth));
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
            this.defaultTransmissionQueue = queue;
            return this;
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
            requireText(name, "name");
            if (name.indexOf('/') >= 0) {
                throw new ConfigurationException("Setting name must not hold a '/' (it separates a queue manager's name"
                        + " from a queue's: queue://QM2/ORDERS), was " + name + ".");
            }
            requireText(host, "host");
            requireText(inVmName, "inVmName");
            requireText(dataDirectory, "dataDirectory");
            if (port < 0 || port > 65535) {
                throw new ConfigurationException("Setting port must be between 0 and 65535, was " + port + ".");
            }
            int maxLength = Integer.MAX_VALUE - Configuration.FRAME_OVERHEAD_ALLOWANCE;
            if (maxMessageLength < 1 || maxMessageLength > maxLength) {
                throw new ConfigurationException("Setting maxMessageLength must be between 1 and " + maxLength
                        + " bytes, was " + maxMessageLength + ".");
            }
            if (maxQueueDepth < 1) {
                throw new ConfigurationException("Setting maxQueueDepth must be at least 1, was " + maxQueueDepth + ".");
            }
            if (maxQueues < Math.max(1, queues.size())) {
                throw new ConfigurationException("Setting maxQueues must be at least 1 and at least the number of queues "
                        + "defined under 'queues' (" + queues.size() + "), was " + maxQueues + ".");
            }
            if (ioThreads < 0) {
                throw new ConfigurationException("Setting ioThreads must be 0 (one per processor) or more, was " + ioThreads + ".");
            }
            if (heartbeatMillis < 0) {
                throw new ConfigurationException("Setting heartbeatMillis must be 0 (off) or more, was " + heartbeatMillis + ".");
            }
            Durability.parse(durability);
            if (journalFileBytes < Configuration.MIN_JOURNAL_FILE_BYTES) {
                throw new ConfigurationException("Setting journalFileBytes must be at least "
                        + Configuration.MIN_JOURNAL_FILE_BYTES + ", was " + journalFileBytes + ".");
            }
            if (journalSlackBytes < 0) {
                throw new ConfigurationException("Setting journalSlackBytes must be 0 or more, was " + journalSlackBytes + ".");
            }
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
            if (defaultTransmissionQueue != null && queues.stream().noneMatch(
                    q -> q.name().equals(defaultTransmissionQueue) && q.transmission())) {
                throw new ConfigurationException("Setting defaultTransmissionQueue names '" + defaultTransmissionQueue
                        + "', which is not a queue with usage transmission under 'queues': define it there"
                        + " (usage: transmission).");
            }
            requirePositive(handshakeTimeoutMillis, "handshakeTimeoutMillis");
            requirePositive(maxConnections, "maxConnections");
            requirePositive(maxConnectionsPerAddress, "maxConnectionsPerAddress");
            requirePositive(maxTemporaryQueuesPerConnection, "maxTemporaryQueuesPerConnection");
            checkMemory();
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

        /** The memory settings: budgets 0 or more, policies named right ({@code drop} only for topics). */
        private void checkMemory() {
            if (maxMemoryBytes < 0) {
                throw new ConfigurationException("Setting maxMemoryBytes must be 0 (automatic) or more, was "
                        + maxMemoryBytes + ".");
            }
            if (maxSubscriptionBytes < 0) {
                throw new ConfigurationException("Setting maxSubscriptionBytes must be 0 (none) or more, was "
                        + maxSubscriptionBytes + ".");
            }
            if (memoryPolicy == null || memoryPolicy == MemoryPolicy.DROP) {
                throw new ConfigurationException("Setting memoryPolicy must be page, block or fail, was " + memoryPolicy
                        + " (drop is for topics: set it under 'topics').");
            }
            if (maxPageBytes < 0) {
                throw new ConfigurationException("Setting maxPageBytes must be 0 (automatic) or more, was "
                        + maxPageBytes + ".");
            }
            checkPageFullPolicy(pageFullPolicy, "pageFullPolicy");
            if (producerWindowBytes < Configuration.MIN_PRODUCER_WINDOW_BYTES) {
                throw new ConfigurationException("Setting producerWindowBytes must be at least "
                        + Configuration.MIN_PRODUCER_WINDOW_BYTES + ", was " + producerWindowBytes + ".");
            }
            if (fanOutWindowBytes < Configuration.MIN_PRODUCER_WINDOW_BYTES) {
                throw new ConfigurationException("Setting fanOutWindowBytes must be at least "
                        + Configuration.MIN_PRODUCER_WINDOW_BYTES + ", was " + fanOutWindowBytes + ".");
            }
            Set<String> filters = new HashSet<>();
            for (int i = 0; i < topics.size(); i++) {
                TopicDefinition t = topics.get(i);
                if (t == null || t.filter() == null || t.filter().isBlank()) {
                    throw new ConfigurationException("Topic number " + (i + 1) + " under 'topics' has no filter.");
                }
                if (!filters.add(t.filter())) {
                    throw new ConfigurationException("Topic filter '" + t.filter() + "' is given twice under 'topics'.");
                }
                if (t.maxBytes() != null && t.maxBytes() < 1) {
                    throw new ConfigurationException("Setting maxBytes of topic '" + t.filter() + "' must be at least 1, "
                            + "was " + t.maxBytes() + ".");
                }
                if (t.policy() != null) {
                    MemoryPolicy.parse(t.policy(), "policy of topic '" + t.filter() + "'");
                }
            }
        }

        private static void checkPageFullPolicy(MemoryPolicy policy, String setting) {
            if (policy != MemoryPolicy.BLOCK && policy != MemoryPolicy.FAIL) {
                throw new ConfigurationException("Setting " + setting + " must be block or fail, was " + policy
                        + " (what a send meets when a paging queue's disk budget is spent too).");
            }
        }

        private Builder define(QueueDefinition definition) {
            queues.removeIf(q -> q != null && definition.name().equals(q.name()));
            queues.add(definition);
            return this;
        }

        private static void requirePositive(int value, String setting) {
            if (value < 1) {
                throw new ConfigurationException("Setting " + setting + " must be at least 1, was " + value + ".");
            }
        }

        private static void requireText(String value, String setting) {
            if (value == null || value.isBlank()) {
                throw new ConfigurationException("Setting " + setting + " must not be empty.");
            }
        }
    }
}
