package org.wharfmq.server.store;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.it.Receive;
import org.wharfmq.server.management.JournalStatus;

import javax.jms.BytesMessage;
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
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.wharfmq.server.store.AutoAcknowledgeSyncTest.connect;
import static org.wharfmq.server.store.AutoAcknowledgeSyncTest.depth;

/**
 * A persistent publication to durable subscriptions is one journal record (PUT_COPIES, docs/persistence.md): its body
 * once, one entry for the journal writer and so one sync, never two when the writer takes some copies before the
 * rest arrive (in a transaction, one record before its COMMIT); after a SIGKILL every answered publication is back on every subscription, a publication is on all of
 * them or on none, and what one subscriber consumed is gone from its subscription only.
 */
@Timeout(180)
class PublicationCopiesJournalTest {

    private static final int SUBSCRIBERS = 10;
    private static final int PUBLISHED = 50;
    private static final int BODY_BYTES = 2048;
    /** How long what the test waits for may take: it bounds a hang only (a loaded machine is slow). */
    private static final long EXPECTED_MS = 30_000;

    @TempDir
    Path dir;

    @Test
    void aPersistentPublicationToTenDurableSubscriptionsIsOneRecordHoldingItsBodyOnceAndOneSync() throws Exception {
        // the journal's own force of records nobody waits for held off past the test: every sync here is a send's
        try (TestServer testServer = TestServer.start(b -> b.journalLazySyncMillis(3_600_000))) {
            WharfServer server = testServer.server();
            try (Connection c = connect(server.tcpUrl())) {
                Session session = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
                Topic topic = subscribe(session);
                MessageProducer publisher = session.createProducer(topic); // persistent: each send answered once synced
                BytesMessage m = session.createBytesMessage();
                m.writeBytes(new byte[BODY_BYTES]);
                // the journal is written in order: once the first publication is answered, the subscriptions' records
                // (which nobody waits for) are appended too, and the counts from here are the publications' own
                publisher.send(m);
                JournalStatus before = server.management().journal();
                for (int i = 1; i < PUBLISHED; i++) {
                    publisher.send(m);
                }
                JournalStatus after = server.management().journal();
                assertEquals(PUBLISHED - 1, after.syncs() - before.syncs(),
                        "syncs for " + (PUBLISHED - 1) + " publications, each answered before the next");
                assertEquals(PUBLISHED - 1, after.records() - before.records(),
                        "journal records for " + (PUBLISHED - 1) + " publications to " + SUBSCRIBERS + " subscriptions");
                // in a transaction: one record too, effective at its COMMIT (or dropped by its ROLLBACK)
                Session tx = c.createSession(true, Session.SESSION_TRANSACTED);
                MessageProducer inTransaction = tx.createProducer(topic);
                inTransaction.send(tx.createTextMessage("committed"));
                tx.commit();
                inTransaction.send(tx.createTextMessage("rolled back"));
                tx.rollback();
                JournalStatus end = server.management().journal();
                assertEquals(4, end.records() - after.records(), "a publication in a transaction and its COMMIT, "
                        + "another and its ROLLBACK");
                for (int i = 0; i < SUBSCRIBERS; i++) {
                    assertEquals(PUBLISHED + 1, depth(server, "s" + i), "subscription s" + i);
                }
            }
            server = testServer.restart();
            for (int i = 0; i < SUBSCRIBERS; i++) {
                assertEquals(PUBLISHED + 1, depth(server, "s" + i), "subscription s" + i + " after a restart");
            }
        }
    }

    /**
     * Twenty publications answered, subscriber k consumes the first k (a transaction, committed: durable when
     * answered), then a publisher publishes on while the server is killed with SIGKILL. After the restart subscriber
     * k has m_k..m_19, then the same run of later publications as every other subscriber, including every one whose
     * send was answered.
     */
    @Test
    @Tag("slow")
    void afterASigkillEachPublicationIsOnEverySubscriptionOrNoneLessWhatEachSubscriberConsumed() throws Exception {
        Path data = dir.resolve("data");
        ServerProcess server = ServerProcess.start(data);
        AtomicInteger answered = new AtomicInteger();
        try {
            try (Connection c = connect(server.url())) {
                Session session = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
                Topic topic = subscribe(session);
                MessageProducer publisher = session.createProducer(topic);
                for (int i = 0; i < 20; i++) {
                    publisher.send(session.createTextMessage("m" + i));
                }
                Session consuming = c.createSession(true, Session.SESSION_TRANSACTED);
                for (int k = 1; k < SUBSCRIBERS; k++) {
                    try (MessageConsumer subscriber = consuming.createDurableSubscriber(topic, "s" + k)) {
                        for (int i = 0; i < k; i++) {
                            TextMessage m = (TextMessage) subscriber.receive(EXPECTED_MS);
                            assertNotNull(m, "s" + k + " message " + i);
                            assertEquals("m" + i, m.getText());
                        }
                        consuming.commit(); // its REMOVEs synced before the answer
                    }
                }
            }
            // publishes on, each send answered once synced, until the server dies under it
            String url = server.url() + "?reconnectAttempts=0";
            Thread publishing = new Thread(() -> {
                try (Connection c = connect(url)) {
                    Session session = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
                    MessageProducer publisher = session.createProducer(session.createTopic("ps/copies"));
                    for (int j = 0; ; j++) {
                        publisher.send(session.createTextMessage("p" + j));
                        answered.incrementAndGet();
                    }
                } catch (JMSException | RuntimeException dead) {
                    // the server was killed: the send in flight may or may not have reached the journal
                }
            }, "publisher");
            publishing.start();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (answered.get() < 30 && System.nanoTime() < deadline) {
                LockSupport.parkNanos(1_000_000); // waits for the publisher's answers
            }
            assertTrue(answered.get() >= 30, "publications answered before the kill: " + answered.get());
            server.kill();
            publishing.join(TimeUnit.SECONDS.toMillis(60));
        } finally {
            server.close();
        }
        int sent = answered.get();
        server = ServerProcess.start(data);
        try (Connection c = connect(server.url())) {
            Session session = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            Topic topic = session.createTopic("ps/copies");
            List<String> later = null;
            for (int k = 0; k < SUBSCRIBERS; k++) {
                List<String> texts = new ArrayList<>();
                try (MessageConsumer subscriber = session.createDurableSubscriber(topic, "s" + k)) {
                    for (TextMessage m = (TextMessage) subscriber.receive(EXPECTED_MS); m != null;
                         m = (TextMessage) subscriber.receiveNoWait()) { // no wait: the recovered messages are there
                        texts.add(m.getText());
                    }
                    Receive.nothingMore(subscriber);
                }
                List<String> before = new ArrayList<>();
                for (int i = k; i < 20; i++) {
                    before.add("m" + i);
                }
                assertEquals(before, texts.subList(0, Math.min(texts.size(), before.size())),
                        "s" + k + ": the publications before the kill less the " + k + " it consumed");
                List<String> rest = texts.subList(before.size(), texts.size());
                if (later == null) {
                    later = List.copyOf(rest);
                    assertTrue(later.size() == sent || later.size() == sent + 1, "s0 has " + later.size()
                            + " of the later publications; " + sent + " were answered (one more may have been sent)");
                    for (int j = 0; j < later.size(); j++) {
                        assertEquals("p" + j, later.get(j));
                    }
                } else {
                    assertEquals(later, rest, "s" + k + ": the later publications, as s0 has them");
                }
            }
        } finally {
            server.close();
        }
    }

    /** Creates the durable subscriptions s0..s9 on topic ps/copies, no consumer left on them. */
    private static Topic subscribe(Session session) throws JMSException {
        Topic topic = session.createTopic("ps/copies");
        for (int i = 0; i < SUBSCRIBERS; i++) {
            session.createDurableSubscriber(topic, "s" + i).close();
        }
        return topic;
    }
}
