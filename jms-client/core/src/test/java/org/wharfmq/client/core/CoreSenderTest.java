package org.wharfmq.client.core;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.wharfmq.client.core.transport.BrokerAddress;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.message.WireDestination;
import org.wharfmq.protocol.message.WireMessage;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.config.MemoryPolicy;
import org.wharfmq.server.queue.LocalQueue;
import org.wharfmq.server.store.MessageStore;
import org.wharfmq.server.store.StoreCompletion;
import org.wharfmq.server.store.StoredMessage;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.wharfmq.client.core.TestSessions.receive;
import static org.wharfmq.client.core.TestSessions.open;
import static org.wharfmq.client.core.TestSessions.producer;

/**
 * The core client's sending side ({@link CoreSender}) against a real server, through the core's API alone: a send
 * waits while the server holds producer credit back and goes on when it returns, asynchronous sends complete in send
 * order on the completion thread, a link lost before their answers fails them saying what is not known, and a
 * transaction's sends are seen only once committed (and not at all when the link they went over was lost).
 */
class CoreSenderTest {
    private static final String QUEUE_NAME = "CORE.SEND";
    private static final WireDestination QUEUE = WireDestination.queue(QUEUE_NAME);
    private static final ReconnectPolicy QUICKLY = new ReconnectPolicy(100, 20, 50);
    private static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(10);
    private static final long HOUR = 3_600_000;

    private TestServer server;
    private final List<CoreConnection> connections = new CopyOnWriteArrayList<>();
    /** The reconnections' steps, of every connection the test made. */
    private final BlockingQueue<Reconnector.Step> steps = new LinkedBlockingQueue<>();

    @AfterEach
    void stop() {
        connections.forEach(CoreConnection::close);
        if (server != null) {
            server.close();
        }
    }

    private void startServer(UnaryOperator<org.wharfmq.server.config.ServerConfig.Builder> config) throws Exception {
        server = TestServer.start(config);
    }

    private CoreConnection connect(ReconnectPolicy reconnect) throws ClientException {
        CoreConnection c = CoreConnection.connect(ConnectionSettings.of(BrokerAddress.tcp("127.0.0.1",
                server.server().tcpPort()), null, null, "core-send-test").withReconnect(reconnect), new ConnectionListener() {
            @Override
            public void failover(Reconnector.Step step, BrokerAddress address, int attempts, ClientException cause) {
                steps.add(step);
            }
        });
        connections.add(c);
        return c;
    }

    /** Closes {@code c}'s link under it, as a network failure would, and returns once the connection is made again. */
    private void loseLink(CoreConnection c) throws InterruptedException {
        c.current().link().close(0);
        assertEquals(Reconnector.Step.DISCONNECTED, steps.poll(10, TimeUnit.SECONDS));
        assertEquals(Reconnector.Step.RECONNECTED, steps.poll(10, TimeUnit.SECONDS));
    }

    private LocalQueue queue() {
        return server.server().queueManager().queue(QUEUE_NAME);
    }

    /** The messages offered to the queue: a transaction's sends once it commits (its depth counts them before). */
    private long enqueued() {
        return queue().snapshot().enqueued();
    }

    @Test
    void aSendWaitsWhileTheServerHoldsCreditBackAndGoesOnOnceItReturns() throws Exception {
        int window = 4096;
        long budget = 20_000;
        String body = "x".repeat(1000);
        int messages = 100; // far more than the budget and a window: a send that does not wait sends them all at once
        // what the server may hold: the budget, what was on its way when it held the producer back (a window and the
        // message that crossed it), and as much again as slack for a release racing the consumer's acknowledgements
        // (a message is its body and up to 512 bytes of headers as stored); a sender that did not wait would have
        // the queue hold all 100 messages, over 100 KB (CI saw more than budget + window + two bodies once)
        long messageBytes = body.length() + 512L;
        long bound = budget + 2L * (window + messageBytes);
        startServer(c -> c.producerWindowBytes(window).queue(QUEUE_NAME, budget, MemoryPolicy.BLOCK));
        CoreSession session = open(connect(ReconnectPolicy.NONE), CoreSettlement.AUTO_ACKNOWLEDGE);
        int producer = producer(session, QUEUE);

        CompletableFuture<Void> producing = CompletableFuture.runAsync(() -> {
            try {
                for (int i = 0; i < messages; i++) {
                    session.sender().send(producer, QUEUE, TestMessages.message(i + ":" + body, false),
                            CoreSender.WIRE_MESSAGE, false, null);
                }
            } catch (ClientException e) {
                throw new IllegalStateException(e);
            }
        });
        awaitTrue(() -> queue().producersHeldBack() > 0, "the server holds the producer's credit back");
        assertFalse(producing.isDone(), "the sender cannot have sent everything: the server would hold it all");
        long heldWhenHeldBack = queue().heldBytes();
        assertTrue(heldWhenHeldBack <= bound, () -> "the queue holds " + heldWhenHeldBack + " bytes, over " + bound);

        CoreConnection consuming = connect(ReconnectPolicy.NONE);
        consuming.start();
        CoreSession reader = open(consuming, CoreSettlement.AUTO_ACKNOWLEDGE);
        CoreConsumer consumer = reader.createConsumer(new CoreConsumer.Spec(reader.id(), QUEUE, null, 10, 0, null));
        for (int i = 0; i < messages; i++) {
            TestMessages.Received m = receive(consumer, WAIT_NANOS); // its credit goes back, and it is acknowledged
            assertNotNull(m, "message " + i + " never came: the sender did not go on when credit returned");
            assertEquals(i + ":" + body, m.text);
            long held = queue().heldBytes();
            assertTrue(held <= bound, () -> "the queue holds " + held + " bytes, over " + bound);
        }
        producing.get(10, TimeUnit.SECONDS);
    }

    @Test
    void asynchronousSendsCompleteInSendOrderOnTheCompletionThread() throws Exception {
        startServer(c -> c);
        CoreSession session = open(connect(ReconnectPolicy.NONE), CoreSettlement.AUTO_ACKNOWLEDGE);
        int producer = producer(session, QUEUE);
        int count = 200;
        Recorder recorder = new Recorder(count);
        List<Integer> expected = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            // persistent (answered once stored) and not (answered at once) interleaved: completed in send order still
            boolean persistent = i % 2 == 0;
            session.sender().send(producer, QUEUE, TestMessages.message("m" + i, persistent), CoreSender.WIRE_MESSAGE,
                    persistent, recorder.completion(i));
            expected.add(i);
        }
        recorder.await();
        assertEquals(expected, recorder.order);
        assertTrue(recorder.failures.isEmpty(), () -> "failed: " + recorder.failures);
        for (String thread : recorder.threads) {
            assertTrue(thread.startsWith("wharf-completion-"), "completed on " + thread);
        }
        assertEquals(count, queue().depth(), "a completion means the server has the message");
    }

    @Test
    void aLinkLostBeforeTheAnswersFailsThePendingCompletionsSayingTheOutcomeIsUnknown() throws Exception {
        HeldStore store = new HeldStore();
        server = TestServer.start(c -> c, config -> WharfServer.builder(config).store(store).start());
        CoreConnection connection = connect(QUICKLY);
        CoreSession session = open(connection, CoreSettlement.AUTO_ACKNOWLEDGE);
        int producer = producer(session, QUEUE);
        int count = 3;
        Recorder recorder = new Recorder(count);
        for (int i = 0; i < count; i++) {
            session.sender().send(producer, QUEUE, TestMessages.message("held" + i, true), CoreSender.WIRE_MESSAGE,
                    true, recorder.completion(i));
        }
        for (int i = 0; i < count; i++) {
            assertNotNull(store.puts.poll(10, TimeUnit.SECONDS), "the server never asked the store for send " + i);
        }
        // the server holds every answer (its store has not completed): the link goes before any comes
        loseLink(connection);

        recorder.await();
        assertEquals(List.of(0, 1, 2), recorder.order);
        assertEquals(count, recorder.failures.size(), "every pending send fails");
        for (ClientException failure : recorder.failures) {
            assertTrue(failure.getMessage().startsWith("The connection to Wharf was lost before the server answered this"
                    + " send, so it may or may not have been stored"), failure.getMessage());
            assertTrue(failure.getCause() instanceof LinkLostException, String.valueOf(failure.getCause()));
        }
        assertEquals(2, connection.usableLink().generation(), "the connection is made again and goes on");
    }

    @Test
    void aTransactionsSendIsSeenOnceCommittedAndNotAtAllWhenItsLinkWasLost() throws Exception {
        startServer(c -> c.queue(QUEUE_NAME));
        CoreConnection connection = connect(QUICKLY);
        CoreSession session = open(connection, CoreSettlement.SESSION_TRANSACTED);
        int producer = producer(session, QUEUE);

        send(session, producer, "committed");
        producer(session, QUEUE); // a request after the send: the server has handled the send once it answers
        assertEquals(0, enqueued(), "a send of a transaction not committed is on the queue");
        session.settlement().commit();
        assertEquals(1, enqueued(), "the committed send is not on the queue");

        send(session, producer, "lost with its link");
        producer(session, QUEUE);
        loseLink(connection);
        ClientException rolledBack = assertThrows(ClientException.class, () -> session.settlement().commit());
        assertEquals(ErrorCode.TRANSACTION_ROLLED_BACK, rolledBack.code(), rolledBack.getMessage());
        assertEquals(1, enqueued(), "a send over a lost link was committed over the new one");

        send(session, producer, "the next transaction");
        session.settlement().commit();
        assertEquals(2, enqueued());
        CoreSession reader = open(connection, CoreSettlement.AUTO_ACKNOWLEDGE);
        connection.start();
        CoreConsumer consumer = reader.createConsumer(new CoreConsumer.Spec(reader.id(), QUEUE, null, 10, 0, null));
        assertEquals("committed", receive(consumer, WAIT_NANOS).text);
        assertEquals("the next transaction", receive(consumer, WAIT_NANOS).text);
    }

    /**
     * The core stamps each send: the connection's next message id, the time, the expiry from the time to live and the
     * delivery time from the delay; none of the id and time when asked (what the user had set is overwritten). What
     * went on the wire is what the message was stamped with, and the server holds the delayed one back.
     */
    @Test
    void eachSendIsStampedWithAnIdTheTimeItsExpiryAndItsDeliveryTime() throws Exception {
        startServer(config -> config);
        CoreConnection connection = connect(ReconnectPolicy.NONE);
        connection.start();
        CoreSession session = open(connection, CoreSettlement.AUTO_ACKNOWLEDGE);
        int producer = producer(session, QUEUE);
        long before = System.currentTimeMillis();
        WireMessage lives = TestMessages.message("lives a minute", true);
        session.sender().send(producer, QUEUE, lives, CoreSender.WIRE_MESSAGE, true, 60_000, 0, 0, null);
        WireMessage bare = TestMessages.message("no id, no time", true);
        bare.messageId = "the user's";
        bare.timestamp = 1;
        session.sender().send(producer, QUEUE, bare, CoreSender.WIRE_MESSAGE, true, 0, 0,
                CoreSender.NO_MESSAGE_ID | CoreSender.NO_TIMESTAMP, null);
        WireMessage later = TestMessages.message("in an hour", true);
        session.sender().send(producer, QUEUE, later, CoreSender.WIRE_MESSAGE, true, 0, HOUR, 0, null);
        long after = System.currentTimeMillis();

        assertNotNull(lives.messageId);
        assertNotEquals(lives.messageId, later.messageId, "each send its own id");
        assertTrue(lives.timestamp >= before && lives.timestamp <= after, String.valueOf(lives.timestamp));
        assertEquals(lives.timestamp + 60_000, lives.expiration);
        assertEquals(0, lives.deliveryTime);
        assertNull(bare.messageId);
        assertEquals(0, bare.timestamp);
        assertEquals(0, bare.expiration);
        assertEquals(later.timestamp + HOUR, later.deliveryTime);
        assertEquals(0, later.expiration);

        CoreConsumer consumer = session.createConsumer(new CoreConsumer.Spec(session.id(), QUEUE, null, 10, 0, null));
        WireMessage first = consumer.receive(WAIT_NANOS, false, CoreConsumer.WIRE_MESSAGE);
        assertEquals(List.of(lives.messageId, lives.timestamp, lives.expiration),
                List.of(first.messageId, first.timestamp, first.expiration));
        WireMessage second = consumer.receive(WAIT_NANOS, false, CoreConsumer.WIRE_MESSAGE);
        assertNull(second.messageId);
        assertEquals(0, second.timestamp);
        assertNull(consumer.receive(0, true, CoreConsumer.WIRE_MESSAGE), "delivered before its delivery time");
    }

    /** A persistent send in the session's transaction: not waited for, whatever its persistence. */
    private static void send(CoreSession session, int producer, String text) throws ClientException {
        session.sender().send(producer, QUEUE, TestMessages.message(text, true), CoreSender.WIRE_MESSAGE, true, null);
    }

    /** Waits (spinning, up to 10 s) until the server's state shows {@code condition}. */
    private static void awaitTrue(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + WAIT_NANOS;
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "never: " + what);
            Thread.onSpinWait();
        }
    }

    /** What the completions of a run of asynchronous sends saw: their order, failures and threads. */
    private static final class Recorder {
        final List<Integer> order = new CopyOnWriteArrayList<>();
        final List<ClientException> failures = new CopyOnWriteArrayList<>();
        final List<String> threads = new CopyOnWriteArrayList<>();
        private final CountDownLatch done;

        Recorder(int count) {
            done = new CountDownLatch(count);
        }

        CoreSender.Completion completion(int index) {
            return new CoreSender.Completion() {
                @Override
                protected void completed(ClientException failure) {
                    order.add(index);
                    threads.add(Thread.currentThread().getName());
                    if (failure != null) {
                        failures.add(failure);
                    }
                    done.countDown();
                }
            };
        }

        void await() throws InterruptedException {
            assertTrue(done.await(20, TimeUnit.SECONDS), "completed: " + order);
        }
    }

    /** A store that never completes a put (so the server never answers a persistent send) and completes the rest. */
    private static final class HeldStore implements MessageStore {
        final BlockingQueue<StoreCompletion> puts = new LinkedBlockingQueue<>();

        @Override
        public void put(StoredMessage message, StoreCompletion completion) {
            puts.add(completion);
        }

        @Override
        public void remove(Iterable<? extends StoredMessage> messages, StoreCompletion completion) {
            completion.completed(null);
        }

        @Override
        public void putInTransaction(long transactionId, StoredMessage message) {
        }

        @Override
        public void removeInTransaction(long transactionId, StoredMessage message) {
        }

        @Override
        public void commit(long transactionId, StoreCompletion completion) {
            completion.completed(null);
        }

        @Override
        public void rollback(long transactionId, StoreCompletion completion) {
            completion.completed(null);
        }

        @Override
        public void close() {
        }
    }
}
