package org.wharfmq.client.core;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.wharfmq.client.core.transport.BrokerAddress;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.frame.MalformedFrameException;
import org.wharfmq.protocol.message.WireDestination;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.queue.LocalQueue;
import org.wharfmq.server.queue.SystemQueues;
import org.wharfmq.server.topic.TopicManager;

import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.wharfmq.client.core.TestSessions.receive;
import static org.wharfmq.client.core.TestSessions.receiveNoWait;
import static org.wharfmq.client.core.TestSessions.open;
import static org.wharfmq.client.core.TestSessions.producer;

/**
 * The core client's consumer and its session's settlement against a real server, through the core's API alone:
 * messages received from its buffer ({@link CoreConsumer#receive}) with its credit returned in batches,
 * acknowledgement, a transaction's rollback and commit, a recover (a PULL then finds nothing left), a delivery its
 * decoder cannot read rejected to the dead-letter queue, and the consumer created again after the server comes back.
 */
class CoreConsumerTest {
    private static final WireDestination QUEUE = WireDestination.queue("CORE.CONSUMED");
    private static final WireDestination TOPIC = WireDestination.topic("core/consumed");
    private static final long WAIT = TimeUnit.SECONDS.toNanos(10);

    private TestServer server;
    private CoreConnection connection;

    @BeforeEach
    void start() throws Exception {
        server = TestServer.start();
    }

    @AfterEach
    void stop() {
        if (connection != null) {
            connection.close();
        }
        server.close();
    }

    private CoreConnection connect(ReconnectPolicy reconnect, ConnectionListener listener) throws ClientException {
        connection = CoreConnection.connect(ConnectionSettings.of(BrokerAddress.tcp("127.0.0.1",
                server.server().tcpPort()), null, null, "core-consumer-test").withReconnect(reconnect), listener);
        return connection;
    }

    @Test
    void takesWhatIsSentAsFarAsTheReturnedCreditGoesAndAnAcknowledgementSettlesIt() throws Exception {
        CoreConnection c = connect(ReconnectPolicy.NONE, ConnectionListener.NONE);
        c.start();
        CoreSession session = open(c, CoreSettlement.CLIENT_ACKNOWLEDGE);
        int producer = producer(session, QUEUE);
        for (int i = 1; i <= 10; i++) {
            send(session, producer, "m" + i);
        }
        // a window of 4, returned 2 at a time as they are consumed: all ten come only if the credit goes back
        CoreConsumer consumer = consumer(session, 4);
        long last = 0;
        for (int i = 1; i <= 10; i++) {
            TestMessages.Received m = receive(consumer, WAIT);
            assertNotNull(m, "message " + i + " did not come");
            assertEquals("m" + i, m.text);
            last = m.deliveryId;
        }
        assertEquals(last, consumer.unacknowledged());
        session.settlement().acknowledge();
        assertEquals(0, consumer.unacknowledged());

        // acknowledged: a recover (ROLLBACK) of the session gives back nothing
        session.settlement().rollback("ROLLBACK (recover)");
        assertNull(receiveNoWait(consumer), "the PULL found a message the acknowledgement should have settled");
    }

    /**
     * Credit goes back in batches of half the prefetch window ({@link ClientConfiguration#creditBatch}), asked of the
     * server: with 30 messages queued and a window of 10, the server holds back 20 until the fifth receive returns 5,
     * and sends 5 more for them. A consumer that returned its credit per message (16 held back after four receives) or
     * a whole window at a time (still 20 after five) fails here.
     */
    @Test
    void creditGoesBackInBatchesOfHalfThePrefetchWindow() throws Exception {
        CoreConnection c = connect(ReconnectPolicy.NONE, ConnectionListener.NONE);
        c.start();
        CoreSession session = open(c, CoreSettlement.CLIENT_ACKNOWLEDGE);
        int producer = producer(session, QUEUE);
        for (int i = 1; i <= 30; i++) {
            send(session, producer, "m" + i);
        }
        CoreConsumer consumer = consumer(session, 10);
        assertEquals(20, heldBack(session), "a window of 10 sent ahead");
        take(consumer, 4);
        assertEquals(20, heldBack(session), "credit went back before half the window was consumed");
        take(consumer, 1);
        assertEquals(15, heldBack(session), "half the window consumed: its 5 of credit back, 5 more sent");
        take(consumer, 4);
        assertEquals(15, heldBack(session));
        take(consumer, 1);
        assertEquals(10, heldBack(session));
    }

    private static void take(CoreConsumer consumer, int count) throws ClientException {
        for (int i = 0; i < count; i++) {
            assertNotNull(receive(consumer, WAIT), "a message sent ahead did not come");
        }
    }

    /**
     * The messages the server holds back from the consumer (those waiting on the queue, not sent ahead), once it has
     * handled what the session wrote before: a request answered after every frame before it (CREDIT among them).
     */
    private long heldBack(CoreSession session) throws ClientException {
        producer(session, QUEUE);
        return server.server().management().browse(QUEUE.name(), null, 1000, 0).size();
    }

    @Test
    void aRollbackDeliversWhatWasConsumedAgainAndACommitSettlesIt() throws Exception {
        CoreConnection c = connect(ReconnectPolicy.NONE, ConnectionListener.NONE);
        c.start();
        CoreSession session = open(c, CoreSettlement.SESSION_TRANSACTED);
        int producer = producer(session, QUEUE);
        send(session, producer, "t1");
        session.settlement().commit();

        CoreConsumer consumer = consumer(session, 10);
        TestMessages.Received first = receive(consumer, WAIT);
        assertEquals(1, first.deliveryCount);
        assertEquals("t1", first.text);
        // the server takes back what the transaction consumed, and what it sent ahead, and sends it again
        session.settlement().rollback("ROLLBACK");

        TestMessages.Received again = receive(consumer, WAIT);
        assertEquals(2, again.deliveryCount, "delivered again after the rollback");
        assertEquals("t1", again.text);
        session.settlement().commit();
        assertEquals(0, consumer.unacknowledged());

        session.settlement().rollback("ROLLBACK");
        assertNull(receiveNoWait(consumer), "the commit should have settled it");
    }

    @Test
    void aDeliveryTheDecoderCannotReadIsRejectedToTheDeadLetterQueueAndTheNextIsReceived() throws Exception {
        CoreConnection c = connect(ReconnectPolicy.NONE, ConnectionListener.NONE);
        c.start();
        CoreSession session = open(c, CoreSettlement.AUTO_ACKNOWLEDGE);
        int producer = producer(session, QUEUE);
        send(session, producer, "unreadable");
        send(session, producer, "readable");
        CoreConsumer.Decoder<TestMessages.Received> refusing = new CoreConsumer.Decoder<>() {
            @Override
            public TestMessages.Received decode(Frame.Deliver delivery) {
                TestMessages.Received m = TestMessages.RECEIVED.decode(delivery);
                if (m.text.equals("unreadable")) {
                    throw new MalformedFrameException("the test's decoder cannot read it");
                }
                return m;
            }

            @Override
            public String messageId(TestMessages.Received message) {
                return null;
            }

            @Override
            public void markRedelivered(TestMessages.Received message) {
            }
        };

        assertEquals("readable", consumer(session, 10).receive(WAIT, false, refusing).text);
        producer(session, QUEUE); // answered once the server has handled the REJECT before it
        LocalQueue deadLetters = server.server().queueManager().queue(SystemQueues.DEAD_LETTER_QUEUE);
        assertEquals(1, deadLetters.depth(), "the unreadable delivery is not in the dead-letter queue");
        assertEquals(0, server.server().queueManager().queue(QUEUE.name()).depth());
    }

    /**
     * AUTO_ACKNOWLEDGE on a non-durable subscription: the acknowledgements are not written before each next message
     * (a crash ends the subscription, so nothing it was handed can come again), yet they reach the server before the
     * connection's next frame: once a request written after them is answered the subscription holds nothing, and a
     * recover (ROLLBACK) after them gives nothing back. A client that dropped them, or let the ROLLBACK overtake them,
     * fails here.
     */
    @Test
    void aNonDurableSubscribersAcknowledgementsGoWithTheConnectionsNextFrame() throws Exception {
        CoreConnection c = connect(ReconnectPolicy.NONE, ConnectionListener.NONE);
        c.start();
        CoreSession session = open(c, CoreSettlement.AUTO_ACKNOWLEDGE);
        CoreConsumer subscriber = session.createConsumer(new CoreConsumer.Spec(session.id(), TOPIC, null, 100, 0, null));
        int publisher = producer(session, TOPIC);
        for (int i = 1; i <= 10; i++) {
            TestMessages.send(session, publisher, TOPIC, "p" + i);
        }
        for (int i = 1; i <= 10; i++) {
            assertEquals("p" + i, receive(subscriber, WAIT).text);
        }
        producer(session, QUEUE); // answered after every frame written before it
        assertEquals(List.of(0L), server.server().management().subscriptions().stream()
                .map(TopicManager.SubscriptionInfo::depth).toList(), "unacknowledged publications left");

        TestMessages.send(session, publisher, TOPIC, "p11");
        assertEquals("p11", receive(subscriber, WAIT).text);
        session.settlement().rollback("ROLLBACK (recover)");
        assertNull(receiveNoWait(subscriber), "the recover overtook the acknowledgement of p11");
    }

    /** Only a non-durable, unshared subscription ends with its consumer; a queue and a named subscription outlive it. */
    @Test
    void onlyANonDurableUnsharedSubscriptionEndsWithItsConsumer() {
        assertTrue(spec(TOPIC, 0, null).endsWithItsConsumer());
        assertTrue(spec(TOPIC, Frame.CONSUMER_NO_LOCAL, null).endsWithItsConsumer());
        assertTrue(spec(new WireDestination(WireDestination.Kind.TEMPORARY_TOPIC, "t1"), 0, null)
                .endsWithItsConsumer());
        assertFalse(spec(QUEUE, 0, null).endsWithItsConsumer());
        assertFalse(spec(new WireDestination(WireDestination.Kind.TEMPORARY_QUEUE, "q1"), 0, null)
                .endsWithItsConsumer());
        assertFalse(spec(TOPIC, Frame.CONSUMER_DURABLE, "audit").endsWithItsConsumer());
        assertFalse(spec(TOPIC, Frame.CONSUMER_SHARED, "workers").endsWithItsConsumer());
        assertFalse(spec(TOPIC, Frame.CONSUMER_SHARED | Frame.CONSUMER_DURABLE, "workers").endsWithItsConsumer());
    }

    private static CoreConsumer.Spec spec(WireDestination destination, int flags, String subscription) {
        return new CoreConsumer.Spec(1, destination, null, 10, flags, subscription);
    }

    @Test
    void aReconnectionCreatesTheConsumerAgain() throws Exception {
        int port = server.server().tcpPort();
        BlockingQueue<Reconnector.Step> steps = new LinkedBlockingQueue<>();
        CoreConnection c = connect(new ReconnectPolicy(100, 20, 50), new ConnectionListener() {
            @Override
            public void failover(Reconnector.Step step, BrokerAddress address, int attempts, ClientException cause) {
                steps.add(step);
            }
        });
        c.start();
        CoreSession session = open(c, CoreSettlement.CLIENT_ACKNOWLEDGE);
        CoreConsumer consumer = consumer(session, 10);

        server.restart(config -> config.port(port));
        assertEquals(Reconnector.Step.DISCONNECTED, steps.poll(10, TimeUnit.SECONDS));
        assertEquals(Reconnector.Step.RECONNECTED, steps.poll(10, TimeUnit.SECONDS));

        int producer = producer(session, QUEUE);
        send(session, producer, "after");
        TestMessages.Received d = receive(consumer, WAIT);
        assertNotNull(d, "the consumer was not created again on the new link");
        assertEquals("after", d.text);
        assertEquals(c.current(), consumer.takenLink());
        assertTrue(consumer.takenLink().generation() > 1);
    }

    /** A consumer of {@link #QUEUE} in {@code session}, created on the server. */
    private static CoreConsumer consumer(CoreSession session, int prefetch) throws ClientException {
        return session.createConsumer(new CoreConsumer.Spec(session.id(), QUEUE, null, prefetch, 0, null));
    }

    private static void send(CoreSession session, int producer, String text) throws ClientException {
        TestMessages.send(session, producer, QUEUE, text);
    }
}
