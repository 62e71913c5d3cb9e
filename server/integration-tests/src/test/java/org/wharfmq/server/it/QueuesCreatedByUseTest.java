package org.wharfmq.server.it;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.server.TestClock;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.admin.AdminPlugin;
import org.wharfmq.server.config.ServerConfig;
import org.wharfmq.server.flow.FlowHost;
import org.wharfmq.server.queue.QueueManager;
import org.wharfmq.server.store.JournalMessageStore;

import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.JMSException;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Queue;
import javax.jms.QueueBrowser;
import javax.jms.Session;
import javax.jms.TemporaryQueue;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Queues created by use: at most {@code maxQueues} queues (refused past it, naming the limit and the setting), and
 * deletion of those unused for {@code autoDeleteDelayMillis}, which keeps every queue in use or defined, survives a
 * restart, and never loses a message sent while it happens. Time is a {@link TestClock} the tests move on.
 */
@Timeout(120)
class QueuesCreatedByUseTest {

    private static final long DELAY = 60_000;
    private static final int MAX_QUEUES = 6;
    /** The race: batches of sends to new queues, each batch checked then emptied; then consumers on new queues. */
    private static final int RACE_BATCHES = 100;
    private static final int RACE_BATCH = 100;
    private static final int RACE_CONSUMERS = 2000;

    private final TestClock clock = new TestClock();
    private final List<AutoCloseable> opened = new ArrayList<>();

    @AfterEach
    void closeAll() {
        for (int i = opened.size() - 1; i >= 0; i--) {
            Closing.closeWithin(opened.get(i), "resource");
        }
    }

    @Test
    void creatingAQueuePastMaxQueuesIsRefusedNamingTheLimitAndTheQueuesThereKeepWorking() throws Exception {
        WharfServer server = start(c -> c.maxQueues(MAX_QUEUES).queue("DEFINED")).server();
        // the admin plugin's two queues count
        assertEquals(Set.of("DEFINED", org.wharfmq.server.queue.SystemQueues.ADMIN_COMMAND_QUEUE,
                org.wharfmq.server.queue.SystemQueues.ADMIN_REPLY_QUEUE), server.queueManager().queueNames());
        Session session = connect(server).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageProducer a = session.createProducer(session.createQueue("A"));
        session.createProducer(session.createQueue("B"));
        TemporaryQueue temporary = session.createTemporaryQueue(); // the fifth queue

        Queue c = session.createQueue("C");
        assertTooManyQueues("C", () -> session.createProducer(c));
        assertTooManyQueues("C", () -> session.createConsumer(c));
        assertTooManyQueues("C", () -> session.createProducer(null).send(c, session.createTextMessage("refused"),
                DeliveryMode.PERSISTENT, 4, 0));
        assertTooManyQueues("TMP", session::createTemporaryQueue);
        assertFalse(server.queueManager().exists("C"), "a refusal creates nothing");

        a.send(session.createTextMessage("still works"));
        assertEquals("still works", Receive.nextText(session.createConsumer(session.createQueue("A"))).getText());

        temporary.delete(); // a place again
        session.createProducer(c).send(session.createTextMessage("fits now"));
        assertTrue(server.queueManager().exists("C"));

        clock.advance(DELAY); // B was never used: deleted, which makes a place again
        server.queueManager().deleteUnusedQueues();
        assertFalse(server.queueManager().exists("B"));
        session.createProducer(session.createQueue("D"));
        assertTooManyQueues("E", () -> session.createProducer(session.createQueue("E")));
    }

    @Test
    void anUnusedQueueCreatedByUseIsDeletedAfterTheDelayAndStaysDeletedAfterARestart() throws Exception {
        TestServer testServer = start(c -> c);
        WharfServer server = testServer.server();
        QueueManager queues = server.queueManager();
        Connection connection = connect(server);
        Session session = connection.createSession(false, Session.CLIENT_ACKNOWLEDGE);
        Queue once = session.createQueue("USED.ONCE");
        session.createProducer(once).send(session.createTextMessage("one"));
        session.createProducer(session.createQueue("KEPT.UNUSED")); // created, never used
        MessageConsumer consumer = session.createConsumer(once);
        Receive.next(consumer).acknowledge(); // answered: the queue is empty on return
        consumer.close();
        Send.barrier(session); // the close is done: USED.ONCE is unused from now

        clock.advance(DELAY - 1);
        queues.deleteUnusedQueues();
        assertTrue(queues.exists("USED.ONCE"), "unused for less than the delay: kept");
        clock.advance(1);
        queues.deleteUnusedQueues();
        assertFalse(queues.exists("USED.ONCE"), "unused for the delay: deleted");
        assertFalse(queues.exists("KEPT.UNUSED"), "unused since it was created: deleted");

        Queue again = session.createQueue("RECREATED");
        session.createProducer(again);
        clock.advance(DELAY);
        queues.deleteUnusedQueues();
        session.createProducer(again).send(session.createTextMessage("to the new one")); // created anew
        session.createProducer(session.createQueue("UNUSED.AT.STOP"));
        connection.close();
        server = testServer.restart();
        queues = server.queueManager();
        assertFalse(queues.exists("USED.ONCE"), "the deletion is journaled");
        assertFalse(queues.exists("KEPT.UNUSED"), "the deletion is journaled");
        assertEquals(1, queues.depth("RECREATED"), "a name deleted and created again is the new queue");
        assertTrue(queues.exists("UNUSED.AT.STOP"), "a queue created by use is recovered");
        clock.advance(DELAY);
        queues.deleteUnusedQueues();
        assertFalse(queues.exists("UNUSED.AT.STOP"), "a recovered queue is deleted once unused for the delay");
        assertEquals(1, queues.depth("RECREATED"), "a persistent message keeps its queue");
    }

    @Test
    void queuesInUseAndDefinedQueuesAreKept() throws Exception {
        TestServer testServer = start(c -> c.queue("DEFINED"));
        WharfServer server = testServer.server();
        QueueManager queues = server.queueManager();
        Connection connection = connect(server);
        Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        session.createProducer(session.createQueue("HOLDS.MESSAGE")).send(session.createTextMessage("kept"));
        MessageConsumer consumer = session.createConsumer(session.createQueue("HAS.CONSUMER"));
        QueueBrowser browser = session.createBrowser(session.createQueue("HAS.BROWSER"));
        browser.getEnumeration(); // the browse stays open until the browser closes
        Session transacted = connection.createSession(true, Session.SESSION_TRANSACTED);
        transacted.createProducer(transacted.createQueue("IN.TRANSACTION"))
                .send(transacted.createTextMessage("not committed"));
        Send.barrier(session);

        clock.advance(10 * DELAY);
        queues.deleteUnusedQueues();
        for (String name : List.of("DEFINED", "HOLDS.MESSAGE", "HAS.CONSUMER", "HAS.BROWSER", "IN.TRANSACTION")) {
            assertTrue(queues.exists(name), name + " is in use or defined: kept");
        }

        consumer.close();
        browser.close();
        transacted.rollback();
        Send.barrier(session);
        clock.advance(DELAY);
        queues.deleteUnusedQueues();
        for (String name : List.of("HAS.CONSUMER", "HAS.BROWSER", "IN.TRANSACTION")) {
            assertFalse(queues.exists(name), name + " is no longer in use: deleted");
        }
        assertTrue(queues.exists("DEFINED"), "a defined queue is never deleted");
        assertEquals(1, queues.depth("HOLDS.MESSAGE"));
        connection.close();
        server = testServer.restart();
        clock.advance(10 * DELAY);
        server.queueManager().deleteUnusedQueues();
        assertEquals(1, server.queueManager().depth("HOLDS.MESSAGE"), "its persistent message keeps it across a restart");
        assertTrue(server.queueManager().exists("DEFINED"));
    }

    @Test
    void sendsAndConsumersRacingTheDeletionLoseNothing() throws Exception {
        WharfServer server = start(c -> c).server();
        QueueManager queues = server.queueManager();
        // every reading of the clock is a delay after the one before: a queue is unused long enough as soon as it
        // is unused, even in the instant between a client's lookup of a queue it has just created and its
        // reservation or attachment, which is when the deleter races it
        clock.advanceOnEveryRead(DELAY);
        AtomicBoolean racing = new AtomicBoolean(true);
        CompletableFuture<Integer> deleter = CompletableFuture.supplyAsync(() -> {
            int deleted = 0;
            while (racing.get()) {
                deleted += queues.deleteUnusedQueues();
            }
            return deleted;
        });
        Connection connection = connect(server);
        Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        Session transacted = connection.createSession(true, Session.SESSION_TRANSACTED);
        try {
            // sends in a transaction: each takes its place on its queue (depth 1) at once; the rollback then empties
            // the queues, which keeps the deleter's rounds short and so its races frequent
            MessageProducer sender = transacted.createProducer(null); // an anonymous producer creates no queue itself
            for (int batch = 0; batch < RACE_BATCHES; batch++) {
                for (int i = 0; i < RACE_BATCH; i++) {
                    sender.send(transacted.createQueue("SENT." + batch + "." + i), transacted.createTextMessage("m"),
                            DeliveryMode.NON_PERSISTENT, 4, 0);
                }
                Send.barrier(transacted); // every send of the batch has been served
                for (int i = 0; i < RACE_BATCH; i++) {
                    String name = "SENT." + batch + "." + i;
                    assertTrue(queues.exists(name) && queues.depth(name) == 1, "the message sent to " + name
                            + " is on its queue");
                }
                transacted.rollback();
            }
            MessageProducer producer = session.createProducer(null);
            for (int i = 0; i < RACE_CONSUMERS; i++) {
                Queue queue = session.createQueue("CONSUMED." + i);
                MessageConsumer consumer = session.createConsumer(queue); // creates the queue, raced by the deleter
                producer.send(queue, session.createTextMessage("c" + i), DeliveryMode.NON_PERSISTENT, 4, 0);
                assertEquals("c" + i, Receive.nextText(consumer).getText(), "the consumer is on the queue sent to");
                consumer.close();
            }
        } finally {
            racing.set(false);
        }
        assertTrue(deleter.get(30, TimeUnit.SECONDS) > 0, "queues were deleted while the clients used them");
    }

    /**
     * A server whose queues read the test's clock, with a flow host and the admin plugin as the distribution runs them
     * (the admin command and reply queues are among the queues counted); {@code customizer} adds to this test's config.
     */
    private TestServer start(UnaryOperator<ServerConfig.Builder> customizer) throws Exception {
        TestServer server = TestServer.start(c -> customizer.apply(c.autoDeleteDelayMillis(DELAY)),
                config -> WharfServer.builder(config).clock(clock).plugins(new FlowHost(), new AdminPlugin()).start());
        opened.add(server);
        return server;
    }

    private Connection connect(WharfServer server) throws JMSException {
        Connection connection = new WharfConnectionFactory(server.vmUrl()).createConnection();
        opened.add(connection);
        connection.start();
        return connection;
    }

    private static void assertTooManyQueues(String queue, Refused action) {
        JMSException refused = assertThrows(JMSException.class, action::run);
        assertEquals("TOO_MANY_QUEUES", refused.getErrorCode(), refused.getMessage());
        String message = String.valueOf(refused.getMessage());
        assertTrue(message.contains("'" + queue) && message.contains("maximum of " + MAX_QUEUES + " queues")
                && message.contains("setting maxQueues"), message);
    }

    @FunctionalInterface
    private interface Refused {
        void run() throws Exception;
    }
}
