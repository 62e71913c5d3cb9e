package org.wharfmq.server.store;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.it.Receive;
import org.wharfmq.server.topic.TopicManager;

import javax.jms.Connection;
import javax.jms.JMSException;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Session;
import javax.jms.TextMessage;
import javax.jms.Topic;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The durability of AUTO_ACKNOWLEDGE acknowledgements, whose ACKs the server does not answer (docs/persistence.md):
 * their records ask for no sync of their own and ride the journal's next one, so a durable subscriber costs its
 * publisher no sync; the close is answered once they are durable (one sync for them all); and what was acknowledged
 * is not given again after a restart, clean or SIGKILL.
 */
@Timeout(120)
class AutoAcknowledgeSyncTest {

    private static final int PUBLISHED = 20;
    private static final int CONSUMED = 10;
    /** How long what the test waits for may take: it bounds a hang only (a loaded machine is slow). */
    private static final long EXPECTED_MS = 30_000;

    @TempDir
    Path dir;

    @Test
    void unansweredAcknowledgementsAskForNoSyncTheCloseForOneAndTheyStayAcknowledgedAfterARestart() throws Exception {
        // the journal's own force of records nobody waits for held off past the test (the next case tests it)
        try (TestServer testServer = TestServer.start(b -> b.journalLazySyncMillis(3_600_000))) {
            WharfServer server = testServer.server();
            Connection c = connect(server.tcpUrl());
            Session session = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageConsumer subscriber = subscribeAndPublish(session);
            long syncs = syncs(server);
            for (int i = 0; i < CONSUMED; i++) {
                TextMessage m = (TextMessage) subscriber.receive(EXPECTED_MS);
                assertNotNull(m, "message " + i);
                assertEquals("m" + i, m.getText());
                // the ACK leaves before the next message is handed out, or 20 ms later: each reaches the server alone
                awaitDepth(server, "d", PUBLISHED - i - 1);
            }
            assertEquals(syncs, syncs(server), CONSUMED + " acknowledgements, each on its own, and no sync: nobody "
                    + "waits for an unanswered ACK");
            c.close(); // answered once the acknowledgements are durable
            assertEquals(syncs + 1, syncs(server), "the close asked for one sync, covering every acknowledgement");

            server = testServer.restart();
            assertEquals(PUBLISHED - CONSUMED, depth(server, "d"), "the acknowledged messages stayed acknowledged");
            assertEquals(remaining(), receiveRest(server.tcpUrl()));
        }
    }

    /**
     * With nothing else asking for a sync, the journal forces the unanswered acknowledgements itself within
     * journalLazySyncMillis: a consumer that goes quiet is not left with acknowledgements a power loss would undo.
     */
    @Test
    void unansweredAcknowledgementsAreForcedByTheJournalWhenNoSyncComes() throws Exception {
        try (TestServer testServer = TestServer.start(b -> b.journalLazySyncMillis(50))) {
            WharfServer server = testServer.server();
            Connection c = connect(server.tcpUrl());
            Session session = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageConsumer subscriber = subscribeAndPublish(session);
            assertNotNull(subscriber.receive(EXPECTED_MS));
            awaitDepth(server, "d", PUBLISHED - 1); // its ACK is read; nothing else is sent
            long syncs = syncs(server);
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(EXPECTED_MS);
            while (syncs(server) == syncs && System.nanoTime() < deadline) {
                LockSupport.parkNanos(1_000_000); // asks the server again
            }
            assertTrue(syncs(server) > syncs, "the journal forced itself for the acknowledgement nobody waited for");
            c.close();
        }
    }

    /**
     * SIGKILL of the server after a persistent send on the subscriber's connection: the journal writes in order, so
     * the send's sync covers the acknowledgements read before it (and with them the subscriber's), and the restarted
     * server gives only the unacknowledged messages, each once.
     */
    @Test
    @Tag("slow")
    void acknowledgementsBeforeAnAnsweredSendSurviveASigkill() throws Exception {
        Path data = dir.resolve("data");
        ServerProcess server = ServerProcess.start(data);
        try {
            try (Connection c = connect(server.url())) {
                Session session = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
                MessageConsumer subscriber = subscribeAndPublish(session);
                for (int i = 0; i < CONSUMED; i++) {
                    TextMessage m = (TextMessage) subscriber.receive(EXPECTED_MS);
                    assertNotNull(m, "message " + i);
                    assertEquals("m" + i, m.getText());
                }
                // the last ACK waits in the client for this frame and leaves in its write: read before the SEND
                session.createProducer(session.createQueue("BARRIER")).send(session.createTextMessage("barrier"));
                server.kill();
            }
            server = ServerProcess.start(data);
            assertEquals(remaining(), receiveRest(server.url()), "only the unacknowledged messages came again");
        } finally {
            server.close();
        }
    }

    /** A started connection of client ID "app" (also {@link PublicationCopiesJournalTest}'s). */
    static Connection connect(String url) throws JMSException {
        Connection c = new WharfConnectionFactory(url).createConnection();
        c.setClientID("app");
        c.start();
        return c;
    }

    /** The durable subscription "d" on topic ps/d, made before the publications it then receives. */
    private static MessageConsumer subscribeAndPublish(Session session) throws JMSException {
        Topic topic = session.createTopic("ps/d");
        MessageConsumer subscriber = session.createDurableSubscriber(topic, "d");
        publish(session, topic);
        return subscriber;
    }

    /** Persistent, each answered once its records are synced. */
    private static void publish(Session session, Topic topic) throws JMSException {
        MessageProducer publisher = session.createProducer(topic);
        for (int i = 0; i < PUBLISHED; i++) {
            publisher.send(session.createTextMessage("m" + i));
        }
        publisher.close();
    }

    private static List<String> remaining() {
        List<String> texts = new ArrayList<>();
        for (int i = CONSUMED; i < PUBLISHED; i++) {
            texts.add("m" + i);
        }
        return texts;
    }

    /** Reconnects as the subscription's client and takes every message left, checking none is marked redelivered. */
    private static List<String> receiveRest(String url) throws JMSException {
        try (Connection c = connect(url)) {
            Session session = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageConsumer subscriber = session.createDurableSubscriber(session.createTopic("ps/d"), "d");
            List<String> texts = new ArrayList<>();
            for (int i = CONSUMED; i < PUBLISHED; i++) {
                TextMessage m = (TextMessage) subscriber.receive(EXPECTED_MS);
                assertNotNull(m, "after " + texts + " nothing more");
                texts.add(m.getText());
            }
            Receive.nothingMore(subscriber);
            return texts;
        }
    }

    private static long syncs(WharfServer server) {
        return server.management().journal().syncs();
    }

    /** The depth of durable subscription {@code subscription}'s queue, -1 when there is none. */
    static long depth(WharfServer server, String subscription) {
        return server.topicManager().describe().stream().filter(i -> subscription.equals(i.name()))
                .mapToLong(TopicManager.SubscriptionInfo::depth).findFirst().orElse(-1);
    }

    /** Asks the server until the subscription's queue holds {@code expected} messages (its ACK was read). */
    private static void awaitDepth(WharfServer server, String subscription, long expected) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(EXPECTED_MS);
        long depth;
        while ((depth = depth(server, subscription)) != expected && System.nanoTime() < deadline) {
            LockSupport.parkNanos(100_000); // asks the server again
        }
        assertEquals(expected, depth, "the subscription's messages once the ACK is read");
    }
}
