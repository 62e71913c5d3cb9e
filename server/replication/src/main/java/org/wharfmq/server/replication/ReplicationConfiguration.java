package org.wharfmq.server.replication;

import java.time.Duration;

/**
 * The replicated log's named defaults (docs/resilience.md, "Replicated queue manager"). Tests shorten the timings
 * through {@link Timings}.
 */
public final class ReplicationConfiguration {

    /** The directory inside a member's data directory holding its Raft log and snapshots. */
    public static final String DIRECTORY = "replication";
    /** A follower that has heard nothing from the leader for a random time between these starts an election. */
    public static final Duration ELECTION_TIMEOUT_MIN = Duration.ofMillis(1000);
    public static final Duration ELECTION_TIMEOUT_MAX = Duration.ofMillis(2000);
    /** A snapshot of the sink is taken every this many applied batches; the log before it is then purged. */
    public static final long SNAPSHOT_EVERY_BATCHES = 100_000;
    /**
     * Where a journal batch is cut into entries (between records): a batch larger than this goes in several entries,
     * so that the entries of small messages stay small (Ratis's appender sends a follower up to one entry limit at
     * once, and holds it in memory). The rest of 4 MiB is room for the entry's own fields.
     */
    public static final int MAX_BATCH_BYTES = (4 << 20) - (4 << 10);
    /** Room in an entry, beyond {@code maxMessageLength}, for the fields of the message's journal record. */
    public static final int RECORD_ROOM = 64 << 10;
    /** Room in a Ratis log entry, beyond its data, for the entry's own fields (term, index, client and call ids). */
    public static final int ENTRY_ROOM = 4 << 10;
    /**
     * The largest {@code maxMessageLength} a replicated queue manager takes: each member holds a log write buffer of
     * the largest entry (direct memory), and Ratis sizes its buffers and gRPC messages in {@code int}s.
     */
    public static final int MAX_MESSAGE_LENGTH = 1 << 30;
    /**
     * The slowest a member is assumed to take in an entry (TLS, its log's force): an append to a follower waits for
     * its answer at least as long as the largest entry takes at this rate (Ratis's 3 s otherwise), then sends it
     * again. A 100 MiB message's entry is given 12.5 s.
     */
    public static final long SLOWEST_MEMBER_BYTES_PER_SECOND = 8L << 20;
    /**
     * How long a change that the whole group must have (a definition made at run time, a switchover) waits for the
     * group's answer before it is reported as failed.
     */
    public static final Duration CHANGE_TIMEOUT = Duration.ofSeconds(30);
    /**
     * How long a member that stopped being the active instance stays in the group before its process ends, waiting
     * for another member to lead: its vote may be needed for that (a switchover's chosen member asks it).
     */
    public static final Duration SUCCESSOR_WAIT = Duration.ofSeconds(10);
    /** The largest Raft log segment file; only whole closed segments are purged after a snapshot. */
    public static final long LOG_SEGMENT_BYTES = 32L << 20;

    private ReplicationConfiguration() {
    }

    /**
     * The largest log entry of a queue manager whose messages are at most {@code maxMessageLength} bytes: one
     * message's journal record goes in one entry (a batch is cut between records, never inside one), so a record of
     * the largest message must fit. Never less than {@link #MAX_BATCH_BYTES}. Every member of a group must use the
     * same (the same {@code maxMessageLength}): a member reads entries only up to its own limit.
     */
    public static int maxEntryBytes(int maxMessageLength) {
        if (maxMessageLength < 1 || maxMessageLength > MAX_MESSAGE_LENGTH) {
            throw new IllegalArgumentException("maxMessageLength is " + maxMessageLength + " bytes, but a replicated "
                    + "queue manager carries a message in one log entry, of at most " + MAX_MESSAGE_LENGTH + " bytes "
                    + "(ReplicationConfiguration.MAX_MESSAGE_LENGTH): set maxMessageLength to " + MAX_MESSAGE_LENGTH
                    + " or less.");
        }
        return Math.max(MAX_BATCH_BYTES, maxMessageLength + RECORD_ROOM);
    }

    /** How fast members elect a leader and how often they take snapshots. */
    public record Timings(Duration electionTimeoutMin, Duration electionTimeoutMax, long snapshotEveryBatches,
                          long logSegmentBytes) {

        public static final Timings DEFAULT = new Timings(ELECTION_TIMEOUT_MIN, ELECTION_TIMEOUT_MAX,
                SNAPSHOT_EVERY_BATCHES, LOG_SEGMENT_BYTES);

        public Timings {
            if (electionTimeoutMin.compareTo(electionTimeoutMax) >= 0) {
                throw new IllegalArgumentException("The election timeout's minimum (" + electionTimeoutMin
                        + ") must be below its maximum (" + electionTimeoutMax + ").");
            }
            if (snapshotEveryBatches < 1 || logSegmentBytes < 1) {
                throw new IllegalArgumentException("snapshotEveryBatches and logSegmentBytes must be positive");
            }
        }
    }
}
