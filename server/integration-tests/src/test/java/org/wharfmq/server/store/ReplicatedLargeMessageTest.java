package org.wharfmq.server.store;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.server.it.LargeMessages;

import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Session;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * Issue 37: the largest message a server takes by default, 100 MB, persistent, through a replicated queue manager's
 * takeover, end to end through the JMS client ({@link ReplicatedGroup}: three {@code wharf server --replica}
 * processes with the default maxMessageLength). A 2 MB message takes queue {@value #QUEUE} past its memory budget
 * ({@value #QUEUE_BUDGET} bytes) and is paged, as the 100 MB one after it is (25 log entries: a record larger than
 * one goes through the log in pieces, docs/resilience.md "Large messages"), by the active member, which confirms each
 * send once a majority has it. The active member is killed with SIGKILL; the next one, which kept the messages' places
 * and not their bodies as a replica, reads them back from its journal at its takeover and pages them again; on both,
 * neither the queue nor the server's memory budget for messages holds more than the queue's budget and the 2 MB
 * message, once the paging thread has written the 100 MB one (as {@code wharf admin display queue} and
 * {@code display server} say). The next member delivers both,
 * byte for byte (their SHA-256 digests the sender's), in order, and its queue is empty after the commits: each once.
 * (ReplicationMemberTest takes 100 MiB through a takeover and a rejoin at the store level.)
 */
@Tag("slow")
class ReplicatedLargeMessageTest {

    private static final String QUEUE = "LARGE.Q";
    /** The queue's memory budget (maxBytes): the 2 MB message takes the queue past it. */
    private static final long QUEUE_BUDGET = 1024 * 1024;
    /** The server's memory budget for messages (maxMemoryBytes): far below 100 MB. */
    private static final long SERVER_BUDGET = 32L * 1024 * 1024;
    /** What the queue and the server may hold in memory: the queue's budget, a 2 MB message being paged, overhead. */
    private static final long MOST_IN_MEMORY = QUEUE_BUDGET + LargeMessages.TWO_MB + 64 * 1024;
    private static final int SMALL_SEED = 2;
    private static final int BIG_SEED = 100;
    /**
     * The members' election timeout: 20 s (the first election takes 20 to 30 s). With the default 1.5 s, at load 30-45
     * the member elected after the kill lost the leadership again within seconds (JVM pauses of 1-3 s) and no member
     * held it within the test's 90 s; the messages were on it all along.
     */
    private static final long ELECTION_TIMEOUT_MILLIS = 20_000;
    /**
     * How long a persistent send may wait for its confirmation, a bound for a hang only: 100 MB through the log to the
     * other two members took 13 s at load 30, and the client's default (30 s) is not far above that.
     */
    private static final int SEND_TIMEOUT_MILLIS = 300_000;

    @TempDir
    Path dir;

    @Test
    @Timeout(value = 900, unit = TimeUnit.SECONDS)
    void aPersistent100MbMessageIsPagedWithinTheBudgetSurvivesAKillOfTheActiveMemberAndIsReceivedIntact()
            throws Exception {
        long start = System.nanoTime();
        try (ReplicatedGroup group = ReplicatedGroup.onLoopbackWithTheDefaultMaxMessageLength(dir,
                "maxMemoryBytes: " + SERVER_BUDGET + "\nqueues:\n  - name: " + QUEUE + "\n    maxBytes: "
                        + QUEUE_BUDGET + "\n    policy: page\n",
                "electionTimeoutMillis: " + ELECTION_TIMEOUT_MILLIS)) {
            group.startAll();
            int active = group.awaitActiveWith("in sync\\s+3/3");
            log(start, "member " + ReplicatedGroup.IDS[active] + " active, the others in sync");
            try (Connection connection = new WharfConnectionFactory(group.url(active) + "?reconnectAttempts=0"
                    + "&requestTimeout=" + SEND_TIMEOUT_MILLIS).createConnection()) {
                Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
                MessageProducer producer = session.createProducer(session.createQueue(QUEUE));
                // a persistent send returns once the active member has the quorum's confirmation
                producer.send(LargeMessages.message(session, LargeMessages.TWO_MB, SMALL_SEED),
                        DeliveryMode.PERSISTENT, Message.DEFAULT_PRIORITY, Message.DEFAULT_TIME_TO_LIVE);
                producer.send(LargeMessages.message(session, LargeMessages.HUNDRED_MB, BIG_SEED),
                        DeliveryMode.PERSISTENT, Message.DEFAULT_PRIORITY, Message.DEFAULT_TIME_TO_LIVE);
            }
            log(start, "sent");
            assertPagedWithinBudget(group.url(active), "sent to member " + ReplicatedGroup.IDS[active]);

            ServerProcess killed = group.member(active);
            killed.kill();
            int next = group.awaitActive(killed);
            log(start, "member " + ReplicatedGroup.IDS[next] + " took over");
            assertPagedWithinBudget(group.url(next), "taken over by member " + ReplicatedGroup.IDS[next]);
            try (Connection c = new WharfConnectionFactory(group.url(next) + "?reconnectAttempts=0").createConnection()) {
                c.start();
                Session session = c.createSession(true, Session.SESSION_TRANSACTED);
                MessageConsumer consumer = session.createConsumer(session.createQueue(QUEUE));
                // each in a transaction of its own (one holding the 2 MB message gets the 100 MB one too: a queue in
                // which nothing waits but delivered messages reads back, docs/resilience.md, "Paging")
                for (int seed : new int[] {SMALL_SEED, BIG_SEED}) {
                    Message m = consumer.receive(ReplicatedGroup.ELECTION.toMillis());
                    assertNotNull(m, "the message of seed " + seed + " on member " + ReplicatedGroup.IDS[next]
                            + " after the failover");
                    assertEquals(seed, LargeMessages.assertIntact(m), "in the order sent");
                    session.commit();
                }
            }
            assertEquals(0, MessageMemory.queue(group.url(next), QUEUE).get("depth").asLong(),
                    "queue " + QUEUE + " after both were received and committed: each delivered once");
            log(start, "received");
        }
    }

    /**
     * The member at {@code url} holds the two messages, the 100 MB one paged, within the queue's budget and a 2 MB
     * message, once its paging thread has written the 100 MB one.
     */
    private static void assertPagedWithinBudget(String url, String when) throws Exception {
        MessageMemory.Figures figures = MessageMemory.awaitWithin(url, QUEUE, MOST_IN_MEMORY,
                "ReplicatedLargeMessageTest: " + when);
        figures.assertHoldsWithTheLargestPaged(2);
        figures.assertServerBudget(SERVER_BUDGET);
    }

    private static void log(long start, String step) {
        System.out.printf("ReplicatedLargeMessageTest: %s after %.1f s%n", step, (System.nanoTime() - start) / 1e9);
    }
}
