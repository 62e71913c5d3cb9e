package org.wharfmq.server.replication;

import org.wharfmq.server.config.Setting;

import java.nio.file.Path;
import java.time.Duration;

/**
 * The replicated queue manager's settings and the replicated log's named defaults (docs/resilience.md, "Replicated
 * queue manager"): each key of the {@code replication:} block one {@link Setting} here (those of its {@code tls:}
 * block in {@link Tls}), which {@link ReplicationSettings} reads, checks and shows with no code of a setting's own;
 * the keys of each entry of the list {@code members:} are {@link MemberEntry}'s, read by {@link Membership}. The other constants are fixed. Tests shorten the timings
 * through {@link Timings}.
 */
public final class ReplicationConfiguration {

    /** The replicated queue manager's name, the same on every member: required. */
    public static final Setting<String> GROUP = Setting.text("group", null);

    /** Which member this instance is (the command line's {@code --replica} overrides it): none by default. */
    public static final Setting<String> MEMBER = Setting.text("member", null);

    /** The directory inside a member's data directory holding its Raft log and snapshots. */
    public static final String DIRECTORY = "replication";
    /** The least election timeout a member takes: four heartbeats within it must leave a replica room to answer. */
    public static final long MIN_ELECTION_TIMEOUT_MILLIS = 100;
    /**
     * The election timeout's minimum, in milliseconds: a replica that has heard nothing from the active member for a
     * random time between this and {@link #ELECTION_TIMEOUT_SPREAD} times this starts an election (Raft's randomised
     * timeout; Ratis's {@code raft.server.rpc.timeout.min} and {@code .max}), and one that heard from it within this
     * refuses another member's (pre-)vote. It is the trade-off between failover time and pauses (docs/resilience.md,
     * "The election timeout"): after a kill -9 the first replica notices within one to three of it (the rest of a
     * failover is the
     * election, the takeover and the clients' reconnection), and an active member whose process stands still for
     * longer than it (a stop-the-world pause, a starved machine, SIGSTOP) loses the leadership, and with it its
     * clients for a failover; it rejoins as a replica in its process. One second: a failover in seconds, as IBM MQ's
     * Native HA and Artemis have; raise it where the active member's pauses (the JVM's safepoint logs) come near it.
     * Give every member the same.
     */
    public static final Setting<Long> ELECTION_TIMEOUT_MILLIS = Setting.whole("electionTimeoutMillis", 1000)
            .check(n -> n != null && n >= MIN_ELECTION_TIMEOUT_MILLIS && n <= 60_000, n -> "must be "
                    + MIN_ELECTION_TIMEOUT_MILLIS + " to 60000 milliseconds (the default is 1000: a failover in "
                    + "seconds; raise it above the active member's longest pause), was " + n);
    /**
     * The election timeout's maximum is this many times its minimum. Ratis's follower sleeps a random timeout between
     * the two and then checks whether it heard from the active member for as long, so after a kill -9 the first of two
     * replicas starts an election after the rest of its current sleep and a whole one more: 1.5 times the minimum at
     * the median with this spread, where twice it gave 1.8 times (a model of Ratis 3.2.1's timer, docs/resilience.md).
     * The randomness left (half the minimum: 500 ms by default) keeps the two replicas' elections apart, and the
     * shorter maximum makes an active member cut off from both step down sooner (Ratis's check of its majority). The
     * minimum, which decides which pauses cost a failover, is unchanged.
     */
    public static final double ELECTION_TIMEOUT_SPREAD = 1.5;
    /**
     * Whether a replica that hears nothing from the active member for {@link #PROBE_AFTER_HEARTBEATS} heartbeat
     * intervals connects to its replication address, and, when the connection is refused or closed at once (the
     * member's process is gone: a kill -9, a crash, its replication closed), asks for the votes at once instead of
     * waiting out the election timeout ({@link ActiveMemberProbe}): a kill's election about 0.6 s after it instead of
     * 1.5 s at the median. A member that is there (paused, slow, or its connection held open by the network) is left
     * to the election timeout, as is a host that stopped answering. On by default (since session 30); {@code false}
     * leaves every election to the timeout. (Sessions 28 and 29 left it off after {@code ReplicatedFailoverTest}'s
     * switchover hung with it on: a deadlock in Ratis's own log close, which {@link LogCacheEviction} now prevents, the
     * probe's code on neither thread; session 29's two failed runs were the test's limits against JVM starts.)
     */
    public static final Setting<Boolean> PROBE_ACTIVE_MEMBER = Setting.flag("probeActiveMember", true);
    /**
     * The heartbeat intervals without a word from the active member after which the first replica by id probes it
     * ({@link #PROBE_ACTIVE_MEMBER}; the others leave it to the election timeout, so that two do not split the vote):
     * 1.25, 312 ms by default. The probe decides nothing by itself (a member that is there holds the connection), so
     * the threshold only weighs the kill's election against the connections a live active member is sent: one for a
     * heartbeat more than a quarter interval late, held a heartbeat interval and closed. Two intervals (before session
     * 30) put a kill's probe 0.64 to 0.96 s after it, the clients' work going on meanwhile (their appends keep the
     * silence at zero until the kill).
     */
    public static final double PROBE_AFTER_HEARTBEATS = 1.25;
    /**
     * How often, per heartbeat interval, the first replica looks at the active member's silence: four (every 62 ms by
     * default), so that its probe comes at most that long after {@link #PROBE_AFTER_HEARTBEATS}; each look reads the
     * member's role from Ratis, nothing more.
     */
    public static final int PROBE_CHECKS_PER_HEARTBEAT = 4;
    /**
     * The active member sends a replica a heartbeat whenever it has sent it nothing for the election timeout's minimum
     * divided by this ({@link #heartbeatIntervalMillis}: 250 ms by default), an append in flight or not. A replica that
     * heard from the active member within the election timeout's minimum refuses another member's (pre-)vote, and one
     * that heard nothing for its election timeout starts an election; Ratis's own rule (a heartbeat once no answer
     * came for half the minimum) left a replica one chance within it, which a starved machine's delays could miss,
     * and an election followed. Four chances leave room for those delays ({@link OneAppendRpc}). A member that does not
     * lead also has its channels to the others that failed connect again at this interval, rather than after gRPC's
     * growing backoff ({@link PeerReconnects}): a member back after a kill is reached by the next election.
     */
    public static final int HEARTBEATS_PER_ELECTION_TIMEOUT = 4;
    /**
     * The heartbeat intervals after which the active member takes a replica with nothing in flight to it and no answer
     * from it for one that does not answer (its process gone, its host cut off), and sends it one request per heartbeat
     * interval, not one per entry appended ({@link OneAppendRpc}): two, 500 ms by default. A replica that runs answers
     * within one interval of each request: an idle one's heartbeat answer comes a round trip after each heartbeat.
     */
    public static final int UNANSWERED_AFTER_HEARTBEATS = 2;
    /**
     * Every member, the active one included, takes a snapshot once the log entries it applied since its latest hold
     * this many bytes, and Ratis then purges its log up to it (whole files of {@link #LOG_FILE_BYTES}): so a
     * member's Raft log holds about this much and a file, however long it runs, and a restart applies at most
     * this much of it again. A snapshot copies the member's journal (its live data and slack): fewer bytes here would
     * copy the journal more often for the same traffic. At least {@link #LOG_FILE_BYTES} (checked by
     * {@link ReplicationSettings}, as it depends on that setting) and at least {@link #MIN_LOG_FILE_BYTES} here.
     */
    public static final Setting<Long> SNAPSHOT_LOG_BYTES = Setting.whole("snapshotLogBytes", 256L << 20)
            .check(n -> n != null && n >= ReplicationConfiguration.MIN_LOG_FILE_BYTES, n -> "must be at least one log "
                    + "file's bytes, as only whole log files are purged after a snapshot: give "
                    + ReplicationConfiguration.MIN_LOG_FILE_BYTES + " or more, and at least logFileBytes (the default "
                    + "is " + (256L << 20) + "), was " + n);
    /** The least {@link #LOG_FILE_BYTES}: 1 MiB, well above Ratis's own records. */
    public static final long MIN_LOG_FILE_BYTES = 1L << 20;
    /**
     * The largest Raft log file (Ratis's segment); only whole closed files are purged after a snapshot, so a member's
     * log holds up to {@link #SNAPSHOT_LOG_BYTES} and one file. 32 MiB by default ({@link #LOG_SEGMENT_BYTES}); a
     * smaller one, with a smaller {@code snapshotLogBytes}, keeps a small queue manager's log on disk small (and
     * makes a test's log purge after a few MiB). An entry larger than a file (up to {@link #MAX_BATCH_BYTES}) goes in
     * a file of its own.
     */
    public static final Setting<Long> LOG_FILE_BYTES = Setting.whole("logFileBytes",
                    ReplicationConfiguration.LOG_SEGMENT_BYTES)
            .check(n -> n != null && n >= ReplicationConfiguration.MIN_LOG_FILE_BYTES && n <= 1L << 30,
                    n -> "must be " + ReplicationConfiguration.MIN_LOG_FILE_BYTES + " to " + (1L << 30) + " bytes (the "
                            + "default is " + ReplicationConfiguration.LOG_SEGMENT_BYTES + "), was " + n);
    /** The snapshots a member keeps (the latest two): older ones are deleted after each new one. */
    public static final int SNAPSHOTS_KEPT = 2;
    /**
     * How long a replica's request for a snapshot waits for it (its state machine copies its journal) before it is
     * given up and asked again after as many bytes more.
     */
    public static final Duration SNAPSHOT_TIMEOUT = Duration.ofMinutes(10);
    /**
     * The directory inside the active member's data directory where it builds a snapshot from its log (its journal
     * is the live queue manager's): a journal of a replica's, deleted once the snapshot is written.
     */
    public static final String SNAPSHOT_SCRATCH_DIRECTORY = "replication-snapshot";
    /**
     * The most journal bytes one log entry carries, so that every entry fits Ratis's default limits (its appender's
     * buffer and largest log record, 4 MiB; the rest of 4 MiB is room for the entry's own fields): a batch is cut
     * into entries of at most this between records, and a larger record (a large message's) goes in pieces of this
     * size, which the members join again before they apply it ({@link ChunkJoiner}).
     */
    public static final int MAX_BATCH_BYTES = (4 << 20) - (4 << 10);
    /**
     * The pieces of one large record the active member has handed to Ratis and not yet seen committed: the next waits
     * for the oldest's commit, so a record of any size keeps at most this many pieces (16 MiB) in Ratis's queues,
     * within its default limits (64 MiB of pending appends).
     */
    public static final int PIECES_IN_FLIGHT = 4;
    /** Room in a record, beyond {@code maxMessageLength}, for the fields of the message's journal record. */
    public static final int RECORD_ROOM = 64 << 10;
    /**
     * The largest {@code maxMessageLength} a replicated queue manager takes: each member joins a large record's
     * pieces on its heap, in one array.
     */
    public static final int MAX_MESSAGE_LENGTH = 1 << 30;
    /**
     * How often at most a member warns that it refused a replication peer's certificate ({@link MemberCertificateCheck}):
     * a peer without the group's credentials is refused at every attempt (a heartbeat's, a vote's), and one warning a
     * minute, counting the others, says who knocks without filling the log.
     */
    public static final Duration REFUSAL_WARNING_EVERY = Duration.ofMinutes(1);
    /** How long a starting member waits for the others' settings ({@link SettingsCheck}). */
    public static final Duration SETTINGS_CHECK_TIMEOUT = Duration.ofSeconds(3);
    /**
     * How long a change that the whole group must have (a definition made at run time, a switchover) waits for the
     * group's answer before it is reported as failed.
     */
    public static final Duration CHANGE_TIMEOUT = Duration.ofSeconds(30);
    /**
     * How long a member that stopped being the active instance stays in the group, waiting for another member to lead,
     * before it closes its log to rejoin as a replica: its vote may be needed for that (a switchover's chosen member
     * asks it).
     */
    public static final Duration SUCCESSOR_WAIT = Duration.ofSeconds(10);
    /**
     * Appends the active member keeps in flight to each replica: one. A replica of Ratis 3.2.1 writes and forces one
     * append's entries only once the previous append's are forced, so appends in flight (Ratis's default is 8) each
     * carry the one or two batches ready when they left and wait in line for a force each; with one, the next append
     * leaves when the previous is answered and carries every batch the journal wrote meanwhile, one force for all of
     * them on each member (docs/performance-log.md, "Replicated queue manager: one append in flight"). Meanwhile
     * the active member sends that replica nothing else unless a heartbeat is due ({@link OneAppendRpc}).
     */
    public static final int APPENDS_IN_FLIGHT = 1;
    /**
     * Whether the active member writes Ratis's log metadata entries ({@code raft.server.log.log-metadata.enabled},
     * Ratis's default true): after every commit, one more entry recording the commit index, so that a member restarted
     * without the others can apply what was committed before it hears from them. Off: each was one more append, and
     * one more force, on every member after every commit, and with one append in flight the next batch waited for
     * it. A restarted member applies its log once an active member tells it the commit index (at the latest the new
     * term's first entry, before any member takes over); a confirmation is a majority's forced log as before.
     */
    public static final boolean LOG_METADATA = false;
    /**
     * How long a fenced member holds the failures of its batches for its caller to stop serving clients
     * ({@link ReplicationMember#stoppedServing}) before it lets them go all the same (a queue manager whose start
     * failed after the fence closes its store, which waits for them): above a queue manager's start on a loaded
     * machine.
     */
    public static final Duration STOP_SERVING_WAIT = Duration.ofSeconds(60);
    /**
     * The JVM pause after which Ratis would close a member's Raft server itself (its {@code raft.server.close.threshold},
     * 60 s by default): far beyond any pause, so never in practice. A paused member loses the leadership and rejoins
     * as a replica, in its process; a closed log would leave it neither serving nor following.
     */
    public static final Duration RATIS_CLOSE_AFTER_PAUSE = Duration.ofDays(365);
    /**
     * How long closing a member waits, after an entry it could not apply stopped it (fail-stop: Ratis closes it on its
     * own thread), for that close to release its log directory, so that the member may be started again at once.
     */
    public static final Duration FAIL_STOP_CLOSE_WAIT = Duration.ofSeconds(30);
    /** The largest Raft log segment file by default ({@link #LOG_FILE_BYTES}). */
    public static final long LOG_SEGMENT_BYTES = 32L << 20;
    /**
     * The closed Raft log segments whose entries a member keeps in its heap besides the open one, for replicas that
     * fall a little behind; older entries are read back from disk. Ratis's default, six, held up to 200 MiB.
     */
    public static final int LOG_CACHE_SEGMENTS = 2;
    /** The most bytes of Raft log entries a member keeps in its heap before it lets closed segments' entries go. */
    public static final long LOG_CACHE_BYTES = 64L << 20;

    private ReplicationConfiguration() {
    }

    /**
     * The longest the active member leaves a replica without sending it anything: the election timeout's minimum
     * divided by {@link #HEARTBEATS_PER_ELECTION_TIMEOUT}. Refused below 1 ms (an election timeout too short to keep
     * to).
     */
    public static long heartbeatIntervalMillis(long electionTimeoutMinMillis) {
        long interval = electionTimeoutMinMillis / HEARTBEATS_PER_ELECTION_TIMEOUT;
        if (interval < 1) {
            throw new IllegalArgumentException("The election timeout's minimum (" + electionTimeoutMinMillis + " ms) "
                    + "leaves no heartbeat interval: the active member sends each replica a heartbeat every "
                    + HEARTBEATS_PER_ELECTION_TIMEOUT + "th of it at least; give at least "
                    + HEARTBEATS_PER_ELECTION_TIMEOUT + " ms.");
        }
        return interval;
    }

    /**
     * The keys of the {@code replication.tls:} block, which members authenticate each other with (mutual TLS, always):
     * both stores are required.
     */
    public static final class Tls {

        /** This member's key and certificate (naming its host), a PKCS#12 file. */
        public static final Setting<Path> KEY_STORE = Setting.file("keyStore");

        /** The key store's password: none by default. */
        public static final Setting<String> KEY_STORE_PASSWORD = Setting.text("keyStorePassword", null).secret();

        /** The CA every member's certificate chains to (for the replication alone), a PKCS#12 file. */
        public static final Setting<Path> TRUST_STORE = Setting.file("trustStore");

        /** The trust store's password: none by default. */
        public static final Setting<String> TRUST_STORE_PASSWORD = Setting.text("trustStorePassword", null).secret();

        private Tls() {
        }
    }

    /**
     * The keys of an entry of {@code replication.members:}, one founding member of the group ({@link Membership}):
     * every member needs all three.
     */
    public static final class MemberEntry {

        /** What every entry needs, as errors say it. */
        private static final String EVERY = "every member needs id, address (host:port) and dataDirectory";

        /** {@code id}: the member's, unique in the group (1 to 64 letters, digits, '.', '_' or '-'); required. */
        public static final Setting<String> ID = Setting.text("id", null).required("must be given: " + EVERY);

        /**
         * {@code address}: host:port of the member's replication listener (not the clients' port), where the others
         * reach it; required.
         */
        public static final Setting<String> ADDRESS = Setting.text("address", null).required("must be given: " + EVERY)
                .check(a -> Member.port(a) >= 0, a -> "must be host:port, the member's replication address, was '"
                        + a + "'");

        /** {@code dataDirectory}: the member's own data directory (never shared with another member); required. */
        public static final Setting<String> DATA_DIRECTORY = Setting.text("dataDirectory", null)
                .required("must be given: " + EVERY);

        /**
         * {@code httpUrl}: where the member's HTTP listener is reached ({@code https://mq2:7480}, its {@code http:}
         * block), which a replica's HTTP listener names when asked for the web console the active member serves
         * (docs/resilience.md, "A member's own status"); none by default (the replica then says it does not know it).
         */
        public static final Setting<String> HTTP_URL = Setting.text("httpUrl", null)
                .whenSet(Member::isHttpUrl, u -> "must be the member's HTTP listener as http://HOST:PORT or "
                        + "https://HOST:PORT, was '" + u + "'");

        private MemberEntry() {
        }
    }

    /**
     * The largest batch a member of a queue manager whose messages are at most {@code maxMessageLength} bytes takes
     * from the log: the journal record of its largest message. Every member of a group must use the same
     * ({@link SettingsCheck}).
     */
    public static int maxRecordBytes(int maxMessageLength) {
        if (maxMessageLength < 1 || maxMessageLength > MAX_MESSAGE_LENGTH) {
            throw new IllegalArgumentException("maxMessageLength is " + maxMessageLength + " bytes, but a replicated "
                    + "queue manager's members join a message's record in one array of at most " + MAX_MESSAGE_LENGTH
                    + " bytes (ReplicationConfiguration.MAX_MESSAGE_LENGTH): set maxMessageLength to "
                    + MAX_MESSAGE_LENGTH + " or less.");
        }
        return Math.max(MAX_BATCH_BYTES, maxMessageLength + RECORD_ROOM);
    }

    /**
     * How fast members elect a leader (and whether a replica probes a silent active member,
     * {@link #PROBE_ACTIVE_MEMBER}), how often they take snapshots and how large their log's segments are.
     */
    public record Timings(Duration electionTimeoutMin, Duration electionTimeoutMax, long snapshotEveryLogBytes,
                          long logSegmentBytes, boolean probeActiveMember) {

        public static final Timings DEFAULT = of(ELECTION_TIMEOUT_MILLIS.defaultValue(),
                SNAPSHOT_LOG_BYTES.defaultValue());

        /** These timings with the active member probed ({@link #PROBE_ACTIVE_MEMBER}'s default). */
        public Timings(Duration electionTimeoutMin, Duration electionTimeoutMax, long snapshotEveryLogBytes,
                       long logSegmentBytes) {
            this(electionTimeoutMin, electionTimeoutMax, snapshotEveryLogBytes, logSegmentBytes,
                    PROBE_ACTIVE_MEMBER.defaultValue());
        }

        /** These timings, the active member probed or not. */
        public Timings probing(boolean probe) {
            return new Timings(electionTimeoutMin, electionTimeoutMax, snapshotEveryLogBytes, logSegmentBytes, probe);
        }

        /**
         * An election timeout between {@code electionTimeoutMillis} and {@link #ELECTION_TIMEOUT_SPREAD} times it, a
         * snapshot every {@code snapshotEveryLogBytes}, log segments of {@link #LOG_SEGMENT_BYTES}.
         */
        public static Timings of(long electionTimeoutMillis, long snapshotEveryLogBytes) {
            return of(electionTimeoutMillis, snapshotEveryLogBytes, LOG_SEGMENT_BYTES);
        }

        /** {@link #of(long, long)} with log segments of {@code logSegmentBytes} ({@link #LOG_FILE_BYTES}). */
        public static Timings of(long electionTimeoutMillis, long snapshotEveryLogBytes, long logSegmentBytes) {
            return new Timings(Duration.ofMillis(electionTimeoutMillis),
                    Duration.ofMillis(Math.round(ELECTION_TIMEOUT_SPREAD * electionTimeoutMillis)),
                    snapshotEveryLogBytes, logSegmentBytes);
        }

        public Timings {
            if (electionTimeoutMin.compareTo(electionTimeoutMax) >= 0) {
                throw new IllegalArgumentException("The election timeout's minimum (" + electionTimeoutMin
                        + ") must be below its maximum (" + electionTimeoutMax + ").");
            }
            heartbeatIntervalMillis(electionTimeoutMin.toMillis());
            if (snapshotEveryLogBytes < 1 || logSegmentBytes < 1) {
                throw new IllegalArgumentException("snapshotEveryLogBytes and logSegmentBytes must be positive");
            }
        }
    }
}
