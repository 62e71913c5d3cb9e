package org.wharfmq.server.store;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.server.FreePorts;
import org.wharfmq.server.it.LargeMessages;

import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.Session;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * Issue 22's promise for failover to a standby: the workload of {@link ServerRestartReconnectTest} (request/reply
 * clients and a transacted persistent producer/consumer pair, {@link ReconnectWorkload}, which has the checks) keeps
 * running across failovers between two real server processes on one data directory, listening on two ports, with
 * clients whose URL names both: the active one is killed with SIGKILL, the standby (waiting on the data directory's
 * lock) takes over on its port, a new standby is started on the port just freed, and so on, alternating. Nothing may be
 * lost and no persistent message delivered twice without JMSRedelivered; here the client's marks matter more than after
 * a restart, since the standby knows of the active's deliveries only what reached the journal. A 20 MB persistent
 * message waits on a queue of its own through every failover and is received byte for byte after the last.
 *
 * <p>Measures, per failover, the time from kill -9 to the standby's ready line and to the clients working again on it
 * (their first operations begun after the kill), and prints them with the median and max.
 *
 * <p>Failovers: {@code -Dwharf.it.failovers=N} (default 3, a CI budget that goes both ways between the ports; issue 22
 * asks for 20, run by hand: docs/resilience.md has the result).
 */
@Tag("slow")
class StandbyFailoverTest {

    private static final int FAILOVERS = Integer.getInteger("wharf.it.failovers", 3);
    private static final String LARGE_QUEUE = "FAILOVER.LARGE";
    private static final int LARGE_SEED = 20;
    /** JournalMessageStore's line at the end of recovery. */
    private static final Pattern RECOVERED =
            Pattern.compile("Journal .* recovered in ([0-9.]+ s): .*, (\\d+) records read");

    @TempDir
    Path data;

    @Test
    @Timeout(value = 600, unit = TimeUnit.SECONDS)
    void requestReplyAndATransactedPairKeepRunningAcrossFailoversToTheStandby() throws Exception {
        int[] ports = FreePorts.take(2);
        String both = "tcp://127.0.0.1:" + ports[0] + ",tcp://127.0.0.1:" + ports[1];
        ReconnectWorkload workload = new ReconnectWorkload(both);
        List<ReconnectWorkload.Recovery> recoveries = new ArrayList<>();
        List<Long> takeovers = new ArrayList<>();
        ServerProcess active = ServerProcess.start(data, ports[0]);
        ServerProcess standby = ServerProcess.startStandby(data, ports[1]);
        try {
            sendLargeMessage(active);
            workload.start();
            for (int round = 0; round <= FAILOVERS; round++) {
                workload.awaitRound(active);
                if (round < FAILOVERS) {
                    int freed = active.port();
                    ReconnectWorkload.Outage outage = workload.kill(active);
                    outage.release(); // at once: nothing but the standby's takeover should stand between them and work
                    int took = standby.awaitReady(60);
                    long ready = System.nanoTime() - outage.killedAt();
                    assertEquals(freed == ports[0] ? ports[1] : ports[0], took, "the standby listens on its own port");
                    ReconnectWorkload.Recovery recovery = outage.awaitWorking(standby);
                    takeovers.add(ready);
                    recoveries.add(recovery);
                    System.out.printf("StandbyFailoverTest: failover %d of %d (:%d killed, :%d took over): standby"
                            + " ready after %.0f ms (its journal recovered in %s); %s%n", round + 1, FAILOVERS, freed,
                            took, ready / 1e6, recoveryTime(standby), recovery);
                    active = standby;
                    // only now, so that its start does not compete with the takeover being measured
                    standby = ServerProcess.startStandby(data, freed);
                }
            }
            workload.finish();
            receiveLargeMessage(active);
        } finally {
            workload.stopNow();
            standby.close(); // first: closing the active would hand the directory to it
            active.close();
        }
        workload.verify();
        System.out.println("StandbyFailoverTest: " + FAILOVERS + " failovers; " + workload.report() + "; kill -9 to the"
                + " standby's ready line " + ReconnectWorkload.medianAndMax(takeovers) + "; "
                + ReconnectWorkload.summary(recoveries));
    }

    /**
     * A 20 MB persistent message, sent before the first failover and received after the last: the journal's large
     * records cross every takeover whole. It waits on a queue of its own, beside the workload's.
     */
    private static void sendLargeMessage(ServerProcess active) throws JMSException {
        try (Connection connection = new WharfConnectionFactory(active.url()).createConnection()) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            session.createProducer(session.createQueue(LARGE_QUEUE)).send(
                    LargeMessages.message(session, LargeMessages.TWENTY_MB, LARGE_SEED), DeliveryMode.PERSISTENT, 4, 0);
        }
    }

    private static void receiveLargeMessage(ServerProcess active) throws JMSException {
        try (Connection connection = new WharfConnectionFactory(active.url()).createConnection()) {
            connection.start();
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageConsumer consumer = session.createConsumer(session.createQueue(LARGE_QUEUE));
            Message received = consumer.receive(60_000);
            assertNotNull(received, "the 20 MB persistent message sent before the first failover");
            assertEquals(LARGE_SEED, LargeMessages.assertIntact(received), "byte for byte, after " + FAILOVERS + " takeovers");
            assertNull(consumer.receiveNoWait(), "once");
        }
    }

    /** The time the standby's log gives for recovering the journal, the largest part of its takeover. */
    private static String recoveryTime(ServerProcess standby) {
        Matcher m = RECOVERED.matcher(standby.outputSoFar());
        return m.find() ? m.group(1) + ", " + m.group(2) + " records read" : "(not logged)";
    }
}
