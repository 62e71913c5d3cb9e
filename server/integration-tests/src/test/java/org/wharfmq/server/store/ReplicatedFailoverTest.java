package org.wharfmq.server.store;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.server.cli.FlowCommandAccess;

import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Session;
import javax.jms.TextMessage;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.wharfmq.server.store.ReplicatedGroup.admin;

/**
 * Issue 35's failover of a replicated queue manager: three {@code wharf server --replica ID} processes on loopback
 * ({@link ReplicatedGroup}, {@link org.wharfmq.server.it.LoopbackNetwork}), and the clients of
 * {@link ReconnectWorkload} (request/reply and a transacted persistent producer/consumer pair, with its checks:
 * nothing committed lost, nothing delivered twice unmarked) with the three client addresses. The active member is
 * killed with SIGKILL, a replica is elected and takes over on its own port from its own journal, the clients find
 * it; the killed member is started again and rejoins as a replica; once it is back in sync the second active member
 * is killed too, so the next one can only be elected with the rejoined member's vote and log, and the work goes on
 * there; its {@code display server} shows it LEADER with two of three in sync, the rejoined member among them, and so
 * do its metrics. A queue defined at run time on the first active member, with its messages, is on every later one.
 * Then a planned switchover to the rejoined member (to the third if the rejoined one was elected): the old active member
 * rejoins as a replica in its process; a pause of the active member (SIGSTOP until another one took over, then
 * SIGCONT): it stops serving and rejoins in its process, its process never ends; and a partition cutting the active
 * member off from both others: it stops serving, the other two go on, and it is back in sync once the cut heals
 * (docs/resilience.md lists the steps); last, a replica is killed, and the clients go on with the active member
 * without a reconnection. The active member is the one that says so when asked as an operator would
 * ({@code wharf admin display server}, {@link ReplicatedGroup#awaitActive}), not the one whose ready line came last:
 * under load a member may lose the role again moments after its takeover.
 *
 * <p>Issue 35's twenty kills are this test with {@code -Dwharf.it.replicatedKills=20} (and
 * {@code -Djunit.jupiter.execution.timeout.mode=disabled}: they take over ten minutes): after the two kills above, the
 * active member is killed again and again, each time, as the second, once the one killed before is back in sync (so
 * that a quorum always remains and each kill's failover is the same: not one that waits for a member's JVM to start),
 * while the transacted producer and consumer each hold a transaction open. It prints the times from each kill to the
 * clients working again, median and maximum (issue 35's measure).
 */
@Tag("slow")
class ReplicatedFailoverTest {

    private static final String[] IDS = ReplicatedGroup.IDS;
    private static final String RUNTIME_QUEUE = "RUNTIME.Q";
    private static final List<String> RUNTIME_QUEUE_MESSAGES = List.of("one", "two", "three");
    /** The kills of the active member: the two of the failovers, and more for a soak. */
    private static final int KILLS = Integer.getInteger("wharf.it.replicatedKills", 2);
    /** The pauses of the active member: one, and more for a soak ({@code -Dwharf.it.replicatedPauses=10}). */
    private static final int PAUSES = Integer.getInteger("wharf.it.replicatedPauses", 1);

    @TempDir
    Path dir;

    private ReplicatedGroup group;

    @Test
    @Timeout(value = 900, unit = TimeUnit.SECONDS)
    void transactedPersistentWorkGoesOnAcrossFailoversASwitchoverAndAPartition() throws Exception {
        group = ReplicatedGroup.onLoopback(dir);
        ReconnectWorkload workload = new ReconnectWorkload(group.addresses());
        List<ReconnectWorkload.Recovery> recoveries = new ArrayList<>();
        List<Long> takeovers = new ArrayList<>(); // kill -9 to the next active member's ready line
        List<Long> elections = new ArrayList<>(); // kill -9 to the next active member's Raft election
        try (ReplicatedGroup members = group) {
            int active = members.startAll();
            workload.start();
            workload.awaitRound(members.member(active));

            // a queue defined at run time, holding persistent messages: its definition travels through the log too.
            // On the member active now, the three in sync: under load the first one elected may have lost the role
            // already (session 30 saw one fenced 30 s after its takeover at load 69), and may lose it under the command
            FlowCommandAccess.Result defined;
            do {
                active = members.awaitActiveWith("in sync\\s+3/3");
                defined = admin(members.member(active), "define", "queue", RUNTIME_QUEUE, "--max-depth", "1234");
            } while (defined.status() != 0 && (defined.out() + defined.err()).contains("is a replica"));
            assertEquals(0, defined.status(), defined.out() + defined.err());
            sendTo(RUNTIME_QUEUE_MESSAGES);

            active = members.awaitActiveWith("in sync\\s+3/3");
            int first = active;
            ReconnectWorkload.Outage outage = workload.kill(members.member(first));
            outage.release();
            active = members.awaitActive(members.member(first));
            assertNotEquals(first, active);
            recoveries.add(outage.awaitWorking(members.member(active)));
            takeovers.add(readyAfter(members.member(active), outage));
            elections.add(electedAfter(members.member(active), outage));
            System.out.println("ReplicatedFailoverTest: " + IDS[first] + " killed, " + IDS[active] + " took over; "
                    + timeline(elections, takeovers, recoveries) + wallClock(outage));
            workload.awaitRound(members.member(active));
            // the new active member has the queue as it was defined (its own max depth), and its messages
            String queue = admin(members.member(active), "--json", "display", "queue", RUNTIME_QUEUE).out();
            assertTrue(queue.contains("\"maxDepth\":1234"), queue);
            assertTrue(queue.contains("\"depth\":" + RUNTIME_QUEUE_MESSAGES.size()), queue);

            members.start(first); // rejoins as a replica: its journal rebuilt from the log
            // the next kill once it is back in sync: its election needs that member's vote, and a kill while its JVM
            // still started waited for that start (77 s at load 49: session 29's failed run), not for the failover
            active = members.awaitActiveWith("in sync\\s+3/3", ReplicatedGroup.MEMBER_START);
            int second = active;
            outage = workload.kill(members.member(second));
            outage.release();
            active = members.awaitActive(members.member(second));
            recoveries.add(outage.awaitWorking(members.member(active)));
            takeovers.add(readyAfter(members.member(active), outage));
            elections.add(electedAfter(members.member(active), outage));
            System.out.println("ReplicatedFailoverTest: " + IDS[second] + " killed, " + IDS[active] + " took over; "
                    + timeline(elections, takeovers, recoveries) + wallClock(outage));
            workload.awaitRound(members.member(active));

            // the active member's status: itself and the rejoined member in sync, the killed one not
            active = members.awaitActiveWith("in sync\\s+2/3");
            String rejoined = IDS[third(active, second)]; // the member killed first, unless it was elected since
            String status = members.awaitStatus(active, "in sync\\s+2/3");
            assertTrue(Pattern.compile("\\b" + rejoined + " in sync").matcher(status).find(), status);
            assertTrue(status.contains("member " + IDS[active] + " of group TEST, LEADER (active: " + IDS[active]),
                    status);
            assertTrue(Pattern.compile("in sync\\s+2/3").matcher(status).find(), status);
            String metrics = members.awaitMetrics(active, "(?m)^wharf_replication_in_sync 2\\.0$");
            assertTrue(metrics.contains("wharf_replication_backlog_bytes"), metrics);

            // a planned switchover, with the member killed second back as a replica: the active one hands over and
            // rejoins as a replica, the clients go on with the new one
            members.start(second);
            active = members.awaitActiveWith("in sync\\s+3/3", ReplicatedGroup.MEMBER_START);
            // a soak's further kills, each once the member killed before is back in sync
            for (int kill = 3; kill <= KILLS; kill++) {
                int killed = active;
                outage = workload.kill(members.member(killed));
                outage.release();
                active = members.awaitActive(members.member(killed));
                recoveries.add(outage.awaitWorking(members.member(active)));
                takeovers.add(readyAfter(members.member(active), outage));
                elections.add(electedAfter(members.member(active), outage));
                System.out.println("ReplicatedFailoverTest: kill " + kill + ", " + IDS[killed] + " killed, "
                        + IDS[active] + " took over; " + timeline(elections, takeovers, recoveries) + wallClock(outage));
                members.start(killed);
                // the member active now, as it says: under load the one elected may have lost the role again
                active = members.awaitActiveWith("in sync\\s+3/3", ReplicatedGroup.MEMBER_START);
            }
            int old = active;
            ServerProcess leaving = members.member(old);
            int stops = leaving.stops();
            int rejoins = leaving.rejoins();
            // to the rejoined member, unless the election made it the active one: then to the third
            int to = active != first ? first : third(first, second);
            outage = workload.end(() -> {
                FlowCommandAccess.Result switched = admin(leaving, "switchover", "--to", IDS[to]);
                assertEquals(0, switched.status(), switched.out() + switched.err());
                assertTrue(switched.out().contains("to member " + IDS[to]), switched.out());
                leaving.awaitStopAfter(stops, ReplicatedGroup.ELECTION.toSeconds());
            });
            outage.release();
            assertTrue(leaving.outputSoFar().contains("(switchover)"), leaving.outputSoFar());
            active = members.awaitActive(leaving);
            if (active != to) {
                // the named member asks for the votes first (ReplicationMemberTest holds it to that under load); if
                // its election fails, the group elects another member, as after a failure: the clients go on there.
                // Printed, with what the members said, since it should be rare (CI saw it once, before the leaving
                // member waited for a successor before it stood down)
                System.out.println("ReplicatedFailoverTest: the switchover to " + IDS[to] + " made " + IDS[active]
                        + " active:\n" + members.outputs());
            }
            System.out.println("ReplicatedFailoverTest: switched over from " + IDS[old] + " to " + IDS[active] + "; "
                    + outage.awaitWorking(members.member(active)));
            workload.awaitRound(members.member(active));
            assertEquals(RUNTIME_QUEUE_MESSAGES, receiveFrom(active, RUNTIME_QUEUE_MESSAGES.size()));
            queue = admin(members.member(active), "--json", "display", "queue", RUNTIME_QUEUE).out();
            assertTrue(queue.contains("\"maxDepth\":1234") && queue.contains("\"depth\":0"), queue);

            // the old active member rejoined as a replica in its process: nobody started it again
            leaving.awaitRejoinAfter(rejoins, ReplicatedGroup.ELECTION.toSeconds());
            assertTrue(leaving.alive(), leaving.outputSoFar());

            // a pause: the active member stands still (SIGSTOP) until another is elected and took over, then goes on
            // (SIGCONT): it stops serving and rejoins as a replica in its process, the clients go on with the new one
            for (int pause = 1; pause <= PAUSES; pause++) {
                active = members.pause(workload, "ReplicatedFailoverTest");
            }

            // a partition: the active member cut off from both replicas (the paths between members, not its clients),
            // the clients at work throughout. It stops taking work and follows as a replica again, the other two
            // elect a new active member; once the cut heals it is back in sync
            members.partition(workload, "ReplicatedFailoverTest");

            // kill -9 of a replica: the other two are a majority, the clients go on without losing their connections.
            // The member active now, as it says (under load one may lose the role on its own: session 30 saw it
            // right after the partition at load 50; should it happen during the step, the step is printed, not judged)
            active = members.awaitActiveWith("in sync\\s+3/3");
            int replica = (active + 1) % 3;
            long lost = workload.disconnections();
            members.member(replica).kill();
            workload.awaitRound(members.member(active)); // every client's round, committed without that replica
            int after = members.awaitActiveWith("in sync\\s+2/3");
            if (after == active) {
                assertEquals(lost, workload.disconnections(), "a client lost its connection when replica "
                        + IDS[replica] + " was killed:\n" + members.outputs());
            } else {
                System.out.println("ReplicatedFailoverTest: " + IDS[active] + " lost the role while replica "
                        + IDS[replica] + " was killed; the clients went on with " + IDS[after]);
            }
            workload.finish();
        } finally {
            workload.stopNow();
        }
        workload.verify();
        // every kill found the three in sync (the first: all started; each later one: the member killed before back)
        System.out.println("ReplicatedFailoverTest: kill -9 to the next active member's election "
                + ReconnectWorkload.medianAndMax(elections) + ", to its ready line "
                + ReconnectWorkload.medianAndMax(takeovers) + "; " + ReconnectWorkload.summary(recoveries) + "; "
                + workload.report());
    }

    /** A member that is neither {@code x} nor {@code y} (when they are one, the next after it). */
    private static int third(int x, int y) {
        return x == y ? (x + 1) % 3 : 3 - x - y;
    }

    /**
     * Kill -9 to the next active member's ready line, in ns: the member answers as active (its listeners bound, its
     * admin plugin started) before it prints that line, once every plugin has started.
     */
    private static long readyAfter(ServerProcess next, ReconnectWorkload.Outage outage) throws Exception {
        long readyAt = next.awaitReadyAfter(outage.killedAt(), ReplicatedGroup.ELECTION.toSeconds());
        assertTrue(readyAt >= 0, () -> "no ready line after the kill:\n" + next.outputSoFar());
        return readyAt - outage.killedAt();
    }

    /**
     * Kill -9 to the next active member's Raft election, in ns: its ready line's time less how long it had led then
     * (its "took over" line, right after the ready line); after {@link #readyAfter}.
     */
    private static long electedAfter(ServerProcess next, ReconnectWorkload.Outage outage) throws Exception {
        long ledFor = next.leaderForMillis(ReplicatedGroup.ELECTION.toSeconds());
        assertTrue(ledFor >= 0, () -> "no took-over line after the ready line:\n" + next.outputSoFar());
        return next.readyAt() - TimeUnit.MILLISECONDS.toNanos(ledFor) - outage.killedAt();
    }

    /**
     * Where the last failover's time went: kill -9 to the next member's election (a replica's election timeout, then
     * the vote), to its ready line (its term's first entry, the takeover: store, listeners, plugins), and to the
     * clients working (their reconnection).
     */
    private static String timeline(List<Long> elections, List<Long> takeovers,
                                   List<ReconnectWorkload.Recovery> recoveries) {
        int last = recoveries.size() - 1;
        return String.format("elected %.0f ms after the kill, ready %.0f ms after it; ", elections.get(last) / 1e6,
                takeovers.get(last) / 1e6) + recoveries.get(last);
    }

    /**
     * The kill's time of day, as the members' log lines give theirs (a replica's probe of the killed member, its
     * election asked), to read the first part of a failover from their output.
     */
    private static String wallClock(ReconnectWorkload.Outage outage) {
        return "; killed at " + java.time.LocalTime.now().minusNanos(System.nanoTime() - outage.killedAt());
    }

    /** Sends {@code bodies} to the runtime queue, persistent, through the member active (the three addresses). */
    private void sendTo(List<String> bodies) throws Exception {
        try (Connection c = new WharfConnectionFactory(group.addresses() + "?" + ReconnectWorkload.RECONNECT)
                .createConnection()) {
            Session session = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageProducer producer = session.createProducer(session.createQueue(RUNTIME_QUEUE));
            producer.setDeliveryMode(DeliveryMode.PERSISTENT);
            for (String body : bodies) {
                producer.send(session.createTextMessage(body));
            }
        }
    }

    /** Receives {@code n} messages from the runtime queue through member {@code i}, in a transaction. */
    private List<String> receiveFrom(int i, int n) throws Exception {
        try (Connection c = new WharfConnectionFactory(group.url(i)).createConnection()) {
            c.start();
            Session session = c.createSession(true, Session.SESSION_TRANSACTED);
            MessageConsumer consumer = session.createConsumer(session.createQueue(RUNTIME_QUEUE));
            List<String> bodies = new ArrayList<>();
            for (int k = 0; k < n; k++) {
                Message m = consumer.receive(ReplicatedGroup.ELECTION.toMillis());
                assertNotNull(m, "message " + k + " of the runtime queue");
                bodies.add(((TextMessage) m).getText());
            }
            session.commit();
            return bodies;
        }
    }
}
