package org.wharfmq.server.replication;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.server.FreePorts;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link ActiveMemberProbe}: what its probe of a silent active member's replication address takes for gone, and a
 * replica's election asked at once when the active member stops, long before the election timeout would start one.
 */
class ActiveMemberProbeTest {

    private static final int PROBE_MILLIS = 250;

    @Test
    void aListenerThatHoldsTheConnectionIsThereEvenWhenItNeverAccepts() throws Exception {
        // a paused process's listener: the kernel completes the connection, nothing answers (a TLS listener waits for
        // the client's handshake)
        try (ServerSocket listener = new ServerSocket(0, 8, InetAddress.getLoopbackAddress())) {
            assertNull(ActiveMemberProbe.gone("127.0.0.1:" + listener.getLocalPort(), PROBE_MILLIS));
        }
    }

    @Test
    void aPortNothingListensOnIsGone() throws Exception {
        int port = FreePorts.one();
        String gone = ActiveMemberProbe.gone("127.0.0.1:" + port, PROBE_MILLIS);
        assertNotNull(gone, "a closed port was taken for a member that is there");
        assertTrue(gone.contains("refused"), gone);
    }

    @Test
    void aRelayThatClosesEachConnectionAtOnceIsGone() throws Exception {
        // a relay (a proxy, a load balancer) in front of a member that is down: it accepts, then closes
        try (ServerSocket relay = new ServerSocket(0, 8, InetAddress.getLoopbackAddress())) {
            Thread closer = new Thread(() -> {
                try (Socket accepted = relay.accept()) {
                    accepted.setSoLinger(true, 0); // reset, as a relay whose upstream refused
                } catch (IOException closed) {
                    // the test ended
                }
            });
            closer.setDaemon(true);
            closer.start();
            String gone = ActiveMemberProbe.gone("127.0.0.1:" + relay.getLocalPort(), 10_000);
            assertNotNull(gone, "a connection reset at once was taken for a member that is there");
            assertTrue(gone.contains("reset") || gone.contains("closed"), gone);
        }
    }

    /**
     * With an election timeout of 6 s (heartbeats every 1.5 s), the first replica probes the stopped active member
     * after 1.9 to 2.3 s without a word and has the election started then (Ratis's own timer could start one only after
     * 6 s): by the other replica, whose log holds as much as its own (both applied every batch), at the next term. Had
     * the first replica asked for the votes itself, it would have been elected; had the timer elected after a refused
     * request, at the term after.
     */
    @Test
    void whenTheActiveMemberStopsAReplicaAsksForTheVotesAtOnce(@TempDir Path dir) throws Exception {
        ReplicationConfiguration.Timings timings = new ReplicationConfiguration.Timings(Duration.ofSeconds(6),
                Duration.ofSeconds(9), 256L << 20, ReplicationConfiguration.LOG_SEGMENT_BYTES).probing(true);
        try (Trio trio = new Trio(dir, timings)) {
            int first = trio.awaitActive();
            for (int i = 0; i < 3; i++) {
                trio.log(first).append(RecordingSink.batch("batch " + i))
                        .get(Trio.WAIT.toSeconds(), TimeUnit.SECONDS);
            }
            for (int i = 0; i < 3; i++) {
                trio.awaitApplied(i, 3);
                assertEquals(0, trio.log(i).electionsAfterProbe(), "an election asked while the active member ran");
            }
            long term = trio.log(first).status().term();
            // the replica that probes: the first by id of the two others
            int asker = trio.log((first + 1) % 3).id().compareTo(trio.log((first + 2) % 3).id()) < 0
                    ? (first + 1) % 3 : (first + 2) % 3;
            int other = 3 - first - asker;
            trio.stop(first);

            int second = trio.awaitActive();
            assertEquals(other, second, "the replica that probed was elected itself, though the other's log held as "
                    + "much: it did not have the other start the election");
            assertEquals(term + 1, trio.log(second).status().term(), "elected after a term was lost: not at the "
                    + "probing replica's request");
            assertTrue(trio.log(asker).electionsAfterProbe() >= 1, "the probing replica had no election started");
            assertEquals(0, trio.log(other).electionsAfterProbe(), "the second replica asked too");
            trio.log(second).append(RecordingSink.batch("after"))
                    .get(Trio.WAIT.toSeconds(), TimeUnit.SECONDS);
            trio.awaitApplied(3 - first - second, 4);
        }
    }
}
