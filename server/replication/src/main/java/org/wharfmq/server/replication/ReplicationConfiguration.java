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
     * The largest batch one entry carries: Ratis refuses a log entry larger than its appender buffer's limit (4 MiB by
     * default: "Log entry size ... exceeds the max buffer limit"), as a state machine failure of the leader's; the
     * rest of the 4 MiB is room for the entry's own fields. A journal batch larger than this goes in several entries.
     */
    public static final int MAX_BATCH_BYTES = (4 << 20) - (4 << 10);
    /**
     * The largest message a replicated queue manager takes ({@code maxMessageLength} may not be more): its journal
     * record, with the record's fields, must fit in one entry.
     */
    public static final int MAX_MESSAGE_LENGTH = MAX_BATCH_BYTES - (64 << 10);
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
