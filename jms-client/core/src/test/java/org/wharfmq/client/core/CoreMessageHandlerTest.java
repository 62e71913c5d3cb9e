package org.wharfmq.client.core;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.wharfmq.client.core.transport.BrokerAddress;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.message.WireDestination;
import org.wharfmq.server.TestServer;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.wharfmq.client.core.TestSessions.open;
import static org.wharfmq.client.core.TestSessions.producer;
import static org.wharfmq.client.core.TestSessions.receiveNoWait;
import static org.wharfmq.client.core.TestWaits.WAIT;
import static org.wharfmq.client.core.TestWaits.awaitTrue;
import static org.wharfmq.client.core.TestWaits.waitsIn;

/**
 * Consuming asynchronously through the core alone ({@link CoreConsumer#handleWith}, {@link MessageHandler}), against a
 * real server: a session's handlers run one at a time on its own thread, in arrival order; the connection's stop waits
 * for a running handler and nothing runs until it starts again; a handler may close its own session or consumer; a
 * handler that throws gets the message again. What the server holds afterwards is asked of it (another session drains
 * the queue, or its depth), not waited for.
 */
class CoreMessageHandlerTest {
    private static final AtomicInteger QUEUES = new AtomicInteger();

    private static TestServer server;
    private CoreConnection connection;

    @BeforeAll
    static void startServer() throws Exception {
        server = TestServer.start();
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    @AfterEach
    void closeConnection() {
        if (connection != null) {
            connection.close();
        }
    }

    private CoreConnection connect() throws Exception {
        connection = CoreConnection.connect(ConnectionSettings.of(BrokerAddress.tcp("127.0.0.1",
                server.server().tcpPort()), null, null, "core-handler-test"), ConnectionListener.NONE);
        connection.start();
        return connection;
    }

    @Test
    void aSessionsHandlersRunOneAtATimeOnItsOwnThreadInArrivalOrder() throws Exception {
        CoreConnection c = connect();
        WireDestination a = queue();
        WireDestination b = queue();
        WireDestination replies = queue();
        CoreSession session = open(c, CoreSettlement.AUTO_ACKNOWLEDGE);
        int replier = producer(session, replies);
        int count = 40;
        List<String> fromA = new CopyOnWriteArrayList<>();
        List<String> fromB = new CopyOnWriteArrayList<>();
        Set<Thread> threads = ConcurrentHashMap.newKeySet();
        AtomicInteger running = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch all = new CountDownLatch(2 * count);
        MessageHandler<TestMessages.Received> onA = m -> run(running, overlaps, threads, all, () -> {
            fromA.add(m.text);
            // a send waiting for the server's answer on its own session: the reader is another thread
            TestMessages.send(session, replier, replies, "re-" + m.text);
        }, failure);
        MessageHandler<TestMessages.Received> onB = m -> run(running, overlaps, threads, all, () -> fromB.add(m.text),
                failure);
        CoreConsumer consumerA = handler(session, a, onA);
        handler(session, b, onB);

        CoreSession sending = open(c, CoreSettlement.AUTO_ACKNOWLEDGE);
        int toA = producer(sending, a);
        int toB = producer(sending, b);
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            TestMessages.send(sending, toA, a, "a" + i);
            TestMessages.send(sending, toB, b, "b" + i);
            expected.add(String.valueOf(i));
        }

        assertTrue(all.await(WAIT, TimeUnit.NANOSECONDS), () -> "handled " + fromA.size() + " + " + fromB.size());
        assertNull(failure.get(), () -> "a handler failed: " + failure.get());
        assertEquals(0, overlaps.get(), "two handlers of one session ran at once");
        assertEquals(expected.stream().map(i -> "a" + i).toList(), fromA, "queue A out of order");
        assertEquals(expected.stream().map(i -> "b" + i).toList(), fromB, "queue B out of order");
        assertEquals(1, threads.size(), "one thread runs a session's handlers");
        Thread handlerThread = threads.iterator().next();
        assertTrue(handlerThread.getName().startsWith("wharf-session-" + session.id() + "-"), handlerThread.getName());
        awaitTrue(() -> depth(a) == 0 && depth(b) == 0, "every handled message acknowledged");
        assertEquals(count, depth(replies), "every handler's send is on the queue");
        ClientException refused = assertThrows(ClientException.class, () -> TestSessions.receive(consumerA, 0),
                "a consumer with a handler also received");
        assertEquals(ErrorCode.ILLEGAL_STATE, refused.code(), refused.getMessage());
    }

    @Test
    void stopWaitsForARunningHandlerAndNoHandlerRunsUntilStart() throws Exception {
        CoreConnection c = connect();
        WireDestination q = queue();
        CoreSession session = open(c, CoreSettlement.AUTO_ACKNOWLEDGE);
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicBoolean firstReturned = new AtomicBoolean();
        AtomicBoolean mayRun = new AtomicBoolean(true);
        List<String> handled = new CopyOnWriteArrayList<>();
        List<String> ranWhileStopped = new CopyOnWriteArrayList<>();
        CountDownLatch all = new CountDownLatch(6);
        CoreConsumer consumer = handler(session, q, m -> {
            if (!mayRun.get()) {
                ranWhileStopped.add(m.text);
            }
            handled.add(m.text);
            if (m.text.equals("m1")) {
                entered.countDown();
                await(release);
                firstReturned.set(true);
            }
            all.countDown();
        });
        CoreSession sending = open(c, CoreSettlement.AUTO_ACKNOWLEDGE);
        int producer = producer(sending, q);
        TestMessages.send(sending, producer, q, "m1");
        assertTrue(entered.await(WAIT, TimeUnit.NANOSECONDS), "the handler never ran");

        AtomicBoolean returnedAfterHandler = new AtomicBoolean();
        Thread stopper = new Thread(() -> {
            c.stop();
            returnedAfterHandler.set(firstReturned.get());
        }, "stopper");
        stopper.start();
        awaitTrue(() -> waitsIn(stopper, SessionDispatcher.class, "awaitIdle"), "the stop waits for the handler");
        release.countDown();
        stopper.join(TimeUnit.NANOSECONDS.toMillis(WAIT));
        assertFalse(stopper.isAlive(), "the stop never returned");
        assertTrue(returnedAfterHandler.get(), "the stop returned while the handler ran");

        mayRun.set(false);
        for (int i = 2; i <= 6; i++) {
            TestMessages.send(sending, producer, q, "m" + i);
        }
        // all five arrived while stopped: had a handler taken one, the buffer would never hold five
        awaitTrue(() -> consumer.buffered() == 5, "the five sent while stopped are buffered");
        mayRun.set(true);
        c.start();

        assertTrue(all.await(WAIT, TimeUnit.NANOSECONDS), () -> "handled " + handled);
        assertEquals(List.of(), ranWhileStopped, "a handler ran while the connection was stopped");
        assertEquals(List.of("m1", "m2", "m3", "m4", "m5", "m6"), handled);
    }

    @Test
    void aHandlerMayCloseItsOwnSessionAndWhatItHadNotSettledComesBack() throws Exception {
        CoreConnection c = connect();
        WireDestination q = queue();
        sendNumbered(open(c, CoreSettlement.AUTO_ACKNOWLEDGE), q, 5);
        CoreSession session = open(c, CoreSettlement.AUTO_ACKNOWLEDGE);
        List<String> handled = new CopyOnWriteArrayList<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch closed = new CountDownLatch(1);
        handler(session, q, m -> {
            handled.add(m.text);
            try {
                session.close(); // waits for the running handler, unless it is the caller: else it never returns
            } catch (Throwable t) {
                failure.set(t);
            }
            closed.countDown();
        });

        assertTrue(closed.await(WAIT, TimeUnit.NANOSECONDS), "the close inside the handler never returned");
        assertNull(failure.get(), () -> "the close failed: " + failure.get());
        assertTrue(session.isClosed());
        assertEquals(Map.of("m1", 2, "m2", 1, "m3", 1, "m4", 1, "m5", 1), drain(open(c, CoreSettlement.AUTO_ACKNOWLEDGE), q),
                "the message being handled comes back redelivered, the buffered ones as they were");
        assertEquals(List.of("m1"), handled, "a handler ran after its session closed");
    }

    @Test
    void aHandlerMayCloseItsOwnConsumerAndItsMessageCountsAsConsumed() throws Exception {
        CoreConnection c = connect();
        WireDestination q = queue();
        CoreSession session = open(c, CoreSettlement.AUTO_ACKNOWLEDGE);
        sendNumbered(session, q, 5);
        List<String> handled = new CopyOnWriteArrayList<>();
        CoreConsumer[] consumer = new CoreConsumer[1];
        CountDownLatch closed = new CountDownLatch(1);
        consumer[0] = session.createConsumer(new CoreConsumer.Spec(session.id(), q, null, 10, 0, null));
        consumer[0].handleWith(TestMessages.RECEIVED, m -> {
            handled.add(m.text);
            session.closeConsumer(consumer[0]);
            closed.countDown();
        });

        assertTrue(closed.await(WAIT, TimeUnit.NANOSECONDS), "the consumer's close inside its handler never returned");
        assertEquals(Map.of("m2", 1, "m3", 1, "m4", 1, "m5", 1), drain(session, q),
                "the handled message is acknowledged, the buffered ones come back as they were");
        assertEquals(List.of("m1"), handled, "a handler ran after its consumer closed");
        awaitTrue(() -> depth(q) == 0, "the handled message acknowledged");
    }

    @Test
    void aHandlerThatThrowsGetsTheMessageAgainMarkedRedelivered() throws Exception {
        CoreConnection c = connect();
        WireDestination q = queue();
        sendNumbered(open(c, CoreSettlement.AUTO_ACKNOWLEDGE), q, 3);
        CoreSession session = open(c, CoreSettlement.AUTO_ACKNOWLEDGE);
        List<String> handled = new CopyOnWriteArrayList<>();
        CountDownLatch all = new CountDownLatch(4);
        handler(session, q, m -> {
            handled.add(m.text + "/" + m.deliveryCount);
            all.countDown();
            if (m.text.equals("m1") && m.deliveryCount == 1) {
                throw new IllegalStateException("a handler's failure, on purpose");
            }
        });

        assertTrue(all.await(WAIT, TimeUnit.NANOSECONDS), () -> "handled " + handled);
        assertEquals(List.of("m1/1", "m1/2", "m2/1", "m3/1"), handled,
                "the failed message again, marked redelivered, then the rest in order");
        awaitTrue(() -> depth(q) == 0, "every handled message acknowledged");
    }

    /**
     * A non-durable subscriber's handler in AUTO_ACKNOWLEDGE mode: its acknowledgements ride with the connection's
     * next frames, joining one frame while it waits, and every publication handled ends acknowledged, in order.
     */
    @Test
    void aNonDurableSubscribersHandledPublicationsAllEndAcknowledged() throws Exception {
        CoreConnection c = connect();
        WireDestination topic = WireDestination.topic("core/handler/" + QUEUES.incrementAndGet());
        CoreSession session = open(c, CoreSettlement.AUTO_ACKNOWLEDGE);
        List<String> handled = new CopyOnWriteArrayList<>();
        int count = 53;
        CountDownLatch all = new CountDownLatch(count);
        handler(session, topic, m -> {
            handled.add(m.text);
            all.countDown();
        });
        CoreSession publishing = open(c, CoreSettlement.AUTO_ACKNOWLEDGE);
        int publisher = producer(publishing, topic);
        List<String> expected = new ArrayList<>();
        for (int i = 1; i <= count; i++) {
            TestMessages.send(publishing, publisher, topic, "p" + i);
            expected.add("p" + i);
        }

        assertTrue(all.await(WAIT, TimeUnit.NANOSECONDS), () -> "handled " + handled);
        assertEquals(expected, handled, "every publication once, in order");
        awaitTrue(() -> subscriptionDepth(topic) == 0, "every handled publication acknowledged");
    }

    // ---- helpers ----

    /** What the one subscription of {@code topic} holds, unacknowledged deliveries included. */
    private static long subscriptionDepth(WireDestination topic) {
        return server.server().management().subscriptions().stream()
                .filter(s -> s.topic().equals(topic.name()))
                .mapToLong(org.wharfmq.server.topic.TopicManager.SubscriptionInfo::depth).sum();
    }

    /** A fresh queue of this test's own. */
    private static WireDestination queue() {
        return WireDestination.queue("CORE.HANDLER." + QUEUES.incrementAndGet());
    }

    private static long depth(WireDestination queue) {
        return server.server().queueManager().depth(queue.name());
    }

    /** Sends m1 to m{@code count} to {@code queue} from {@code session}, persistent: each on the queue on return. */
    private static void sendNumbered(CoreSession session, WireDestination queue, int count) throws ClientException {
        int producer = producer(session, queue);
        for (int i = 1; i <= count; i++) {
            TestMessages.send(session, producer, queue, "m" + i);
        }
    }

    /** A consumer of {@code queue} in {@code session} (prefetch 10) that hands its messages to {@code handler}. */
    private static CoreConsumer handler(CoreSession session, WireDestination queue,
                                        MessageHandler<TestMessages.Received> handler) throws ClientException {
        CoreConsumer consumer = session.createConsumer(new CoreConsumer.Spec(session.id(), queue, null, 10, 0, null));
        consumer.handleWith(TestMessages.RECEIVED, handler);
        return consumer;
    }

    /** What a handler may throw inside {@link #run}. */
    private interface Body {
        void run() throws Exception;
    }

    /** Runs a handler's body, counting handlers running at once and noting its thread and any failure. */
    private static void run(AtomicInteger running, AtomicInteger overlaps, Set<Thread> threads, CountDownLatch done,
                            Body body, AtomicReference<Throwable> failure) {
        if (running.incrementAndGet() > 1) {
            overlaps.incrementAndGet();
        }
        threads.add(Thread.currentThread());
        try {
            body.run();
        } catch (Throwable t) {
            failure.compareAndSet(null, t);
        } finally {
            running.decrementAndGet();
            done.countDown();
        }
    }

    /**
     * Every message on {@code queue}, taken by a new consumer of {@code session} until the server's answer to a PULL
     * says there is no more: each text with its delivery count.
     */
    private static Map<String, Integer> drain(CoreSession session, WireDestination queue) throws ClientException {
        CoreConsumer consumer = session.createConsumer(new CoreConsumer.Spec(session.id(), queue, null, 10, 0, null));
        Map<String, Integer> counts = new TreeMap<>();
        for (TestMessages.Received m; (m = receiveNoWait(consumer)) != null; ) {
            assertNull(counts.put(m.text, m.deliveryCount), "delivered twice");
        }
        return counts;
    }

    private static void await(CountDownLatch latch) {
        try {
            assertTrue(latch.await(WAIT, TimeUnit.NANOSECONDS), "never released");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
