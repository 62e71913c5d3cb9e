package org.wharfmq.server;

import org.wharfmq.protocol.ProtocolVersion;
import org.wharfmq.server.config.MemoryPolicy;
import org.wharfmq.server.config.Setting;
import org.wharfmq.server.store.Durability;

/**
 * The queue manager's settings and limits. Each setting of {@code config/wharf.yaml}'s top level is one
 * {@link Setting} here, named after its key ({@code maxQueues} is {@link #MAX_QUEUES}): its key, its default and the
 * values it accepts in one declaration, documented where it is declared. {@code ServerConfig} reads, sets, checks and
 * hands out every one declared here ({@code config.get(Configuration.MAX_QUEUES)}), and a test holds config/wharf.yaml,
 * the operators' explanation, to them (each key there, with its default). A new setting is a declaration here and its
 * lines in config/wharf.yaml. The TLS listener's settings, the block {@code tls:}, are declared in
 * {@link org.wharfmq.server.config.TlsConfiguration}; the keys of each entry of the lists {@code queues:} and
 * {@code topics:} in {@link org.wharfmq.server.config.QueueConfiguration} and
 * {@link org.wharfmq.server.config.TopicConfiguration}; the other constants are fixed limits, not settings. A config file only needs the settings it changes;
 * {@link org.wharfmq.server.config.ServerConfig#defaults()} is all of these. The plugins keep theirs beside their own
 * settings (the HTTP listener's {@code HttpConfiguration}, the flow host's {@code FlowHostConfiguration}, the security
 * file's {@code SecurityConfiguration}).
 */
public final class Configuration {

    /**
     * Queue manager name, shown to clients in HELLO_OK, in the ready line and by {@code display server}: default
     * WHARF. Other queue managers reach this one by it ({@code queue://WHARF/ORDERS}), so it holds no '/'.
     */
    public static final Setting<String> NAME = Setting.text("name", "WHARF").required()
            .check(n -> n.indexOf('/') < 0, n -> "must not hold a '/' (it separates a queue manager's name from a "
                    + "queue's: queue://QM2/ORDERS), was " + n);

    /**
     * The transmission queue of messages for a queue manager nothing else leads to (IBM MQ's DEFXMITQ): by default
     * none, and such a message is refused (docs/distributed.md). It must be a queue with usage transmission under
     * {@code queues:} ({@code ServerConfig.Builder.build} checks it).
     */
    public static final Setting<String> DEFAULT_TRANSMISSION_QUEUE = Setting.text("defaultTransmissionQueue", null);

    /** Interface the TCP listener binds: default 0.0.0.0 (every interface). */
    public static final Setting<String> HOST = Setting.text("host", "0.0.0.0").required();

    /** TCP listener port: default 7414. Port 0 picks a free port (tests). */
    public static final Setting<Integer> PORT = Setting.integer("port", ProtocolVersion.DEFAULT_PORT)
            .between(0, 65535, "");

    /** Name of the in-VM listener, reached as {@code vm://NAME}: default wharf. */
    public static final Setting<String> IN_VM_NAME = Setting.text("inVmName", "wharf").required();

    /** Whether a queue that is not defined is created when first used: default true. */
    public static final Setting<Boolean> AUTO_CREATE = Setting.flag("autoCreate", true);

    /**
     * Whether a queue manager that finds its data directory locked by another waits as its standby (true) or refuses
     * to start (false). Off by default: two servers given the same directory by mistake must not look like a pair.
     */
    public static final Setting<Boolean> STANDBY = Setting.flag("standby", false);

    /**
     * The transaction timeout of an XA branch whose XA_START names none (the client's
     * {@code XAResource.setTransactionTimeout} was not called or given 0), in seconds: {@value} (as Artemis's default).
     * A branch not prepared by then is rolled back, so a transaction manager that died before its prepare does not hold
     * messages for ever; a prepared branch never times out. Not a setting yet.
     */
    public static final int XA_TRANSACTION_TIMEOUT_SECONDS = 300;

    /**
     * Longest encoded message accepted, in bytes: default 104857600 (100 MiB); at most what a frame can carry beside
     * its header fields ({@link #FRAME_OVERHEAD_ALLOWANCE}).
     */
    public static final Setting<Integer> MAX_MESSAGE_LENGTH = Setting.integer("maxMessageLength", 100 * 1024 * 1024)
            .between(1, Integer.MAX_VALUE - Configuration.FRAME_OVERHEAD_ALLOWANCE, "bytes");

    /**
     * Most messages a queue holds, counting those delivered but not yet acknowledged: default 5000000. A queue may
     * set its own ({@code maxDepth}).
     */
    public static final Setting<Long> MAX_QUEUE_DEPTH = Setting.whole("maxQueueDepth", 5_000_000L).atLeast(1);

    /**
     * Most queues the queue manager holds: default 10000. Queues defined in the configuration, queues created by use
     * and temporary queues count; subscription queues (one per topic subscriber) do not. Creating one more is refused
     * (TOO_MANY_QUEUES); queues that exist are never refused anything because of it. At least the number of queues
     * defined ({@code ServerConfig.Builder.build} checks it).
     */
    public static final Setting<Integer> MAX_QUEUES = Setting.integer("maxQueues", 10_000);

    /**
     * How long a queue created by use stays once it is unused (no message, consumer or browser) before it is
     * deleted, in ms: default 300000 (5 minutes). 0 or less: never deleted. Queues defined in the configuration and
     * queues holding a message are never deleted this way.
     */
    public static final Setting<Long> AUTO_DELETE_DELAY_MILLIS = Setting.whole("autoDeleteDelayMillis", 5 * 60_000L);

    /**
     * Longest time between two looks for unused queues created by use, in ms: {@value}. They are looked for every
     * {@code autoDeleteDelayMillis} when that is shorter, so a queue goes at most this long after its delay.
     */
    public static final long AUTO_DELETE_SCAN_MILLIS = 10_000L;

    /**
     * Network threads (Netty event loops) serving client connections: default 0 = one per available processor.
     * Netty's own default is two per processor; measured here (docs/performance-log.md, RR-4) that spends about 60 %
     * more server CPU per round trip, because more of a message's hops cross from one event loop to another.
     */
    public static final Setting<Integer> IO_THREADS = Setting.integer("ioThreads", 0).zeroOrMore("one per processor");

    /** Heartbeat interval the server offers, in ms: default 10000. 0 disables heartbeats from the server's side. */
    public static final Setting<Integer> HEARTBEAT_MILLIS = Setting.integer("heartbeatMillis", 10_000)
            .zeroOrMore("off");

    /** Directory for persistent data (the journal): default data, relative to the working directory. */
    public static final Setting<String> DATA_DIRECTORY = Setting.text("dataDirectory", "data").required();

    /**
     * What an acknowledged persistent message survives: default fsync (power loss), or os (a process crash);
     * docs/persistence.md.
     */
    public static final Setting<Durability> DURABILITY = Setting.choice("durability", Durability.FSYNC,
            Durability::parse).required();

    /** Smallest allowed journal file size: {@value} bytes (64 KiB). */
    public static final long MIN_JOURNAL_FILE_BYTES = 64L * 1024;

    /** Size at which the journal starts a new file: default 67108864 bytes (64 MiB), at least 64 KiB. */
    public static final Setting<Long> JOURNAL_FILE_BYTES = Setting.whole("journalFileBytes", 64L * 1024 * 1024)
            .atLeast(MIN_JOURNAL_FILE_BYTES);

    /** Dead bytes the journal may keep before compacting its oldest file: default 268435456 (256 MiB). */
    public static final Setting<Long> JOURNAL_SLACK_BYTES = Setting.whole("journalSlackBytes", 256L * 1024 * 1024)
            .zeroOrMore(null);

    /**
     * Most time, in ms, a journal record nobody waits for (a consumer's unanswered acknowledgement, a delivery count)
     * stays unforced when no other record asks for a sync (durability fsync): default 10. Such records ride the next
     * sync anyone asks for, and one that comes within this time costs no sync of its own; after it the journal forces
     * them itself. At least 1.
     */
    public static final Setting<Long> JOURNAL_LAZY_SYNC_MILLIS = Setting.whole("journalLazySyncMillis", 10).atLeast(1);

    /**
     * Most bytes the journal may use: default 0 = no limit but the free space of the disk; else at least twice
     * journalFileBytes ({@code ServerConfig.Builder.build} checks it).
     */
    public static final Setting<Long> JOURNAL_MAX_BYTES = Setting.whole("journalMaxBytes", 0);

    /**
     * Room for a frame's header fields beyond the message itself: the decoder accepts frames up to the maximum
     * message length plus this many bytes ({@value}, 64 KiB); a client reads no longer frame from a queue manager than its
     * maxMessageLength plus this ({@link org.wharfmq.protocol.message.MessageLengthLimit#FRAME_OVERHEAD_BYTES}).
     */
    public static final int FRAME_OVERHEAD_ALLOWANCE = org.wharfmq.protocol.message.MessageLengthLimit.FRAME_OVERHEAD_BYTES;

    /**
     * Failed logins of one user from one address after which that user's next logins from there are answered only
     * after a delay: {@value}. Other users at that address are not slowed by them
     * ({@link org.wharfmq.server.security.LoginThrottle}).
     */
    public static final int LOGIN_FAILURES_BEFORE_DELAY = 5;

    /**
     * Different user names failing from one address after which every login from that address is delayed (guessing
     * across user names): {@value}.
     */
    public static final int LOGIN_USERS_PER_ADDRESS_BEFORE_DELAY = 10;

    /** A user at an address, or an address, that has not failed a login for this long, in ms, is no longer slowed: {@value} (a minute). */
    public static final long LOGIN_FAILURE_WINDOW_MILLIS = 60_000L;

    /** The first delay of slowed login answers, in ms, doubling with each further failure: {@value}. */
    public static final long LOGIN_FIRST_DELAY_MILLIS = 250L;

    /**
     * The longest delay of slowed login answers, in ms: {@value} (within the default handshake timeout; an answer held
     * back this way is given even when the handshake timeout passes meanwhile).
     */
    public static final long LOGIN_MAX_DELAY_MILLIS = 5_000L;

    /**
     * DELIVER frames whose message is at most this long ({@value} bytes) are copied, header and body, into one
     * buffer per batch of a session ({@link org.wharfmq.server.session.DeliveryWriter}): a copy of a few KiB costs
     * less than a buffer, a duplicate and two outbound entries per frame. Longer ones are written from their own bytes.
     */
    public static final int DELIVER_COPY_LIMIT_BYTES = 8 * 1024;

    /**
     * Most messages the server keeps track of per connection, while one task of its loop writes the connection's
     * DELIVER frames, as sent once and kept by the client (DELIVER_KEEP, then DELIVER_SAME naming it: docs/protocol.md,
     * "Shared deliveries"): {@value}, or fewer when the client keeps fewer. Each is a short BytesMessage referenced for
     * that task only; a task's deliveries of one publication to the connection's consumers are then one copy of it
     * and a 22-byte frame each (PS-N 100's 25 subscribers to a connection, a few publications a task).
     */
    public static final int DELIVER_KEPT_MESSAGES = 16;

    /**
     * A message put on a transmission queue whose body is at most this long ({@value} bytes) is written with its
     * transmission header into one buffer, its body copied
     * ({@link org.wharfmq.protocol.message.TransmissionHeader.Addressed#wrap}): a copy of a few KiB costs less than a
     * composite, its components and a slice made and released per message. A longer body stays a slice of the buffer
     * it arrived in.
     */
    public static final int TRANSMISSION_COPY_LIMIT_BYTES = 8 * 1024;

    /**
     * How many JMSDestinations a session, or a receiver channel, keeps of the messages it read last ({@value}): a
     * message to one of them takes the one kept rather than a name decoded, a destination made and its name's hash
     * computed again for the queue's look-ups ({@link org.wharfmq.protocol.message.MessageHeaders#read(io.netty.buffer.ByteBuf,
     * org.wharfmq.protocol.message.WireDestination[])}). A producer mostly sends to one destination; a channel carries the messages of a few
     * queues (RR-5's four).
     */
    public static final int RECENT_DESTINATIONS = 4;

    /**
     * How often a put of an in-process producer ({@link org.wharfmq.server.session.InProcessProducer}: a flow's output)
     * that waits for producer credit or the journal looks whether its sender has stopped (its flow stopping, its
     * connection lost), in ms: {@value}. It is woken at once by the credit or the journal; this bounds only how long a
     * stopped sender's put takes to give up.
     */
    public static final long IN_PROCESS_WAIT_CHECK_MILLIS = 100;

    /**
     * Most tasks a thread that defers its wakes of event loops (a flow's reader:
     * {@link org.wharfmq.server.session.DeferredWakes}) queues without waking their loops before it wakes those whose
     * tasks have not run yet: {@value}. A reply the reader puts waits for at most this many more before its loop is
     * woken, unless the loop wakes for something else first (and never longer than {@link #DEFERRED_WAKE_BOUND_MICROS});
     * the loops are woken once for them all, not once per message.
     */
    public static final int DEFERRED_WAKES_MAX = 8;

    /**
     * How long a thread that defers its wakes of event loops may owe one before another thread issues it, in
     * microseconds: {@value}. The queue manager's {@code wharf-wake-bound} thread issues the wakes owed this long
     * (within twice this: it looks once per this interval while wakes are owed), whatever the owner does (blocked in a
     * database call, an HTTP request, a file or another JMS provider, or working long in a node).
     */
    public static final long DEFERRED_WAKE_BOUND_MICROS = 1_000;

    /**
     * Most bytes copied into one buffer of DELIVER frames before the next one is started: {@value}, the largest
     * buffer Netty's per-thread cache keeps (a larger one is taken from the shared arena, under its lock).
     */
    public static final int DELIVER_BATCH_BYTES = 32 * 1024;

    /**
     * The least a read of a channel's connection from another queue manager takes: {@value} bytes (16 KiB), a burst of
     * a few messages of a few KiB with their transmission headers (RR-5's 2 KB messages are about 2.3 KiB each), where
     * Netty's adaptive guess settles at 4 KiB between bursts and reads a burst of two or more in several reads. See
     * {@link org.wharfmq.protocol.frame.FrameReads#readAtLeast}.
     */
    public static final int CHANNEL_READ_BYTES = 16 * 1024;

    /**
     * The least a read of a TLS channel's connection from another queue manager takes: {@value} bytes (20 KiB), a whole
     * record (a sending queue manager fills them with up to 16 KiB of frames, 16,406 bytes with the record's header and
     * tag) and the start of the next, rather than a record's first 16 KiB and its last 22 bytes in a second read.
     * Netty's pooled allocator serves 16,406 bytes from the 20 KiB size class anyway.
     */
    public static final int CHANNEL_TLS_READ_BYTES = 20 * 1024;

    /**
     * Longest a connection may keep its event loop processing frames before the loop serves its other connections,
     * in ns: {@value} (1 ms). See {@link org.wharfmq.server.transport.ReadFairness}.
     */
    public static final long READ_TURN_NANOS = 1_000_000L;

    /**
     * Most journal entries the writer takes from its inbox for one batch: {@value}. A batch is appended, then synced
     * once; a larger one would make its first entries wait longer for their sync.
     */
    public static final int JOURNAL_MAX_BATCH = 4096;

    /**
     * Longest a journal entry nobody waits for (a delivery count, an unanswered acknowledgement, a transaction's records
     * before its commit) waits in the writer's inbox for an entry somebody waits for, which wakes the writer and takes
     * it along, in us: {@value} (1 ms). A writer idle for longer is woken by any entry. See the store's
     * {@code JournalInbox} and docs/persistence.md.
     */
    public static final long JOURNAL_QUIET_ENTRY_MICROS = 1_000;

    /**
     * How often the journal writer reads the disk's free space, in ms: {@value}. Reading it is a system call too slow
     * for every batch; the reserve kept free (see docs/persistence.md) covers what can be written in between.
     */
    public static final long JOURNAL_DISK_CHECK_MILLIS = 20;

    private Configuration() {
    }

    // ---- memory (docs/resilience.md) ----

    /**
     * The server's memory budget for messages, in bytes: default 0 = automatic, that is
     * {@link #DEFAULT_MEMORY_SHARE_PERCENT} % of the JVM's direct memory limit ({@code -XX:MaxDirectMemorySize}, which
     * is the heap's limit {@code -Xmx} unless set), where message buffers live.
     */
    public static final Setting<Long> MAX_MEMORY_BYTES = Setting.whole("maxMemoryBytes", 0).zeroOrMore("automatic");

    /**
     * The share of the JVM's direct memory limit the automatic memory budget takes: {@value} %. The rest is for the
     * server's other buffers (reads, writes, the journal) and room to spare; the messages' objects on the heap (a few
     * hundred bytes each) count towards the budget too ({@link #MESSAGE_OVERHEAD_BYTES}).
     */
    public static final int DEFAULT_MEMORY_SHARE_PERCENT = 50;

    /**
     * What the budgets count for each message beyond its encoded length: {@value} bytes, the server's objects for a
     * waiting message as measured (docs/performance-log.md, "Memory per waiting message": 375 bytes of heap and the
     * unused ends of compaction regions). So a budget bounds memory, even for tiny messages.
     */
    public static final int MESSAGE_OVERHEAD_BYTES = 384;

    /**
     * The memory budget of each topic subscription no {@code topics:} entry covers, in bytes: default 67108864
     * (64 MiB); 0 = none of its own. With the default policy, block, a publisher is slowed once one of its
     * subscriptions holds this much, so one slow subscriber cannot fill the server; a topic entry may set its own.
     */
    public static final Setting<Long> MAX_SUBSCRIPTION_BYTES = Setting.whole("maxSubscriptionBytes", 64L * 1024 * 1024)
            .zeroOrMore("none");

    /**
     * What a send meets when a budget is spent, for destinations that do not choose: default page, the queue keeps
     * new messages on disk (subscriptions take block instead unless their topic entry says page); or block, or fail.
     * Drop is for topics only.
     */
    public static final Setting<MemoryPolicy> MEMORY_POLICY = Setting.choice("memoryPolicy", MemoryPolicy.PAGE,
                    text -> MemoryPolicy.parse(text, "memoryPolicy"))
            .check(p -> p != null && p != MemoryPolicy.DROP,
                    p -> "must be page, block or fail, was " + p + " (drop is for topics: set it under 'topics')");

    /**
     * The disk budget of all page files together, in bytes: default 0 = automatic, that is
     * {@link #DEFAULT_PAGE_SHARE_PERCENT} % of the data directory's free disk space when the server starts.
     */
    public static final Setting<Long> MAX_PAGE_BYTES = Setting.whole("maxPageBytes", 0).zeroOrMore("automatic");

    /** The share of the free disk space the automatic disk budget takes: {@value} %. The journal needs the rest. */
    public static final int DEFAULT_PAGE_SHARE_PERCENT = 25;

    /** What a send to a paging queue meets when a disk budget is spent too: default block, or fail. */
    public static final Setting<MemoryPolicy> PAGE_FULL_POLICY = Setting.choice("pageFullPolicy", MemoryPolicy.BLOCK,
                    text -> MemoryPolicy.parse(text, "pageFullPolicy"))
            .check(p -> p == MemoryPolicy.BLOCK || p == MemoryPolicy.FAIL, p -> "must be block or fail, was " + p
                    + " (what a send meets when a paging queue's disk budget is spent too)");

    /**
     * Paging queues page once the server's memory budget is this share spent, and a queue or subscription whose
     * policy keeps its messages in memory (block, fail, drop) holds at most this share of it: {@value} %, not 100 %,
     * so that the rest stays for what cannot page: messages sent in transactions not yet committed (offered, and so
     * paged, only at commit), messages delivered and not yet acknowledged, and what the consumers of such a queue
     * send on. At 100 %, a transacted producer to a paging queue without consumers had its credit held back by the
     * spent budget before its commit could let its messages page (page behaved as block); and a block queue that
     * alone spent the budget stopped its own consumers, whose sends (to a paging queue even) waited for the budget
     * only that queue's consumption could bring back (BlockQueueForwardingTest).
     */
    public static final int PAGE_AT_SERVER_BUDGET_PERCENT = 75;

    /**
     * A paging queue reads messages back once what it holds in memory falls under this share of its memory budget:
     * {@value} % (a queue without a budget of its own: under a quarter of the server's, at most
     * {@link #PAGE_READ_AHEAD_BYTES}, while the server's is at most half spent).
     */
    public static final int PAGE_LOW_WATERMARK_PERCENT = 50;

    /**
     * What a paging queue without a memory budget of its own keeps in memory before it reads more back: {@value}
     * bytes (4 MiB); also the most one read back takes in one go.
     */
    public static final int PAGE_READ_AHEAD_BYTES = 4 * 1024 * 1024;

    /**
     * The most a paging queue's messages handed to the paging thread and not yet written may hold before its
     * producers are held back, until the writes bring it under half of that: {@value} bytes (8 MiB), at most an
     * eighth of the server's memory budget. Senders to a paging queue are not held back by the server's spent budget
     * (the queue pages what they send), so this is what keeps a producer faster than the disk from filling memory.
     */
    public static final int PAGE_WRITE_BEHIND_BYTES = 8 * 1024 * 1024;

    /**
     * After a page file could not be written or read (a full disk, an I/O error), the paging thread tries that queue's
     * disk work again this long after: {@value} ms. Meanwhile the queue pages nothing more: its producers are held
     * back or refused as its pageFullPolicy says.
     */
    public static final long PAGE_RETRY_MILLIS = 1000;

    /** The smallest producer window: {@value} bytes (one frame's header and a small message). */
    public static final int MIN_PRODUCER_WINDOW_BYTES = 1024;

    /**
     * Bytes a producer's session may send before the server returns credit (producer flow control): default 262144
     * (256 KiB), at least {@link #MIN_PRODUCER_WINDOW_BYTES}. The server returns it in batches of half the window, so
     * a session costs one credit frame per 128 KiB sent while nothing is over budget; a destination over budget takes
     * at most this much more from each session that was already sending to it.
     */
    public static final Setting<Integer> PRODUCER_WINDOW_BYTES = Setting.integer("producerWindowBytes", 256 * 1024)
            .atLeast(MIN_PRODUCER_WINDOW_BYTES);

    /**
     * What a publishing session's window amounts to in bytes times the subscriptions its publications reach: default
     * 2097152 (2 MiB), at least {@link #MIN_PRODUCER_WINDOW_BYTES}. A session whose last publication reached N
     * subscriptions may have {@code fanOutWindowBytes / N} bytes (at most producerWindowBytes, at least two of its
     * publications) sent and not yet handled, so the work waiting in front of the server for one publisher, and the
     * delivery latency it adds, is about the same at any fan-out: 2 MiB of deliveries, a few milliseconds of a
     * server's fan-out (20 KiB, 10 publications of 2 KB, at 100 subscribers). PS-N's median delivery latency is
     * about 0.86 of this window's publications over the publication rate (docs/performance-log.md, "Pub/sub delivery
     * latency" and "PS-N 100: what sets the latency").
     */
    public static final Setting<Long> FAN_OUT_WINDOW_BYTES = Setting.whole("fanOutWindowBytes", 2L * 1024 * 1024)
            .atLeast(MIN_PRODUCER_WINDOW_BYTES);

    /**
     * The most bytes a client's consumer may have in its window (CREATE_CONSUMER's {@code windowBytes}, the client's
     * {@code consumerWindowBytes}): default 67108864 (64 MiB). A consumer that asks for more gets this: the server
     * sends it one more message only while it holds fewer bytes of messages sent and not yet settled by its CREDITs
     * (and always at least one message, whatever its size). A consumer that asks for none (a client before protocol
     * version 3, or {@code consumerWindowBytes=0}) is bounded by its prefetch count alone. A queue browser is bounded
     * the same way, and one that asks for none gets this window: the server settles a browse by its CREDITs' counts.
     */
    public static final Setting<Integer> MAX_CONSUMER_WINDOW_BYTES = Setting.integer("maxConsumerWindowBytes",
            64 * 1024 * 1024).atLeast(1);

    // ---- connection and handshake limits (docs/resilience.md, "Connection and handshake limits") ----

    /**
     * A connection that has not completed its handshake within this many ms of being accepted is closed: default
     * 10000 (10 s). It covers everything from the accept to HELLO_OK: the TLS handshake, HELLO, every authentication
     * round and the login module's answer, however slowly the bytes arrive.
     */
    public static final Setting<Integer> HANDSHAKE_TIMEOUT_MILLIS = Setting.integer("handshakeTimeoutMillis", 10_000)
            .atLeast(1);

    /**
     * The longest frame accepted before the handshake completes (HELLO_OK), in bytes, counting the type byte and
     * payload: {@value} (8 KiB). The largest legitimate handshake frame is far smaller: a HELLO with a client name of a
     * few hundred characters, an AUTH with SCRAM's client-first message or PLAIN's user and password, an AUTH_RESPONSE
     * (about 100 bytes). A longer length prefix is refused at once, before any of its bytes are buffered, so a
     * connection that has not said who it is cannot make the server hold more than this for it.
     */
    public static final int HANDSHAKE_MAX_FRAME_LENGTH = 8 * 1024;

    /**
     * Most client connections the server holds over TCP and TLS together: default 10000. One more is refused (ERROR
     * TOO_MANY_CONNECTIONS). In-VM connections (the server's own flows and plugins) are not counted.
     */
    public static final Setting<Integer> MAX_CONNECTIONS = Setting.integer("maxConnections", 10_000).atLeast(1);

    /**
     * Most client connections from one IP address: default 1000, room for an application server's pool of a few
     * hundred connections, while one misbehaving host cannot take them all.
     */
    public static final Setting<Integer> MAX_CONNECTIONS_PER_ADDRESS = Setting.integer("maxConnectionsPerAddress", 1_000)
            .atLeast(1);

    /**
     * Most temporary queues one connection holds at once: default 1000. They also count against maxQueues; this keeps
     * one connection from spending that limit for everyone.
     */
    public static final Setting<Integer> MAX_TEMPORARY_QUEUES_PER_CONNECTION = Setting.integer(
            "maxTemporaryQueuesPerConnection", 1_000).atLeast(1);

    /** The smallest {@link #MAX_OUTBOUND_BYTES_PER_CONNECTION}: {@value} bytes (64 KiB). */
    public static final int MIN_OUTBOUND_BYTES_PER_CONNECTION = 64 * 1024;

    /**
     * Most bytes written for one connection and not yet taken by its socket before the server stops reading that
     * connection: default 4194304 (4 MiB), at least {@link #MIN_OUTBOUND_BYTES_PER_CONNECTION}. A client that sends
     * requests without reading their answers (or a partner flooding CHANNEL_FAST_CONFIRM) would otherwise make the
     * server hold its answers without bound; past this the server reads nothing more from it until its peer has taken
     * half of them, and the answers waiting stay at about this much plus one read's worth. Message bodies do not count
     * (a delivery's is bounded by its consumer's credit already) but on a TLS connection, where a consumer of messages
     * larger than this has its acknowledgements read a little later while one is on its way. A connection whose
     * reading is held this way is not closed for silence while its peer still takes what is sent.
     */
    public static final Setting<Integer> MAX_OUTBOUND_BYTES_PER_CONNECTION = Setting.integer(
            "maxOutboundBytesPerConnection", 4 * 1024 * 1024).atLeast(MIN_OUTBOUND_BYTES_PER_CONNECTION);

    // ---- administration (docs/operations.md) ----

    /**
     * How long an administrator's change that stores or removes messages (delete, clear, move or copy a queue's
     * messages) waits for the store to make it durable before it answers: {@value} ms. A journal slower than that is
     * failing, and the answer says so.
     */
    public static final long ADMIN_STORE_WAIT_MILLIS = 30_000;
}
