package org.wharfmq.jms;

import org.wharfmq.client.core.DeliveryLedger;

import org.junit.jupiter.api.Test;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.message.WireDestination;
import org.wharfmq.protocol.message.WireMessage;

import javax.jms.Connection;
import javax.jms.IllegalStateException;
import javax.jms.InvalidDestinationException;
import javax.jms.InvalidSelectorException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.Session;
import javax.jms.TextMessage;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ConsumerTest {
    /** A connected, started client with one session and one consumer on queue Q. */
    private static final class Fixture implements AutoCloseable {
        final FakeServer server;
        final Connection connection;
        final Session session;
        final MessageConsumer consumer;
        final int consumerId;
        final int sessionId;

        Fixture(String options, int mode) throws Exception {
            this(options, mode, f -> null);
        }

        Fixture(String options, int mode, Function<Frame, Frame> answer) throws Exception {
            server = FakeServer.inVm();
            server.answer = answer;
            connection = new WharfConnectionFactory(server.url() + options).createConnection();
            connection.start(); // first: a consumer of a stopped connection is created without its window
            session = connection.createSession(mode);
            consumer = session.createConsumer(session.createQueue("Q"));
            server.expect(Frame.Hello.class);
            sessionId = server.expect(Frame.CreateSession.class).sessionId();
            Frame.CreateConsumer cc = server.expect(Frame.CreateConsumer.class);
            consumerId = cc.consumerId();
        }

        void deliver(long deliveryId, String text) throws InterruptedException {
            server.deliver(consumerId, deliveryId, 1, FakeServer.text(text));
        }

        String receiveText() throws Exception {
            Message m = consumer.receive(5000);
            assertNotNull(m, "no message");
            return ((TextMessage) m).getText();
        }

        @Override
        public void close() throws Exception {
            connection.close();
            server.close();
        }
    }

    @Test
    void createConsumerCarriesSelectorAndPrefetch() throws Exception {
        try (FakeServer server = FakeServer.inVm()) {
            Connection c = new WharfConnectionFactory(server.url() + "?prefetch=7").createConnection();
            c.start();
            Session s = c.createSession();
            s.createConsumer(s.createQueue("R"), "JMSCorrelationID = 'abc'");
            server.expect(Frame.Hello.class);
            server.expect(Frame.CreateSession.class);
            Frame.CreateConsumer cc = server.expect(Frame.CreateConsumer.class);
            assertNotEquals(0, cc.requestId());
            assertEquals(WireDestination.queue("R"), cc.destination());
            assertEquals("JMSCorrelationID = 'abc'", cc.selector());
            assertEquals(7, cc.credit());
            assertEquals(0, cc.flags());
            c.close();
        }
    }

    /**
     * A consumer created while its connection is stopped asks for no deliveries (CONSUMER_STOPPED), so it takes no
     * message from the queue's other consumers; its window follows as CREDIT when the connection starts.
     */
    @Test
    void aConsumerOfAStoppedConnectionGetsItsWindowOnceItStarts() throws Exception {
        try (FakeServer server = FakeServer.inVm()) {
            Connection c = new WharfConnectionFactory(server.url() + "?prefetch=7").createConnection();
            Session s = c.createSession();
            s.createConsumer(s.createQueue("R"));
            server.expect(Frame.Hello.class);
            server.expect(Frame.CreateSession.class);
            Frame.CreateConsumer cc = server.expect(Frame.CreateConsumer.class);
            assertEquals(Frame.CONSUMER_STOPPED, cc.flags());
            assertEquals(7, cc.credit(), "the window all the same: what a rollback restores");
            c.start();
            assertEquals(new Frame.Credit(cc.consumerId(), 7), server.expect(Frame.Credit.class));
            s.createConsumer(s.createQueue("R2"));
            assertEquals(0, server.expect(Frame.CreateConsumer.class).flags(), "created on the started connection");
            c.close();
        }
    }

    @Test
    void invalidSelectorFailsLocallyWithoutARoundTrip() throws Exception {
        try (FakeServer server = FakeServer.inVm()) {
            Connection c = new WharfConnectionFactory(server.url()).createConnection();
            Session s = c.createSession();
            server.expect(Frame.Hello.class);
            server.expect(Frame.CreateSession.class);
            InvalidSelectorException e = assertThrows(InvalidSelectorException.class,
                    () -> s.createConsumer(s.createQueue("Q"), "a = = 1"));
            assertEquals("INVALID_SELECTOR", e.getErrorCode());
            c.close();
            // the client writes its frames in order: a CREATE_CONSUMER for the bad selector would have come first
            server.expect(Frame.Close.class);
        }
    }

    @Test
    void unknownDestinationFromServer() throws Exception {
        try (FakeServer server = FakeServer.inVm()) {
            server.answer = f -> f instanceof Frame.CreateConsumer cc
                    ? new Frame.Error(cc.requestId(), ErrorCode.UNKNOWN_DESTINATION, "Queue NOPE does not exist", cc.sessionId(), 0) : null;
            Connection c = new WharfConnectionFactory(server.url()).createConnection();
            Session s = c.createSession();
            InvalidDestinationException e = assertThrows(InvalidDestinationException.class, () -> s.createConsumer(s.createQueue("NOPE")));
            assertEquals("Queue NOPE does not exist", e.getMessage());
            c.close();
        }
    }

    @Test
    void aConsumerRefusedAfterItWasCreatedWithoutWaitingFailsItsBlockedReceiveAndTheNextConsumerWaitsAgain() throws Exception {
        try (FakeServer server = FakeServer.tcp()) {
            Connection c = new WharfConnectionFactory(server.url()).createConnection();
            c.start();
            Session s = c.createSession();
            s.createConsumer(s.createQueue("Q"));
            server.expect(Frame.Hello.class);
            server.expect(Frame.CreateSession.class);
            assertNotEquals(0, server.expect(Frame.CreateConsumer.class).requestId(), "the first consumer on Q waits");

            MessageConsumer pipelined = s.createConsumer(s.createQueue("Q"));
            Frame.CreateConsumer second = server.expect(Frame.CreateConsumer.class);
            assertEquals(0, second.requestId(), "Q was accepted before, so the second is created without waiting");
            CompletableFuture<Throwable> receive = CompletableFuture.supplyAsync(() -> {
                try {
                    return pipelined.receive(10_000) == null ? null : new AssertionError("a message arrived");
                } catch (Throwable t) {
                    return t;
                }
            });
            server.send(new Frame.ConsumerFailed(second.consumerId(), ErrorCode.UNKNOWN_DESTINATION, "Queue Q was deleted"));
            Throwable t = receive.get(5, TimeUnit.SECONDS);
            InvalidDestinationException e = assertInstanceOf(InvalidDestinationException.class, t);
            assertEquals("Queue Q was deleted", e.getMessage());
            assertThrows(InvalidDestinationException.class, () -> pipelined.receiveNoWait(), "and every later receive");

            s.createConsumer(s.createQueue("Q"));
            assertNotEquals(0, server.expect(Frame.CreateConsumer.class).requestId(), "after a refusal, consumers wait again");
            c.close();
        }
    }

    /** A CREDIT's messages alone, without the bytes it settles (ClientConsumerTest checks those). */
    private static Frame.Credit messagesOf(Frame.Credit credit) {
        return new Frame.Credit(credit.consumerId(), credit.credit());
    }

    @Test
    void autoAckPerMessageAndCreditInHalfWindowBatches() throws Exception {
        try (Fixture f = new Fixture("?prefetch=4", Session.AUTO_ACKNOWLEDGE)) {
            for (int i = 1; i <= 4; i++) {
                f.deliver(i, "m" + i);
            }
            for (int i = 1; i <= 4; i++) {
                assertEquals("m" + i, f.receiveText());
                if (i % 2 == 0) {
                    assertEquals(new Frame.Credit(f.consumerId, 2), messagesOf(f.server.expect(Frame.Credit.class)));
                }
                Frame.Ack ack = f.server.expect(Frame.Ack.class);
                // not answered, but once per half window: its OK confirms what was handed out (DeliveryLedger)
                assertEquals(i % 2 == 0, ack.requestId() != 0, "ack " + i + " answered");
                assertEquals(List.of(new Frame.Consumed(f.consumerId, i)), ack.consumed());
            }
        }
    }

    @Test
    void noDeliveryWhileStopped() throws Exception {
        try (Fixture f = new Fixture("", Session.AUTO_ACKNOWLEDGE)) {
            f.connection.stop();
            f.deliver(1, "a");
            // answered after the DELIVER, which the client reads first: "a" is in the consumer's buffer, so a
            // receive that handed it out while stopped would do so at once
            f.session.createProducer(null);
            assertNull(f.consumer.receive(100));
            assertNull(f.consumer.receiveNoWait());
            f.connection.start();
            assertEquals("a", f.receiveText());
        }
    }

    @Test
    void receiveNoWaitPullsWhenBufferIsEmpty() throws Exception {
        BlockingQueue<Frame.Pull> pulls = new LinkedBlockingQueue<>();
        try (Fixture f = new Fixture("", Session.AUTO_ACKNOWLEDGE, frame -> {
            if (frame instanceof Frame.Pull p) {
                pulls.add(p);
            }
            return null;
        })) {
            // empty queue: the server answers PULL_DONE alone, and receiveNoWait returns null
            Thread answerer = new Thread(() -> {
                try {
                    Frame.Pull p1 = pulls.poll(5, TimeUnit.SECONDS);
                    f.server.send(new Frame.PullDone(p1.consumerId(), p1.pullId()));
                    Frame.Pull p2 = pulls.poll(5, TimeUnit.SECONDS);
                    f.deliver(1, "pulled");
                    f.server.send(new Frame.PullDone(p2.consumerId(), p2.pullId()));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            answerer.start();
            assertNull(f.consumer.receiveNoWait());
            Message m = f.consumer.receiveNoWait();
            assertEquals("pulled", ((TextMessage) m).getText());
            answerer.join(5000);
            // a buffered message needs no PULL
            f.deliver(2, "buffered");
            f.server.expect(Frame.Pull.class);
            f.server.expect(Frame.Pull.class);
            f.server.expect(Frame.Ack.class);
            assertEquals("buffered", f.receiveText());
            assertTrue(pulls.isEmpty());
        }
    }

    @Test
    void expiredMessageIsDroppedButCountsAsConsumed() throws Exception {
        try (Fixture f = new Fixture("", Session.AUTO_ACKNOWLEDGE)) {
            WireMessage expired = FakeServer.text("old");
            expired.expiration = System.currentTimeMillis() - 1000;
            f.server.deliver(f.consumerId, 1, 1, expired);
            f.deliver(2, "fresh");
            assertEquals("fresh", f.receiveText());
            assertEquals(List.of(new Frame.Consumed(f.consumerId, 1)), f.server.expect(Frame.Ack.class).consumed());
            assertEquals(List.of(new Frame.Consumed(f.consumerId, 2)), f.server.expect(Frame.Ack.class).consumed());
        }
    }

    @Test
    void redeliveryHeaders() throws Exception {
        try (Fixture f = new Fixture("", Session.AUTO_ACKNOWLEDGE)) {
            f.server.deliver(f.consumerId, 1, 3, FakeServer.text("again"));
            Message m = f.consumer.receive(5000);
            assertTrue(m.getJMSRedelivered());
            assertEquals(3, m.getIntProperty("JMSXDeliveryCount"));
        }
    }

    @Test
    void clientAcknowledgeSendsOneAnsweredAckForTheSession() throws Exception {
        try (Fixture f = new Fixture("", Session.CLIENT_ACKNOWLEDGE)) {
            MessageConsumer second = f.session.createConsumer(f.session.createQueue("Q2"));
            int secondId = f.server.expect(Frame.CreateConsumer.class).consumerId();
            f.deliver(1, "a");
            f.deliver(2, "b");
            f.server.deliver(secondId, 3, 1, FakeServer.text("c"));
            f.receiveText();
            Message b = f.consumer.receive(5000);
            second.receive(5000);
            b.acknowledge();
            Frame.Ack ack = f.server.expect(Frame.Ack.class);
            assertNotEquals(0, ack.requestId());
            assertEquals(2, ack.consumed().size());
            assertTrue(ack.consumed().contains(new Frame.Consumed(f.consumerId, 2)));
            assertTrue(ack.consumed().contains(new Frame.Consumed(secondId, 3)));
            b.acknowledge(); // nothing new consumed: no frame
            f.deliver(4, "d");
            f.consumer.receive(5000).acknowledge();
            assertEquals(List.of(new Frame.Consumed(f.consumerId, 4)), f.server.expect(Frame.Ack.class).consumed());
        }
    }

    @Test
    void dupsOkBatchesAcks() throws Exception {
        try (Fixture f = new Fixture("?prefetch=10", Session.DUPS_OK_ACKNOWLEDGE)) {
            for (int i = 1; i <= 6; i++) {
                f.deliver(i, "m" + i);
            }
            // the buffer must hold all six before consuming, or an emptied buffer flushes early
            awaitBuffered(f, 6);
            for (int i = 1; i <= 6; i++) {
                f.receiveText();
            }
            assertEquals(new Frame.Credit(f.consumerId, 5), messagesOf(f.server.expect(Frame.Credit.class)));
            Frame.Ack first = f.server.expect(Frame.Ack.class);
            assertEquals(List.of(new Frame.Consumed(f.consumerId, 5)), first.consumed());
            assertEquals(List.of(new Frame.Consumed(f.consumerId, 6)), f.server.expect(Frame.Ack.class).consumed());
        }
    }

    private static void awaitBuffered(Fixture f, int n) throws InterruptedException {
        WharfMessageConsumer c = (WharfMessageConsumer) f.consumer;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (bufferSize(c) < n) {
            assertTrue(System.nanoTime() < deadline, "deliveries did not arrive");
            Thread.onSpinWait();
        }
    }

    private static int bufferSize(WharfMessageConsumer c) {
        return c.core().core().buffered();
    }

    @Test
    void commitListsConsumedAndRollbackDiscardsUntilAnswered() throws Exception {
        try (Fixture f = new Fixture("", Session.SESSION_TRANSACTED)) {
            f.deliver(1, "a");
            assertEquals("a", f.receiveText());
            f.session.commit();
            Frame.Commit commit = f.server.expect(Frame.Commit.class);
            assertEquals(List.of(new Frame.Consumed(f.consumerId, 1)), commit.consumed());

            f.deliver(2, "b");
            f.deliver(3, "c");
            assertEquals("b", f.receiveText());
            f.session.rollback();
            Frame.Rollback rollback = f.server.expect(Frame.Rollback.class);
            assertEquals(List.of(new Frame.Consumed(f.consumerId, 2)), rollback.consumed());
            // "c" was buffered before the rollback and is gone; the server redelivers both
            f.server.deliver(f.consumerId, 4, 2, FakeServer.text("b"));
            Message again = f.consumer.receive(5000);
            assertEquals("b", ((TextMessage) again).getText());
            assertTrue(again.getJMSRedelivered());
            f.session.commit();
            assertEquals(List.of(new Frame.Consumed(f.consumerId, 4)), f.server.expect(Frame.Commit.class).consumed());
        }
    }

    @Test
    void deliveriesBetweenRollbackAndItsAnswerAreDiscarded() throws Exception {
        CountDownLatch answer = new CountDownLatch(1);
        BlockingQueue<Frame.Rollback> rollbacks = new LinkedBlockingQueue<>();
        try (Fixture f = new Fixture("", Session.SESSION_TRANSACTED, frame -> {
            if (frame instanceof Frame.Rollback r) {
                rollbacks.add(r);
                return FakeServer.SILENCE; // the test answers after a stale delivery
            }
            return null;
        })) {
            Thread rollbackThread = new Thread(() -> {
                try {
                    f.session.rollback();
                } catch (Exception e) {
                    throw new RuntimeException(e);
                } finally {
                    answer.countDown();
                }
            });
            rollbackThread.start();
            Frame.Rollback r = rollbacks.poll(5, TimeUnit.SECONDS);
            f.deliver(1, "stale");
            f.server.send(new Frame.Ok(r.requestId()));
            assertTrue(answer.await(5, TimeUnit.SECONDS));
            f.deliver(2, "fresh");
            assertEquals("fresh", f.receiveText());
        }
    }

    @Test
    void recoverSendsRollbackOnNonTransactedSession() throws Exception {
        try (Fixture f = new Fixture("", Session.CLIENT_ACKNOWLEDGE)) {
            f.deliver(1, "a");
            f.receiveText();
            f.session.recover();
            Frame.Rollback r = f.server.expect(Frame.Rollback.class);
            assertNotEquals(0, r.requestId());
            assertEquals(List.of(new Frame.Consumed(f.consumerId, 1)), r.consumed());
            assertThrows(IllegalStateException.class, f.session::commit);
        }
    }

    @Test
    void closeConsumerTellsLastConsumedWithoutWaiting() throws Exception {
        try (Fixture f = new Fixture("", Session.CLIENT_ACKNOWLEDGE)) {
            f.deliver(1, "a");
            f.deliver(2, "b");
            f.receiveText();
            f.consumer.close();
            Frame.CloseConsumer close = f.server.expect(Frame.CloseConsumer.class);
            assertEquals(0, close.requestId());
            assertEquals(f.consumerId, close.consumerId());
            assertEquals(1, close.lastConsumedDeliveryId());
            assertThrows(IllegalStateException.class, f.consumer::receiveNoWait);
            // the consumed delivery stays with the session: acknowledge still names it
            f.session.recover();
            assertEquals(List.of(new Frame.Consumed(f.consumerId, 1)), f.server.expect(Frame.Rollback.class).consumed());
        }
    }

    @Test
    void closeWakesBlockedReceive() throws Exception {
        try (Fixture f = new Fixture("", Session.AUTO_ACKNOWLEDGE)) {
            CountDownLatch returned = new CountDownLatch(1);
            Thread receiver = new Thread(() -> {
                try {
                    if (f.consumer.receive() == null) {
                        returned.countDown();
                    }
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            receiver.start();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (receiver.getState() != Thread.State.WAITING && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            f.consumer.close();
            assertTrue(returned.await(5, TimeUnit.SECONDS));
        }
    }

    @Test
    void hugeReceiveTimeoutWaits() throws Exception {
        try (Fixture f = new Fixture("", Session.AUTO_ACKNOWLEDGE)) {
            java.util.concurrent.CompletableFuture<Message> received = new java.util.concurrent.CompletableFuture<>();
            Thread receiver = new Thread(() -> {
                try {
                    received.complete(f.consumer.receive(Long.MAX_VALUE));
                } catch (Exception e) {
                    received.completeExceptionally(e);
                }
            });
            receiver.start();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (receiver.getState() != Thread.State.WAITING && !received.isDone() && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertFalse(received.isDone(), "receive(Long.MAX_VALUE) returned at once");
            f.deliver(1, "late");
            assertEquals("late", ((TextMessage) received.get(5, TimeUnit.SECONDS)).getText());
        }
    }

    @Test
    void listenersRunSeriallyOnTheSessionThreadAndStopWaitsForThem() throws Exception {
        try (Fixture f = new Fixture("", Session.AUTO_ACKNOWLEDGE)) {
            BlockingQueue<String> seen = new LinkedBlockingQueue<>();
            CountDownLatch inFirst = new CountDownLatch(1);
            CountDownLatch releaseFirst = new CountDownLatch(1);
            f.consumer.setMessageListener(m -> {
                try {
                    String text = ((TextMessage) m).getText();
                    seen.add(text + "@" + Thread.currentThread().getName());
                    if (text.equals("1")) {
                        inFirst.countDown();
                        releaseFirst.await(5, TimeUnit.SECONDS);
                    }
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            assertThrows(IllegalStateException.class, f.consumer::receiveNoWait);
            f.deliver(1, "1");
            f.deliver(2, "2");
            assertTrue(inFirst.await(5, TimeUnit.SECONDS));
            CountDownLatch stopped = new CountDownLatch(1);
            Thread stopper = new Thread(() -> {
                try {
                    f.connection.stop();
                    stopped.countDown();
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            stopper.start();
            // stop() must wait for the running onMessage: the stopper ends (stop returned) or parks (waits) in it
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            Thread.State state;
            while ((state = stopper.getState()) != Thread.State.WAITING && state != Thread.State.TIMED_WAITING
                    && state != Thread.State.TERMINATED && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertEquals(1, stopped.getCount(), "stop() returned while onMessage was running");
            assertNotEquals(Thread.State.TERMINATED, stopper.getState(), "stop() returned while onMessage was running");
            releaseFirst.countDown();
            assertTrue(stopped.await(5, TimeUnit.SECONDS));
            String first = seen.poll(5, TimeUnit.SECONDS);
            assertTrue(first.startsWith("1@wharf-session-"), first);
            assertNull(seen.poll(100, TimeUnit.MILLISECONDS), "no delivery while stopped");
            f.connection.start();
            String second = seen.poll(5, TimeUnit.SECONDS);
            assertEquals("2" + first.substring(1), second);
            f.server.expect(Frame.Ack.class);
            assertEquals(List.of(new Frame.Consumed(f.consumerId, 2)), f.server.expect(Frame.Ack.class).consumed());
        }
    }

    @Test
    void listenerExceptionInAutoModeRedelivers() throws Exception {
        try (Fixture f = new Fixture("", Session.AUTO_ACKNOWLEDGE)) {
            f.consumer.setMessageListener(m -> {
                throw new RuntimeException("boom (expected by the test)");
            });
            f.deliver(1, "a");
            Frame.Rollback r = f.server.expect(Frame.Rollback.class);
            assertEquals(List.of(new Frame.Consumed(f.consumerId, 1)), r.consumed());
        }
    }
}
