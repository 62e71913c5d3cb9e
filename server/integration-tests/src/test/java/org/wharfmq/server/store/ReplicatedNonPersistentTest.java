package org.wharfmq.server.store;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.jms.WharfConnectionFactory;

import javax.jms.BytesMessage;
import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Session;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 35: non-persistent messages are not replicated (as in IBM MQ; docs/resilience.md, "What else travels with the
 * log"), as three {@code wharf server --replica} processes ({@link ReplicatedGroup}). Non-persistent messages sent to
 * the active member between persistent ones reach no replica's journal (each replica, having applied the last
 * persistent send, holds no more journal bytes than the persistent ones' records), are delivered there while both
 * replicas stand still (SIGSTOP: no quorum) and a persistent send waits for them, and are gone after a kill -9 of the
 * active member, where every persistent one sent with them is on the next active member once, in order.
 *
 * <p>The members' election timeout is 20 s here (so the first election takes 20 to 30 s): the active member keeps the
 * role for that long with both replicas stopped, room for a non-persistent send and receipt on a loaded machine. Every
 * other wait is for a member's answer or a message, none for a time.
 */
@Tag("slow")
class ReplicatedNonPersistentTest {

    private static final String[] IDS = ReplicatedGroup.IDS;
    private static final long ELECTION_TIMEOUT_MILLIS = 20_000;
    private static final String QUEUE = "MIXED.Q";
    private static final String WAITING = "WAITING.Q";
    private static final String FAST = "FAST.Q";
    private static final int NON_PERSISTENT_BODY = 64 << 10;
    private static final int ROUNDS = 5;
    private static final int NON_PERSISTENT_PER_ROUND = 4;
    /** The replica's own journal in {@code display server --json}: its replication part's {@code journalBytes}. */
    private static final Pattern REPLICA_JOURNAL = Pattern.compile("\"replication\":\\{.*\"journalBytes\":(-?\\d+)");

    @TempDir
    Path dir;

    @Test
    @Timeout(value = 900, unit = TimeUnit.SECONDS)
    void nonPersistentMessagesReachNoReplicaWaitForNoQuorumAndAreGoneAfterAFailoverWhereThePersistentOnesAre()
            throws Exception {
        try (ReplicatedGroup group = ReplicatedGroup.onLoopback(dir, "electionTimeoutMillis: "
                + ELECTION_TIMEOUT_MILLIS)) {
            group.startAll();
            int active = group.awaitActiveWith("in sync\\s+3/3");
            int[] replicas = {(active + 1) % 3, (active + 2) % 3};
            List<String> persistent = new ArrayList<>();
            try (Connection connection = new WharfConnectionFactory(group.url(active) + "?reconnectAttempts=0")
                    .createConnection()) {
                connection.start();
                Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
                MessageProducer producer = session.createProducer(session.createQueue(QUEUE));
                MessageConsumer fast = session.createConsumer(session.createQueue(FAST));

                // 1. each replica's journal before, once it applied a first persistent send (the queue exists then)
                persistent.add(send(session, producer, DeliveryMode.PERSISTENT, "persistent-0"));
                long[] before = journalsOnceApplied(group, active, replicas);
                for (int round = 1; round <= ROUNDS; round++) {
                    for (int n = 0; n < NON_PERSISTENT_PER_ROUND; n++) {
                        send(session, producer, DeliveryMode.NON_PERSISTENT, "non-persistent-" + round + "-" + n);
                    }
                    persistent.add(send(session, producer, DeliveryMode.PERSISTENT, "persistent-" + round));
                }
                // every replica applied the last persistent send, and with it all the log has of the messages sent
                // before it: the non-persistent ones' bodies (1.25 MiB) would be in their journals
                long[] after = journalsOnceApplied(group, active, replicas);
                long nonPersistentBytes = (long) ROUNDS * NON_PERSISTENT_PER_ROUND * NON_PERSISTENT_BODY;
                for (int r = 0; r < 2; r++) {
                    assertTrue(after[r] - before[r] < NON_PERSISTENT_BODY, "replica " + IDS[replicas[r]] + "'s journal "
                            + "grew from " + before[r] + " to " + after[r] + " bytes for " + ROUNDS
                            + " small persistent messages sent among " + nonPersistentBytes
                            + " bytes of non-persistent ones");
                }

                // 2. both replicas stand still: a persistent send waits for the quorum (the active member shows it
                // appended and not confirmed), a non-persistent one is delivered meanwhile
                for (int replica : replicas) {
                    group.member(replica).pause();
                }
                CompletableFuture<Void> waiting;
                try (Connection other = new WharfConnectionFactory(group.url(active) + "?reconnectAttempts=0")
                        .createConnection()) {
                    Session persistentSession = other.createSession(false, Session.AUTO_ACKNOWLEDGE);
                    MessageProducer persistentProducer = persistentSession.createProducer(
                            persistentSession.createQueue(WAITING));
                    waiting = CompletableFuture.runAsync(() -> {
                        try {
                            send(persistentSession, persistentProducer, DeliveryMode.PERSISTENT, "waiting");
                        } catch (JMSException e) {
                            throw new IllegalStateException(e);
                        }
                    });
                    try {
                        String held = group.awaitStatus(active, "backlog\\s+[1-9]");
                        assertFalse(waiting.isDone(), "a persistent send was confirmed with both replicas stopped:\n"
                                + held);
                        MessageProducer fastProducer = session.createProducer(session.createQueue(FAST));
                        send(session, fastProducer, DeliveryMode.NON_PERSISTENT, "fast");
                        Message delivered = fast.receive(ELECTION_TIMEOUT_MILLIS);
                        assertNotNull(delivered, "the non-persistent message sent while both replicas stood still");
                        assertFalse(waiting.isDone(), "the persistent send, held for the quorum, while the "
                                + "non-persistent one was delivered");
                    } finally {
                        for (int replica : replicas) {
                            group.member(replica).resume();
                        }
                    }
                    waiting.get(ReplicatedGroup.ELECTION.toSeconds(), TimeUnit.SECONDS); // confirmed once they answer
                    persistentSession.close();
                }
                group.awaitStatus(active, "in sync\\s+3/3");
                // the active member holds them all, the non-persistent ones among them
                long all = persistent.size() + (long) ROUNDS * NON_PERSISTENT_PER_ROUND;
                group.awaitAnswer(active, out -> CommittedMessages.depth(out) == all, "queue " + QUEUE + " of depth "
                        + all, "--json", "display", "queue", QUEUE);
            }

            // 3. the active member killed: the next one has the persistent messages, once, in order, and none of the
            // non-persistent ones
            ServerProcess killed = group.member(active);
            killed.kill();
            int next = group.awaitActive(killed);
            assertEquals(persistent.size(), depth(group, next), "queue " + QUEUE + " on member " + IDS[next]
                    + " after the failover: its persistent messages alone");
            try (Connection c = new WharfConnectionFactory(group.url(next) + "?reconnectAttempts=0")
                    .createConnection()) {
                c.start();
                Session session = c.createSession(true, Session.SESSION_TRANSACTED);
                MessageConsumer consumer = session.createConsumer(session.createQueue(QUEUE));
                List<String> received = new ArrayList<>();
                for (int k = 0; k < persistent.size(); k++) {
                    Message m = consumer.receive(ReplicatedGroup.ELECTION.toMillis());
                    assertNotNull(m, "persistent message " + k + " on member " + IDS[next] + "; before it: "
                            + received);
                    received.add(m.getStringProperty("name"));
                }
                assertEquals(persistent, received, "the messages on member " + IDS[next] + " after the failover");
                session.commit();
                Message waited = session.createConsumer(session.createQueue(WAITING))
                        .receive(ReplicatedGroup.ELECTION.toMillis());
                assertNotNull(waited, "the persistent send held for the quorum, on member " + IDS[next]);
                assertEquals("waiting", waited.getStringProperty("name"));
                session.commit();
            }
            assertEquals(0, depth(group, next), "queue " + QUEUE + " on member " + IDS[next] + " once its persistent "
                    + "messages were received");
        }
    }

    /**
     * Sends a message named {@code name} (a property) with {@code mode}: a non-persistent one carries a body of
     * {@value #NON_PERSISTENT_BODY} bytes, a persistent one none.
     */
    private static String send(Session session, MessageProducer producer, int mode, String name) throws JMSException {
        BytesMessage message = session.createBytesMessage();
        message.setStringProperty("name", name);
        if (mode == DeliveryMode.NON_PERSISTENT) {
            message.writeBytes(new byte[NON_PERSISTENT_BODY]);
        }
        producer.send(message, mode, Message.DEFAULT_PRIORITY, Message.DEFAULT_TIME_TO_LIVE);
        return name;
    }

    /**
     * Each replica's own journal bytes ({@code display server} on its client address), once it has applied
     * everything the active member committed by now.
     */
    private static long[] journalsOnceApplied(ReplicatedGroup group, int active, int[] replicas) {
        long committed = ReplicatedGroup.committed(group.awaitStatus(active, "last applied"));
        long[] bytes = new long[replicas.length];
        for (int r = 0; r < replicas.length; r++) {
            String own = group.awaitAnswer(replicas[r], out -> ReplicatedGroup.applied(out) >= committed,
                    "applied " + committed, "display", "server");
            String json = group.awaitAnswer(replicas[r], out -> REPLICA_JOURNAL.matcher(out).find(),
                    "its journal's bytes", "--json", "display", "server");
            Matcher m = REPLICA_JOURNAL.matcher(json);
            assertTrue(m.find(), json + "\n" + own);
            bytes[r] = Long.parseLong(m.group(1));
        }
        return bytes;
    }

    /** How many messages {@value #QUEUE} holds on member {@code i} ({@code wharf admin display queue}). */
    private static long depth(ReplicatedGroup group, int i) {
        return CommittedMessages.depth(group.awaitAnswer(i, out -> CommittedMessages.depth(out) >= 0, "queue " + QUEUE,
                "--json", "display", "queue", QUEUE));
    }
}
