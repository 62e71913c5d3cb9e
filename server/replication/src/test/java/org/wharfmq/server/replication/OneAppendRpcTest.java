package org.wharfmq.server.replication;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * When the active member's appender owes a replica a heartbeat ({@link OneAppendRpc#heartbeatWait}): at most a quarter
 * of the election timeout's minimum after anything was last sent to it, however recently it answered; sooner when
 * Ratis's own rule says so.
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
    void ratissRuleStandsWhenItIsDueSooner() {
        // a heartbeat Ratis asks for (a leadership transfer): now
        assertEquals(0, OneAppendRpc.heartbeatWait(0, 0, INTERVAL_MS));
        assertEquals(100, OneAppendRpc.heartbeatWait(100, 0, INTERVAL_MS));
    }
}
