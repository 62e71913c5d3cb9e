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
 * Issue 37: large persistent messages through a replicated queue manager's takeover, end to end through the JMS client
 * ({@link ReplicatedGroup}: three {@code wharf server --replica} processes with the default maxMessageLength). A 20 MB
 * message (five log entries: a record larger than one goes through the log in pieces, docs/resilience.md "Large
 * messages") and a 2 MB one are sent persistent to the active member, which confirms each once a majority has it;
 * the active member is killed with SIGKILL, and the next one delivers both, byte for byte (their SHA-256 digests the
 * sender's), in order (the queue's depth two on it, as its admin command says). (ReplicationMemberTest takes 100 MiB through a takeover at the store level.)
 */
@Tag("slow")
class ReplicatedLargeMessageTest {

    private static final String QUEUE = "LARGE.Q";
    /**
     * The members' election timeout: 20 s (the first election takes 20 to 30 s). With the default 1.5 s, at load 30-45
     * the member elected after the kill lost the leadership again within seconds (JVM pauses of 1-3 s) and no member
     * held it within the test's 90 s; the messages were on it all along.
     */
    private static final long ELECTION_TIMEOUT_MILLIS = 20_000;

    @TempDir
    Path dir;

    @Test
    @Timeout(value = 900, unit = TimeUnit.SECONDS)
    void persistentMessagesOf20And2MbSurviveAKillOfTheActiveMemberIntactAndInOrder() throws Exception {
        try (ReplicatedGroup group = ReplicatedGroup.onLoopbackWithTheDefaultMaxMessageLength(dir,
                "electionTimeoutMillis: " + ELECTION_TIMEOUT_MILLIS)) {
            group.startAll();
            int active = group.awaitActiveWith("in sync\\s+3/3");
            try (Connection connection = new WharfConnectionFactory(group.url(active) + "?reconnectAttempts=0")
                    .createConnection()) {
                Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
                MessageProducer producer = session.createProducer(session.createQueue(QUEUE));
                // a persistent send returns once the active member has the quorum's confirmation
                producer.send(LargeMessages.message(session, LargeMessages.TWENTY_MB, 20), DeliveryMode.PERSISTENT,
                        Message.DEFAULT_PRIORITY, Message.DEFAULT_TIME_TO_LIVE);
                producer.send(LargeMessages.message(session, LargeMessages.TWO_MB, 2), DeliveryMode.PERSISTENT,
                        Message.DEFAULT_PRIORITY, Message.DEFAULT_TIME_TO_LIVE);
            }

            ServerProcess killed = group.member(active);
            killed.kill();
            int next = group.awaitActive(killed);
            long depth = CommittedMessages.depth(group.awaitAnswer(next, out -> CommittedMessages.depth(out) >= 0,
                    "queue " + QUEUE, "--json", "display", "queue", QUEUE));
            assertEquals(2, depth, "queue " + QUEUE + " on member " + ReplicatedGroup.IDS[next] + " after the failover");
            try (Connection c = new WharfConnectionFactory(group.url(next) + "?reconnectAttempts=0").createConnection()) {
                c.start();
                Session session = c.createSession(true, Session.SESSION_TRANSACTED);
                MessageConsumer consumer = session.createConsumer(session.createQueue(QUEUE));
                for (int seed : new int[] {20, 2}) {
                    Message m = consumer.receive(ReplicatedGroup.ELECTION.toMillis());
                    assertNotNull(m, "the message of seed " + seed + " on member " + ReplicatedGroup.IDS[next]
                            + " after the failover");
                    assertEquals(seed, LargeMessages.assertIntact(m), "in the order sent");
                }
                session.commit();
            }
        }
    }
}
