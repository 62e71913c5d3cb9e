package org.wharfmq.server.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.server.store.JournalMessageStore;

import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.Destination;
import javax.jms.IllegalStateException;
import javax.jms.InvalidDestinationException;
import javax.jms.InvalidDestinationRuntimeException;
import javax.jms.JMSConsumer;
import javax.jms.JMSContext;
import javax.jms.JMSException;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Queue;
import javax.jms.Session;
import javax.jms.TemporaryQueue;
import javax.jms.TemporaryTopic;
import javax.jms.TextMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * JMS 2.0 temporary queues (section 6.2.2 "Creating temporary destinations" and the TemporaryQueue javadoc): a
 * temporary queue is unique, lives as long as its connection, can be consumed only by that connection, can be
 * sent to by anyone who has it (JMSReplyTo), and deleting it while it is in use fails.
 */
@Timeout(60)
class TemporaryQueueTest {

    @RegisterExtension
    static final WharfServerExtension WHARF = WharfServerExtension.withDefaults();

    /** How long what the test waits for may take: it bounds a hang only (a loaded machine is slow). */
    private static final long SERVER_NOTICES_DROP_MS = 30_000;

    @Test
    void temporaryQueuesAreUniqueAcrossConnectionsAndCarryMessages() throws Exception {
        Connection a = WHARF.connect(Transport.TCP);
        Connection b = WHARF.connect(Transport.VM);
        Session sa = a.createSession(false, Session.AUTO_ACKNOWLEDGE);
        Session sb = b.createSession(false, Session.AUTO_ACKNOWLEDGE);
        TemporaryQueue qa1 = sa.createTemporaryQueue();
        TemporaryQueue qa2 = sa.createTemporaryQueue();
        TemporaryQueue qb = sb.createTemporaryQueue();
        assertNotEquals(qa1.getQueueName(), qa2.getQueueName());
        assertNotEquals(qa1.getQueueName(), qb.getQueueName());
        assertTrue(qa1.getQueueName().startsWith("TMP."), qa1.getQueueName());

        // another session of the same connection may consume it: the scope is the connection (JMS 6.2.2)
        Session other = a.createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer consumer = other.createConsumer(qa1);
        sb.createProducer(qa1).send(sb.createTextMessage("from b"));
        TextMessage received = Receive.nextText(consumer);
        assertEquals("from b", received.getText());
        assertEquals(qa1, received.getJMSDestination());
        assertInstanceOf(TemporaryQueue.class, received.getJMSDestination());
    }

    @Test
    void anotherConnectionCannotConsumeFromIt() throws Exception {
        Session owner = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
        TemporaryQueue queue = owner.createTemporaryQueue();
        Session stranger = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
        InvalidDestinationException e = assertThrows(InvalidDestinationException.class, () -> stranger.createConsumer(queue));
        assertTrue(e.getMessage().contains(queue.getQueueName()) && e.getMessage().contains("another connection"),
                e.getMessage());
        // ...but may send to it
        stranger.createProducer(queue).send(stranger.createTextMessage("allowed"));
        assertEquals("allowed", Receive.nextText(owner.createConsumer(queue)).getText());
    }

    @Test
    void deleteWhileAConsumerIsOpenFailsThenSucceedsOnceItIsClosed() throws Exception {
        Session session = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
        TemporaryQueue queue = session.createTemporaryQueue();
        MessageConsumer consumer = session.createConsumer(queue);
        IllegalStateException e = assertThrows(IllegalStateException.class, queue::delete);
        assertTrue(e.getMessage().contains("consumer"), e.getMessage());
        consumer.close();
        queue.delete();
        assertFalse(WHARF.server().queueManager().temporaryQueueNames().contains(queue.getQueueName()));
    }

    /**
     * After the server has accepted one consumer on a queue, the next ones there are created without waiting for
     * its answer; deleting the queue must bring back the synchronous refusal.
     */
    @Test
    void consumersCreatedWithoutWaitingGetTheirMessagesAndADeletedQueueIsStillRefusedAtOnce() throws Exception {
        Session session = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
        TemporaryQueue queue = session.createTemporaryQueue();
        MessageProducer producer = session.createProducer(queue);
        for (int i = 0; i < 20; i++) {
            // the request/reply pattern: a consumer per message, selecting it by a property
            MessageConsumer consumer = session.createConsumer(queue, "n = " + i);
            TextMessage m = session.createTextMessage("m" + i);
            m.setIntProperty("n", i);
            producer.send(m);
            TextMessage got = (TextMessage) consumer.receive(5000);
            assertEquals("m" + i, got == null ? null : got.getText());
            consumer.close();
        }
        queue.delete();
        assertThrows(InvalidDestinationException.class, () -> session.createConsumer(queue),
                "refused at createConsumer, not at a later receive");
    }

    @Test
    void sendingToOrConsumingFromADeletedTemporaryQueueFails() throws Exception {
        Session owner = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
        TemporaryQueue queue = owner.createTemporaryQueue();
        Session sender = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageProducer anonymous = sender.createProducer(null);
        anonymous.send(queue, sender.createTextMessage("before"));
        queue.delete();

        // the deleting connection knows at once
        assertThrows(InvalidDestinationException.class, () -> owner.createProducer(queue));
        assertThrows(InvalidDestinationException.class, () -> owner.createConsumer(queue));
        // another connection learns it from the server
        InvalidDestinationException e = assertThrows(InvalidDestinationException.class,
                () -> anonymous.send(queue, sender.createTextMessage("after"), DeliveryMode.PERSISTENT, 4, 0));
        assertTrue(e.getMessage().contains(queue.getQueueName()), e.getMessage());
        assertThrows(InvalidDestinationException.class, () -> sender.createProducer(queue));
        assertThrows(InvalidDestinationException.class, queue::delete, "deleting twice");
    }

    @Test
    void closingTheConnectionDeletesItsTemporaryQueuesAndTheirMessages() throws Exception {
        Connection owner = WHARF.factory(Transport.TCP).createConnection();
        Session session = owner.createSession(false, Session.AUTO_ACKNOWLEDGE);
        TemporaryQueue queue = session.createTemporaryQueue();
        session.createProducer(queue).send(session.createTextMessage("left behind"), DeliveryMode.PERSISTENT, 4, 0);
        assertTrue(WHARF.server().queueManager().temporaryQueueNames().contains(queue.getQueueName()));
        owner.close();

        assertFalse(WHARF.server().queueManager().temporaryQueueNames().contains(queue.getQueueName()),
                "CLOSE is answered after the connection's temporary queues are gone");
        Session sender = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
        assertThrows(InvalidDestinationException.class, () -> sender.createProducer(queue));
        assertThrows(IllegalStateException.class, queue::delete, "its connection is closed");
    }

    @Test
    void aDroppedConnectionsTemporaryQueuesAreDeleted() throws Exception {
        try (TcpProxy proxy = TcpProxy.start(WHARF.server().tcpPort())) {
            // a client that does not come back (reconnecting, it would create its temporary queue again by name)
            Connection doomed = WHARF.track(new WharfConnectionFactory(proxy.url() + "?reconnectAttempts=0").createConnection());
            doomed.setExceptionListener(e -> { });
            Session session = doomed.createSession(false, Session.CLIENT_ACKNOWLEDGE);
            TemporaryQueue queue = session.createTemporaryQueue();
            MessageProducer producer = session.createProducer(queue);
            producer.send(session.createTextMessage("one"), DeliveryMode.PERSISTENT, 4, 0);
            producer.send(session.createTextMessage("two"), DeliveryMode.PERSISTENT, 4, 0);
            doomed.start();
            // one delivered and unacknowledged when the connection dies: it must not resurrect the queue
            assertEquals("one", Receive.nextText(session.createConsumer(queue)).getText());
            proxy.killConnections();

            String name = queue.getQueueName();
            awaitTrue(() -> !WHARF.server().queueManager().temporaryQueueNames().contains(name),
                    "the server deletes the temporary queue once it notices the drop");
            Session sender = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
            assertThrows(InvalidDestinationException.class, () -> sender.createProducer(queue));
        }
    }

    @Test
    void persistentMessagesOnATemporaryQueueNeverReachTheJournal() throws Exception {
        JournalMessageStore journal = assertInstanceOf(JournalMessageStore.class, WHARF.server().store());
        Session session = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageProducer producer = session.createProducer(null);
        // the same exchange on a named queue is journalled: the baseline that makes the check below mean something
        Queue named = session.createQueue(WHARF.queueName("journal-baseline"));
        long before = journal.records();
        producer.send(named, session.createTextMessage("named"), DeliveryMode.PERSISTENT, 4, 0);
        assertTrue(journal.records() > before, "a persistent send to a named queue is journalled");

        TemporaryQueue queue = session.createTemporaryQueue();
        MessageConsumer consumer = session.createConsumer(queue);
        long atStart = journal.records();
        producer.send(queue, session.createTextMessage("temporary"), DeliveryMode.PERSISTENT, 4, 0);
        assertEquals("temporary", Receive.nextText(consumer).getText());
        consumer.close();
        queue.delete();
        assertEquals(atStart, journal.records(), "nothing about a temporary queue is journalled");
    }

    /** RR-4b of the benchmarks: every requester has its own temporary reply queue named in JMSReplyTo. */
    @Test
    void requestReplyWithATemporaryReplyQueuePerRequester() throws Exception {
        int requesters = 16;
        int requestsEach = 25;
        String requestQueue = WHARF.queueName("rr4b-request");
        Connection responderConnection = WHARF.connect(Transport.TCP);
        Session responder = responderConnection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageProducer replier = responder.createProducer(null);
        responder.createConsumer(responder.createQueue(requestQueue)).setMessageListener(request -> {
            try {
                Destination replyTo = request.getJMSReplyTo();
                assertInstanceOf(TemporaryQueue.class, replyTo);
                TextMessage reply = responder.createTextMessage("re:" + ((TextMessage) request).getText());
                reply.setJMSCorrelationID(request.getJMSMessageID());
                replier.send(replyTo, reply);
            } catch (JMSException e) {
                throw new java.lang.IllegalStateException(e);
            }
        });

        ExecutorService pool = Executors.newFixedThreadPool(requesters);
        AtomicBoolean wrongReply = new AtomicBoolean();
        try {
            List<Future<Integer>> results = new ArrayList<>();
            for (int r = 0; r < requesters; r++) {
                Connection connection = WHARF.connect(r % 2 == 0 ? Transport.TCP : Transport.VM);
                int requester = r;
                results.add(pool.submit(() -> {
                    Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
                    TemporaryQueue replies = session.createTemporaryQueue();
                    MessageConsumer consumer = session.createConsumer(replies);
                    MessageProducer producer = session.createProducer(session.createQueue(requestQueue));
                    int ok = 0;
                    for (int i = 0; i < requestsEach; i++) {
                        TextMessage request = session.createTextMessage(requester + "/" + i);
                        request.setJMSReplyTo(replies);
                        producer.send(request, DeliveryMode.NON_PERSISTENT, 4, 0);
                        TextMessage reply = Receive.nextText(consumer);
                        if (reply.getText().equals("re:" + requester + "/" + i)
                                && reply.getJMSCorrelationID().equals(request.getJMSMessageID())) {
                            ok++;
                        } else {
                            wrongReply.set(true);
                        }
                    }
                    return ok;
                }));
            }
            int total = 0;
            for (Future<Integer> f : results) {
                total += f.get(45, TimeUnit.SECONDS);
            }
            assertFalse(wrongReply.get(), "a requester got someone else's reply");
            assertEquals(requesters * requestsEach, total);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void jmsContextCreatesTemporaryQueuesAndTopics() throws Exception {
        try (JMSContext context = WHARF.factory(Transport.VM).createContext()) {
            TemporaryQueue queue = context.createTemporaryQueue();
            context.createProducer().send(queue, "through the context");
            try (JMSConsumer consumer = context.createConsumer(queue)) {
                assertEquals("through the context", consumer.receiveBody(String.class, Receive.EXPECTED_MS));
                assertThrows(IllegalStateException.class, queue::delete, "in use by the consumer");
            }
            TemporaryTopic topic = context.createTemporaryTopic();
            assertTrue(WHARF.server().topicManager().temporaryTopicExists(topic.getTopicName()));
            topic.delete();
            assertFalse(WHARF.server().topicManager().temporaryTopicExists(topic.getTopicName()));
            queue.delete();
            assertThrows(InvalidDestinationRuntimeException.class, () -> context.createProducer().send(queue, "gone"));
        }
    }

    @Test
    void temporaryTopicsAreOwnedAndDeletedWithTheirConnection() throws Exception {
        Connection owner = WHARF.factory(Transport.TCP).createConnection();
        TemporaryTopic topic = owner.createSession(false, Session.AUTO_ACKNOWLEDGE).createTemporaryTopic();
        assertTrue(topic.getTopicName().startsWith("TMP."));
        assertTrue(WHARF.server().topicManager().temporaryTopicExists(topic.getTopicName()));
        owner.close();
        assertFalse(WHARF.server().topicManager().temporaryTopicExists(topic.getTopicName()));
    }

    @Test
    void temporaryTopicsCarryPublicationsOnlyToTheirOwnConnectionsSubscribers() throws Exception {
        Connection owner = WHARF.connect(Transport.TCP);
        Session session = owner.createSession(false, Session.AUTO_ACKNOWLEDGE);
        TemporaryTopic topic = session.createTemporaryTopic();
        MessageConsumer first = session.createConsumer(topic);
        MessageConsumer second = owner.createSession(false, Session.AUTO_ACKNOWLEDGE).createConsumer(topic);
        // a wildcard subscription on ordinary topics never sees a temporary topic's publications
        MessageConsumer everything = session.createConsumer(session.createTopic("#"));

        Session publisher = WHARF.connect(Transport.VM).createSession(false, Session.AUTO_ACKNOWLEDGE);
        publisher.createProducer(topic).send(publisher.createTextMessage("to both"));
        assertEquals("to both", Receive.nextText(first).getText());
        assertEquals("to both", Receive.nextText(second).getText());
        Receive.nothingMore(everything); // the publication was persistent: routed before its send returned

        // only the owning connection may subscribe (JMS 6.2.2)
        assertThrows(InvalidDestinationException.class, () -> publisher.createConsumer(topic));
        // not deleted while it has subscribers; once they are closed it goes, and publishing to it fails
        assertThrows(IllegalStateException.class, topic::delete);
        first.close();
        second.close();
        topic.delete();
        assertFalse(WHARF.server().topicManager().temporaryTopicExists(topic.getTopicName()));
        MessageProducer stale = publisher.createProducer(null);
        assertThrows(InvalidDestinationException.class,
                () -> stale.send(topic, publisher.createTextMessage("gone"), DeliveryMode.PERSISTENT, 4, 0));
    }

    @Test
    void aReceivedCopyCannotDeleteTheQueue() throws Exception {
        Session owner = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
        TemporaryQueue queue = owner.createTemporaryQueue();
        String carrier = WHARF.queueName("carrier");
        TextMessage message = owner.createTextMessage("reply to me");
        message.setJMSReplyTo(queue);
        owner.createProducer(owner.createQueue(carrier)).send(message);
        Session other = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
        TemporaryQueue copy = (TemporaryQueue) Receive.next(other.createConsumer(other.createQueue(carrier))).getJMSReplyTo();
        assertEquals(queue, copy);
        assertThrows(IllegalStateException.class, copy::delete);
        assertTrue(WHARF.server().queueManager().temporaryQueueNames().contains(queue.getQueueName()));
    }

    /** Waits for server-side state that changes asynchronously (a dropped connection noticed), up to a deadline. */
    private static void awaitTrue(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(SERVER_NOTICES_DROP_MS);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, what + " (within " + SERVER_NOTICES_DROP_MS + " ms)");
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
    }
}
