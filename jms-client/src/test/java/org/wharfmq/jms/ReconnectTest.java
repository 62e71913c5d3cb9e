package org.wharfmq.jms;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.wharfmq.jms.message.WharfMessage;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.message.WireMessage;

import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Session;
import javax.jms.TextMessage;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the client does across a reconnection where only a scripted server can make the moment exact: a link lost
 * between a request and its answer (a synchronous send, a commit), and a server that, like one restarted, delivers
 * again as new a message the application already had. The end-to-end cases (a real server killed, a network cut,
 * an address list) are in server/integration-tests.
 */
@Timeout(30)
class ReconnectTest {

    private static final String FAST = "?reconnectInterval=20&reconnectMaxInterval=50&reconnectAttempts=50";

    /** Collects the connection's failover events. */
    private static BlockingQueue<FailoverEvent> events(Connection c) throws JMSException {
        BlockingQueue<FailoverEvent> events = new LinkedBlockingQueue<>();
        ((WharfConnection) c).setFailoverListener(events::add);
        return events;
    }

    private static FailoverEvent next(BlockingQueue<FailoverEvent> events) throws InterruptedException {
        FailoverEvent event = events.poll(10, TimeUnit.SECONDS);
        assertNotNull(event, "no failover event");
        return event;
    }

    @Test
    void refusedCredentialsGiveUpAtOnceNamingTheRefusal() throws Exception {
        try (FakeServer server = FakeServer.tcp()) {
            Connection c = new WharfConnectionFactory(server.url() + FAST).createConnection();
            CompletableFuture<JMSException> lost = new CompletableFuture<>();
            c.setExceptionListener(lost::complete);
            BlockingQueue<FailoverEvent> events = events(c);
            server.expect(Frame.Hello.class);
            server.answer = f -> f instanceof Frame.Auth
                    ? new Frame.Error(0, org.wharfmq.protocol.frame.ErrorCode.AUTHENTICATION_FAILED, "Authentication failed", 0, 0)
                    : null;
            server.client().close().sync();
            assertEquals(FailoverEvent.Kind.DISCONNECTED, next(events).kind());
            FailoverEvent failed = next(events);
            assertEquals(FailoverEvent.Kind.FAILED, failed.kind());
            assertEquals(1, failed.attempts(), "not 50 attempts: the same credentials would be refused again");
            JMSException e = lost.get(10, TimeUnit.SECONDS);
            assertTrue(e.getMessage().contains("refused this connection's credentials: Authentication failed"), e.getMessage());
            assertTrue(e.getCause() instanceof javax.jms.JMSSecurityException, String.valueOf(e.getCause()));
            c.close();
        }
    }

    @Test
    void aSynchronousSendWhoseAnswerWasLostIsSentAgainMarkedResent() throws Exception {
        try (FakeServer server = FakeServer.tcp()) {
            AtomicBoolean first = new AtomicBoolean(true);
            server.answer = f -> f instanceof Frame.Send && first.getAndSet(false) ? FakeServer.SILENCE : null;
            Connection c = new WharfConnectionFactory(server.url() + FAST).createConnection();
            AtomicInteger exceptions = new AtomicInteger();
            c.setExceptionListener(e -> exceptions.incrementAndGet());
            BlockingQueue<FailoverEvent> events = events(c);
            Session s = c.createSession();
            MessageProducer producer = s.createProducer(s.createQueue("Q"));
            CompletableFuture<Void> sent = CompletableFuture.runAsync(() -> {
                try {
                    producer.send(s.createTextMessage("must arrive"), DeliveryMode.PERSISTENT, 4, 0);
                } catch (JMSException e) {
                    throw new IllegalStateException(e);
                }
            });
            server.expect(Frame.Hello.class);
            server.expect(Frame.CreateSession.class);
            server.expect(Frame.CreateProducer.class);
            Frame.Send firstSend = server.expect(Frame.Send.class);
            WharfMessage firstCopy = FakeServer.decode(firstSend);
            assertFalse(firstCopy.getJMSRedelivered());
            server.client().close().sync(); // the link dies after the SEND, before its answer: stored or not?

            server.reconnected();
            assertEquals(FailoverEvent.Kind.DISCONNECTED, next(events).kind());
            server.expect(Frame.Hello.class);
            assertEquals(1, server.expect(Frame.CreateSession.class).sessionId(), "the session is made again first");
            Frame.Send again = server.expect(Frame.Send.class);
            assertNotEquals(0, again.requestId(), "still a synchronous send");
            WharfMessage secondCopy = FakeServer.decode(again);
            assertEquals(firstCopy.getJMSMessageID(), secondCopy.getJMSMessageID(), "the same message");
            assertTrue(secondCopy.getJMSRedelivered(), "flagged resent: a receiver of both copies sees the second marked");
            sent.get(5, TimeUnit.SECONDS); // the application's send completed, neither lost nor failed
            FailoverEvent reconnected = next(events);
            assertEquals(FailoverEvent.Kind.RECONNECTED, reconnected.kind());
            assertEquals(server.url(), reconnected.address());
            assertEquals(0, exceptions.get(), "the ExceptionListener hears only of a loss that is not repaired");
            c.close();
        }
    }

    /**
     * Producer credit follows the link (ProducerCredit): the copy of a synchronous send sent again on the new link is
     * a SEND the server counts against the session's new window, so it spends there too. Spent nowhere, the client
     * would think it had one message more than the server grants, after every such reconnection.
     */
    @Test
    void aSynchronousSendSentAgainSpendsProducerCreditOnTheNewLink() throws Exception {
        try (FakeServer server = FakeServer.tcp()) {
            server.grantsCredit = false; // this test grants: one byte per window, which any one message spends
            AtomicBoolean first = new AtomicBoolean(true);
            server.answer = f -> f instanceof Frame.Send && first.getAndSet(false) ? FakeServer.SILENCE : null;
            Connection c = new WharfConnectionFactory(server.url() + FAST).createConnection();
            Session s = c.createSession();
            server.expect(Frame.Hello.class);
            int sessionId = server.expect(Frame.CreateSession.class).sessionId();
            server.send(new Frame.ProducerCredit(sessionId, 1));
            MessageProducer producer = s.createProducer(s.createQueue("Q"));
            CompletableFuture<Void> sent = CompletableFuture.runAsync(() -> {
                try {
                    producer.send(s.createTextMessage("sent twice"), DeliveryMode.PERSISTENT, 4, 0);
                } catch (JMSException e) {
                    throw new IllegalStateException(e);
                }
            });
            server.expect(Frame.CreateProducer.class);
            server.expect(Frame.Send.class);
            server.client().close().sync(); // the answer is lost: the send goes again on the new link

            server.reconnected();
            server.expect(Frame.Hello.class);
            assertEquals(sessionId, server.expect(Frame.CreateSession.class).sessionId());
            server.send(new Frame.ProducerCredit(sessionId, 1)); // the session's new window
            assertTrue(FakeServer.decode(server.expect(Frame.Send.class)).getJMSRedelivered(), "the copy, flagged");
            sent.get(5, TimeUnit.SECONDS);

            producer.setDeliveryMode(DeliveryMode.NON_PERSISTENT);
            Thread next = new Thread(() -> {
                try {
                    producer.send(s.createTextMessage("after the copy"));
                } catch (JMSException e) {
                    throw new IllegalStateException(e);
                }
            }, "next-sender");
            next.start();
            FakeServer.awaitParked(next);
            assertNull(server.poll(0), "sent without credit: the copy did not spend the new window");
            server.send(new Frame.ProducerCredit(sessionId, 1 << 20));
            assertEquals("after the copy", FakeServer.decode(server.expect(Frame.Send.class)).getBody(String.class));
            next.join(5000);
            c.close();
        }
    }

    /**
     * A send waiting for producer credit when its link is lost waits on for the new link and goes there, spending the
     * new window once (docs/resilience.md: a send not yet written when the link went is sent on the new link). It had
     * encoded for the old link: written there once the new window's credit came, it was lost, and its credit with it.
     */
    @Test
    void aSendWaitingForCreditWhenItsLinkIsLostGoesOnTheNewLink() throws Exception {
        try (FakeServer server = FakeServer.tcp()) {
            server.grantsCredit = false; // the session opens with no credit, as if its destination were over budget
            Connection c = new WharfConnectionFactory(server.url() + FAST).createConnection();
            Session s = c.createSession();
            MessageProducer producer = s.createProducer(s.createQueue("Q"));
            producer.setDeliveryMode(DeliveryMode.NON_PERSISTENT);
            CompletableFuture<Void> sent = new CompletableFuture<>();
            Thread waiting = new Thread(() -> {
                try {
                    producer.send(s.createTextMessage("waited across the reconnection"));
                    sent.complete(null);
                } catch (JMSException e) {
                    sent.completeExceptionally(e);
                }
            }, "waiting-sender");
            waiting.start();
            FakeServer.awaitParked(waiting);
            server.expect(Frame.Hello.class);
            server.expect(Frame.CreateSession.class);
            server.expect(Frame.CreateProducer.class);
            assertNull(server.poll(0), "nothing is sent without credit");
            server.client().close().sync();

            server.reconnected();
            server.expect(Frame.Hello.class);
            int sessionId = server.expect(Frame.CreateSession.class).sessionId();
            server.send(new Frame.ProducerCredit(sessionId, 1));
            assertEquals("waited across the reconnection",
                    FakeServer.decode(server.expect(Frame.Send.class)).getBody(String.class), "sent on the new link");
            sent.get(5, TimeUnit.SECONDS);
            c.close();
        }
    }

    @Test
    void aCommitWhoseAnswerWasLostHasAnOutcomeNobodyKnowsAndTheSessionCarriesOn() throws Exception {
        try (FakeServer server = FakeServer.tcp()) {
            AtomicBoolean first = new AtomicBoolean(true);
            server.answer = f -> f instanceof Frame.Commit && first.getAndSet(false) ? FakeServer.SILENCE : null;
            Connection c = new WharfConnectionFactory(server.url() + FAST).createConnection();
            BlockingQueue<FailoverEvent> events = events(c);
            Session s = c.createSession(Session.SESSION_TRANSACTED);
            MessageProducer producer = s.createProducer(s.createQueue("Q"));
            producer.send(s.createTextMessage("in the transaction"));
            CompletableFuture<JMSException> commit = CompletableFuture.supplyAsync(() -> {
                try {
                    s.commit();
                    return null;
                } catch (JMSException e) {
                    return e;
                }
            });
            server.expect(Frame.Hello.class);
            server.expect(Frame.CreateSession.class);
            server.expect(Frame.CreateProducer.class);
            server.expect(Frame.Send.class);
            server.expect(Frame.Commit.class);
            server.client().close().sync();
            server.reconnected();

            JMSException unknown = commit.get(5, TimeUnit.SECONDS);
            assertNotNull(unknown);
            assertEquals("TRANSACTION_OUTCOME_UNKNOWN", unknown.getErrorCode());
            assertTrue(unknown.getMessage().startsWith("The outcome of the commit is unknown: the connection to Wharf at "
                    + server.url() + " was lost after COMMIT was sent and before the server answered."), unknown.getMessage());
            assertEquals(FailoverEvent.Kind.DISCONNECTED, next(events).kind());
            assertEquals(FailoverEvent.Kind.RECONNECTED, next(events).kind());
            server.expect(Frame.Hello.class);
            server.expect(Frame.CreateSession.class);
            producer.send(s.createTextMessage("the next transaction"));
            s.commit(); // a new transaction, on the new link
            assertEquals("the next transaction", FakeServer.decode(server.expect(Frame.Send.class)).getBody(String.class));
            server.expect(Frame.Commit.class);
            c.close();
        }
    }

    @Test
    void aMessageHandedOutBeforeAReconnectionIsMarkedRedeliveredWhenItComesAgainAsNew() throws Exception {
        try (FakeServer server = FakeServer.tcp()) {
            Connection c = new WharfConnectionFactory(server.url() + FAST).createConnection();
            BlockingQueue<FailoverEvent> events = events(c);
            c.start();
            Session s = c.createSession(Session.CLIENT_ACKNOWLEDGE);
            MessageConsumer consumer = s.createConsumer(s.createQueue("Q"));
            server.expect(Frame.Hello.class);
            server.expect(Frame.CreateSession.class);
            int consumerId = server.expect(Frame.CreateConsumer.class).consumerId();
            WireMessage inHand = FakeServer.text("in hand, not acknowledged");
            WireMessage prefetched = FakeServer.text("prefetched, never handed out");
            server.deliver(consumerId, 1, 1, inHand);
            server.deliver(consumerId, 2, 1, prefetched);
            Message before = consumer.receive(5000);
            assertEquals(inHand.messageId, before.getJMSMessageID());
            assertFalse(before.getJMSRedelivered());

            server.client().close().sync();
            server.reconnected();
            assertEquals(FailoverEvent.Kind.DISCONNECTED, next(events).kind());
            assertEquals(FailoverEvent.Kind.RECONNECTED, next(events).kind());
            server.expect(Frame.Hello.class);
            server.expect(Frame.CreateSession.class);
            Frame.CreateConsumer again = server.expect(Frame.CreateConsumer.class);
            assertEquals(consumerId, again.consumerId(), "the same consumer, made again");
            assertEquals(1000, again.credit(), "with its whole window");
            // a server that was restarted knows nothing of the first delivery: count 1, as new
            server.deliver(consumerId, 1, 1, prefetched);
            server.deliver(consumerId, 2, 1, inHand);
            TextMessage first = (TextMessage) consumer.receive(5000);
            assertEquals(prefetched.messageId, first.getJMSMessageID());
            assertFalse(first.getJMSRedelivered(), "the application never had it");
            Message second = consumer.receive(5000);
            assertEquals(inHand.messageId, second.getJMSMessageID());
            assertTrue(second.getJMSRedelivered(), "the application had it before: marked");
            assertEquals(2, second.getIntProperty("JMSXDeliveryCount"));

            before.acknowledge(); // the session carries on: it acknowledges what it received over the new link
            Frame.Ack ack = server.expect(Frame.Ack.class);
            assertEquals(java.util.List.of(new Frame.Consumed(consumerId, 2)), ack.consumed(),
                    "the new link's deliveries; the old one's went back to the server with the link");
            c.close();
        }
    }
}
