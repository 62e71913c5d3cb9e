package org.wharfmq.server.replication;

import org.apache.ratis.proto.RaftProtos.AppendEntriesRequestProto;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.server.protocol.TermIndex;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * When the active member's appender owes a replica a heartbeat ({@link OneAppendRpc#heartbeatWait}): at most a quarter
 * of the election timeout's minimum after anything was last sent to it, however recently it answered; sooner when
 * Ratis's own rule says so. A request without a previous entry commits no further than the entries it carries
 * ({@link OneAppendRpc#commitSent}).
 */
class OneAppendRpcTest {

    /** Ratis's election timeout minimum here, and the interval it gives. */
    private static final long MIN_MS = ReplicationConfiguration.ELECTION_TIMEOUT_MILLIS.defaultValue();
    private static final long INTERVAL_MS = ReplicationConfiguration.heartbeatIntervalMillis(MIN_MS);

    @Test
    void theIntervalIsAQuarterOfTheElectionTimeoutsMinimumAndATooShortTimeoutIsRefused() {
        assertEquals(250, INTERVAL_MS);
        assertTrue(INTERVAL_MS * ReplicationConfiguration.HEARTBEATS_PER_ELECTION_TIMEOUT <= MIN_MS);
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> ReplicationConfiguration.heartbeatIntervalMillis(3));
        assertTrue(refused.getMessage().contains("give at least 4 ms"), refused.getMessage());
    }

    @Test
    void aHeartbeatIsDueOnceNothingWasSentForTheIntervalHoweverLongAgoTheReplicaAnswered() {
        // Ratis would wait 500 ms more (an answer just came, none due for half the minimum)
        long ratis = MIN_MS / 2;
        assertEquals(INTERVAL_MS, OneAppendRpc.heartbeatWait(ratis, 0, INTERVAL_MS));
        assertEquals(10, OneAppendRpc.heartbeatWait(ratis, INTERVAL_MS - 10, INTERVAL_MS));
        assertTrue(OneAppendRpc.heartbeatWait(ratis, INTERVAL_MS, INTERVAL_MS) <= 0, "not due at the interval");
    }

    @Test
    void aReplicaThatDoesNotAnswerIsSentOneRequestPerInterval() {
        long unanswered = ReplicationConfiguration.UNANSWERED_AFTER_HEARTBEATS * INTERVAL_MS;
        // no answer for two intervals, nothing in flight: the next request an interval after the last
        assertEquals(INTERVAL_MS, OneAppendRpc.unansweredHold(unanswered, 0, false, INTERVAL_MS));
        assertEquals(10, OneAppendRpc.unansweredHold(unanswered + 5_000, INTERVAL_MS - 10, false, INTERVAL_MS));
        assertEquals(0, OneAppendRpc.unansweredHold(unanswered, INTERVAL_MS, false, INTERVAL_MS), "held past its turn");
        // one that answered within two intervals, or with a request in flight (its answer awaited): not held
        assertEquals(0, OneAppendRpc.unansweredHold(unanswered - 1, 0, false, INTERVAL_MS));
        assertEquals(0, OneAppendRpc.unansweredHold(unanswered + 5_000, 0, true, INTERVAL_MS));
    }

    @Test
    void aRequestWithoutAPreviousEntryCommitsNoFurtherThanTheEntriesItCarries() throws Exception {
        // a heartbeat while an append is in flight, or to a replica whose next index is 0: Ratis's follower commits
        // its index 0 from it, whatever it holds there (the stuck replica of ReplicatedFailoverTest)
        AppendEntriesRequestProto heartbeat = request(null, 6282);
        assertEquals(0, ratisFollowerCommits(heartbeat), "Ratis's own rule (an upgrade that fixes it shows here)");
        assertEquals(-1, ratisFollowerCommits(OneAppendRpc.commitSent(heartbeat)), "nothing unchecked committed");
        // the entries from index 0: Ratis's follower commits one entry past the last it was sent
        AppendEntriesRequestProto fromTheStart = request(null, 6282, 0, 1, 2);
        assertEquals(3, ratisFollowerCommits(fromTheStart));
        assertEquals(2, ratisFollowerCommits(OneAppendRpc.commitSent(fromTheStart)));
        assertEquals(List.of(0L, 1L, 2L), OneAppendRpc.commitSent(fromTheStart).getEntriesList().stream()
                .map(LogEntryProto::getIndex).toList(), "the entries as they were");
        // from after a snapshot (index 100): Ratis's follower's bound is below the entries already, nothing changes
        AppendEntriesRequestProto afterASnapshot = request(null, 6282, 101, 102);
        assertEquals(ratisFollowerCommits(afterASnapshot), ratisFollowerCommits(OneAppendRpc.commitSent(afterASnapshot)));
        // with a previous entry the follower checks it, and commits at most the last entry sent: left as it is
        AppendEntriesRequestProto after = request(TermIndex.valueOf(3, 9), 6282, 10, 11);
        assertSame(after, OneAppendRpc.commitSent(after));
        assertEquals(11, ratisFollowerCommits(after));
        // a commit index already within the entries sent is left as it is
        AppendEntriesRequestProto within = request(null, 1, 0, 1, 2);
        assertSame(within, OneAppendRpc.commitSent(within));
    }

    /** An append (a heartbeat without entries) naming {@code previous} (null: none) and the leader's commit index. */
    private static AppendEntriesRequestProto request(TermIndex previous, long leaderCommit, long... indexes) {
        AppendEntriesRequestProto.Builder b = AppendEntriesRequestProto.newBuilder().setLeaderTerm(3)
                .setLeaderCommit(leaderCommit);
        if (previous != null) {
            b.setPreviousLog(previous.toProto());
        }
        for (long index : indexes) {
            b.addEntries(LogEntryProto.newBuilder().setTerm(3).setIndex(index));
        }
        return b.build();
    }

    /**
     * The commit index a Ratis follower takes from {@code request} once it has appended its entries: its own rule,
     * {@code ServerImplUtils.effectiveCommitIndex} (package-private in Ratis 3.2.1, called by reflection).
     */
    private static long ratisFollowerCommits(AppendEntriesRequestProto request) throws Exception {
        Method rule = Class.forName("org.apache.ratis.server.impl.ServerImplUtils")
                .getDeclaredMethod("effectiveCommitIndex", long.class, TermIndex.class, int.class);
        rule.setAccessible(true);
        TermIndex previous = request.hasPreviousLog() ? TermIndex.valueOf(request.getPreviousLog()) : null;
        return (long) rule.invoke(null, request.getLeaderCommit(), previous, request.getEntriesCount());
    }

    @Test
    void ratissRuleStandsWhenItIsDueSooner() {
        // a heartbeat Ratis asks for (a leadership transfer): now
        assertEquals(0, OneAppendRpc.heartbeatWait(0, 0, INTERVAL_MS));
        assertEquals(100, OneAppendRpc.heartbeatWait(100, 0, INTERVAL_MS));
    }
}
