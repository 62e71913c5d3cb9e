package org.wharfmq.client.core;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.wharfmq.client.core.transport.BrokerAddress;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.message.WireDestination;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.config.MemoryPolicy;
import org.wharfmq.server.config.ServerConfig;
import org.wharfmq.server.queue.LocalQueue;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.wharfmq.client.core.TestSessions.receive;
import static org.wharfmq.client.core.TestSessions.receiveNoWait;
import static org.wharfmq.client.core.TestSessions.open;
import static org.wharfmq.client.core.TestSessions.producer;
import static org.wharfmq.client.core.TestWaits.awaitTrue;

/**
 * A core session's close ({@link CoreSession#close}) against a real server, through the core's API alone: what was
 * consumed and not acknowledged comes back marked redelivered (and what was only buffered comes back as it was), an
 * open transaction is rolled back, a close returns only once the asynchronous sends have completed, and a send
 * waiting for producer credit gives up. Each is seen by another session of the same connection, which stays open:
 * it is the session's close that does it, not the connection's.
 */
class CoreSessionCloseTest {
    private static final String QUEUE_NAME = "CORE.CLOSE";
    private static final WireDestination QUEUE = WireDestination.queue(QUEUE_NAME);
    private static final long WAIT = TimeUnit.SECONDS.toNanos(10);

    private TestServer server;
    private CoreConnection connection;

    @AfterEach
    void stop() {
        if (connection != null) {
            connection.close();
        }
        if (server != null) {
            server.close();
        }
    }

    /** A server as {@code config} says, and a started connection to it. */
    private CoreConnection connect(UnaryOperator<ServerConfig.Builder> config) throws Exception {
        server = TestServer.start(config);
        connection = CoreConnection.connect(ConnectionSettings.of(BrokerAddress.tcp("127.0.0.1",
                server.server().tcpPort()), null, null, "core-close-test"), ConnectionListener.NONE);
        connection.start();
        return connection;
    }

    @Test
    void whatWasConsumedAndNotAcknowledgedComesBackMarkedRedeliveredAndWhatWasBufferedAsItWas() throws Exception {
        CoreConnection c = connect(config -> config);
        CoreSession session = open(c, CoreSettlement.CLIENT_ACKNOWLEDGE);
        int producer = producer(session, QUEUE);
        for (int i = 1; i <= 5; i++) {
            TestMessages.send(session, producer, QUEUE, "m" + i);
        }
        CoreConsumer consumer = consumer(session);
        for (int i = 1; i <= 2; i++) {
            TestMessages.Received m = receive(consumer, WAIT);
            assertNotNull(m, "message " + i + " did not come");
            assertEquals("m" + i, m.text);
        }
        awaitTrue(() -> consumer.buffered() == 3, "the other three are buffered");

        session.close();

        assertTrue(session.isClosed());
        assertNull(receive(consumer, 0), "a closed consumer hands nothing out");
        assertEquals(ErrorCode.ILLEGAL_STATE, assertThrows(ClientException.class,
                () -> session.settlement().acknowledge()).code());
        assertEquals(ErrorCode.ILLEGAL_STATE, assertThrows(ClientException.class,
                () -> TestMessages.send(session, producer, QUEUE, "after")).code());
        Map<String, Integer> deliveryCounts = drain(open(c, CoreSettlement.AUTO_ACKNOWLEDGE));
        assertEquals(Map.of("m1", 2, "m2", 2, "m3", 1, "m4", 1, "m5", 1), deliveryCounts,
                "consumed and not acknowledged: redelivered; buffered only: as they were");
    }

    @Test
    void anOpenTransactionIsRolledBack() throws Exception {
        CoreConnection c = connect(config -> config);
        CoreSession session = open(c, CoreSettlement.SESSION_TRANSACTED);
        int producer = producer(session, QUEUE);
        TestMessages.send(session, producer, QUEUE, "committed");
        session.settlement().commit();
        CoreConsumer consumer = consumer(session);
        assertEquals("committed", receive(consumer, WAIT).text);
        TestMessages.send(session, producer, QUEUE, "not committed");
        producer(session, QUEUE); // answered once the server has handled the send before it
        assertEquals(1, queue().snapshot().enqueued(), "only the committed send is on the queue");

        session.close();

        assertEquals(Map.of("committed", 2), drain(open(c, CoreSettlement.AUTO_ACKNOWLEDGE)),
                "the transaction's receive is rolled back (redelivered) and its send dropped");
        assertEquals(1, queue().snapshot().enqueued(), "the transaction's send was committed by the close");
    }

    @Test
    void closeReturnsOnlyOnceTheAsynchronousSendsHaveCompleted() throws Exception {
        CoreConnection c = connect(config -> config);
        CoreSession session = open(c, CoreSettlement.AUTO_ACKNOWLEDGE);
        int producer = producer(session, QUEUE);
        int count = 20;
        List<Integer> completed = new CopyOnWriteArrayList<>();
        List<ClientException> failures = new CopyOnWriteArrayList<>();
        AtomicInteger completedWhenCloseReturned = new AtomicInteger(-1);
        Thread closer = new Thread(() -> {
            try {
                session.close();
            } catch (ClientException e) {
                failures.add(e);
            }
            completedWhenCloseReturned.set(completed.size());
        }, "closer");
        for (int i = 0; i < count; i++) {
            int index = i;
            session.sender().send(producer, QUEUE, TestMessages.message("a" + i, false), CoreSender.WIRE_MESSAGE, false,
                    new CoreSender.Completion() {
                        @Override
                        protected void completed(ClientException failure) {
                            if (index == 0) {
                                // held until the close waits for it, or has returned without waiting: either way
                                // the close has begun with every send still to complete
                                awaitTrue(() -> waitsForCompletions(closer)
                                        || closer.getState() == Thread.State.TERMINATED, "the close waits");
                            }
                            if (failure != null) {
                                failures.add(failure);
                            }
                            completed.add(index);
                        }
                    });
        }
        closer.start();
        closer.join(TimeUnit.NANOSECONDS.toMillis(WAIT) * 2);
        assertFalse(closer.isAlive(), "the close never returned");
        assertEquals(count, completedWhenCloseReturned.get(), "the close returned before the sends completed");
        assertTrue(failures.isEmpty(), () -> "failed: " + failures);
        assertEquals(count, queue().depth(), "a completed send is on the queue");
    }

    @Test
    void aSendWaitingForProducerCreditGivesUpWhenTheSessionCloses() throws Exception {
        int window = 4096;
        CoreConnection c = connect(config -> config.producerWindowBytes(window).queue(QUEUE_NAME, 8_000,
                MemoryPolicy.BLOCK));
        c.readerOnly(); // the send waiting for credit sleeps until woken, rather than reading the link meanwhile
        CoreSession session = open(c, CoreSettlement.AUTO_ACKNOWLEDGE);
        int producer = producer(session, QUEUE);
        String body = "x".repeat(1000);
        CompletableFuture<Void> producing = CompletableFuture.runAsync(() -> {
            try {
                for (int i = 0; i < 1000; i++) { // far more than the queue holds: the server holds credit back
                    session.sender().send(producer, QUEUE, TestMessages.message(body, false), CoreSender.WIRE_MESSAGE,
                            false, null);
                }
            } catch (ClientException e) {
                throw new IllegalStateException(e);
            }
        });
        awaitTrue(() -> queue().producersHeldBack() > 0, "the server holds the producer's credit back");

        session.close();

        ExecutionException gaveUp = assertThrows(ExecutionException.class, () -> producing.get(10, TimeUnit.SECONDS),
                "the send waiting for credit went on waiting after the close");
        ClientException why = (ClientException) gaveUp.getCause().getCause();
        assertEquals(ErrorCode.ILLEGAL_STATE, why.code(), why.getMessage());
        assertEquals("The session is closed", why.getMessage());
    }

    // ---- helpers ----

    private static CoreConsumer consumer(CoreSession session) throws ClientException {
        return session.createConsumer(new CoreConsumer.Spec(session.id(), QUEUE, null, 10, 0, null));
    }

    /**
     * Every message on the queue, taken by a consumer of {@code session} until the server's answer to a PULL says
     * there is no more: each text with its delivery count.
     */
    private static Map<String, Integer> drain(CoreSession session) throws ClientException {
        CoreConsumer consumer = consumer(session);
        Map<String, Integer> counts = new TreeMap<>();
        for (TestMessages.Received m; (m = receiveNoWait(consumer)) != null; ) {
            assertNull(counts.put(m.text, m.deliveryCount), "delivered twice");
        }
        return counts;
    }

    private LocalQueue queue() {
        return server.server().queueManager().queue(QUEUE_NAME);
    }

    /** Whether {@code t} is parked waiting for the session's asynchronous sends to complete. */
    private static boolean waitsForCompletions(Thread t) {
        return TestWaits.waitsIn(t, SendCompletions.class, "awaitIdle");
    }
}
