package org.wharfmq.jms;

import org.junit.jupiter.api.Test;
import org.wharfmq.jms.message.WharfMessage;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.message.WireDestination;

import javax.jms.BytesMessage;
import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.InvalidDestinationException;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageProducer;
import javax.jms.Session;
import javax.jms.TextMessage;
import javax.jms.TransactionRolledBackException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ProducerTest {
    private static Frame.Send nextSend(FakeServer server) throws InterruptedException {
        Frame f;
        while (!((f = server.expect(Frame.class)) instanceof Frame.Send)) {
            // skip session and producer set-up
        }
        return (Frame.Send) f;
    }

    @Test
    void persistentSendWaitsAndSetsHeaders() throws Exception {
        try (FakeServer server = FakeServer.inVm()) {
            Connection c = new WharfConnectionFactory(server.url()).createConnection();
            Session s = c.createSession();
            MessageProducer p = s.createProducer(s.createQueue("ORDERS"));
            p.setPriority(6);
            p.setTimeToLive(60_000);
            TextMessage m = s.createTextMessage("x");
            m.setJMSCorrelationID("c1");
            m.setJMSReplyTo(s.createQueue("REPLY"));
            long before = System.currentTimeMillis();
            p.send(m);
            Frame.Send send = nextSend(server);
            assertNotEquals(0, send.requestId(), "persistent sends outside a transaction are answered");
            assertTrue(m.getJMSMessageID().matches("ID:wharf-[0-9a-f]+-\\d+-\\d+:1"), m.getJMSMessageID());
            assertTrue(m.getJMSTimestamp() >= before);
            assertEquals(m.getJMSTimestamp() + 60_000, m.getJMSExpiration());
            assertEquals(new WharfQueue("ORDERS"), m.getJMSDestination());
            assertEquals(6, m.getJMSPriority());
            WharfMessage sent = FakeServer.decode(send);
            assertEquals(m.getJMSMessageID(), sent.getJMSMessageID());
            assertEquals("c1", sent.getJMSCorrelationID());
            assertEquals(new WharfQueue("REPLY"), sent.getJMSReplyTo());
            assertEquals(m.getJMSExpiration(), sent.getJMSExpiration());
            p.send(s.createTextMessage("y"));
            assertTrue(FakeServer.decode(nextSend(server)).getJMSMessageID().endsWith(":2"));
            c.close();
        }
    }

    @Test
    void persistentSendFailureIsThrownWithServerText() throws Exception {
        try (FakeServer server = FakeServer.inVm()) {
            server.answer = f -> f instanceof Frame.Send send && send.requestId() != 0
                    ? new Frame.Error(send.requestId(), ErrorCode.QUEUE_FULL, "Queue Q is full (maxQueueDepth 10)", send.sessionId(), send.producerId())
                    : null;
            Connection c = new WharfConnectionFactory(server.url()).createConnection();
            Session s = c.createSession();
            MessageProducer p = s.createProducer(s.createQueue("Q"));
            JMSException e = assertThrows(JMSException.class, () -> p.send(s.createMessage()));
            assertEquals("QUEUE_FULL", e.getErrorCode());
            assertEquals("Queue Q is full (maxQueueDepth 10)", e.getMessage());
            c.close();
        }
    }

    @Test
    void nonPersistentIsFireAndForgetAndItsErrorSurfacesOnNextSend() throws Exception {
        try (FakeServer server = FakeServer.inVm()) {
            Connection c = new WharfConnectionFactory(server.url()).createConnection();
            Session s = c.createSession();
            MessageProducer p = s.createProducer(s.createQueue("Q"));
            p.setDeliveryMode(DeliveryMode.NON_PERSISTENT);
            p.send(s.createMessage());
            Frame.Send send = nextSend(server);
            assertEquals(0, send.requestId());
            send.message().release();
            server.send(new Frame.Error(0, ErrorCode.QUEUE_FULL, "Queue Q is full", send.sessionId(), send.producerId()));
            // the error arrives asynchronously: a synchronous round trip guarantees it has been read
            s.createProducer(s.createQueue("OTHER"));
            JMSException e = assertThrows(JMSException.class, () -> p.send(s.createMessage()));
            assertEquals("QUEUE_FULL", e.getErrorCode());
            p.send(s.createMessage()); // reported once
            c.close();
        }
    }

    @Test
    void aSendWaitsForProducerCreditAndGoesOnOnceTheServerGrantsIt() throws Exception {
        try (FakeServer server = FakeServer.inVm()) {
            server.grantsCredit = false; // the session opens with no credit, as if its destination were over budget
            Connection c = new WharfConnectionFactory(server.url()).createConnection();
            Session s = c.createSession();
            server.expect(Frame.Hello.class);
            int sessionId = server.expect(Frame.CreateSession.class).sessionId();
            MessageProducer p = s.createProducer(s.createQueue("Q"));
            p.setDeliveryMode(DeliveryMode.NON_PERSISTENT);
            java.util.concurrent.CompletableFuture<Void> sent = new java.util.concurrent.CompletableFuture<>();
            Thread sender = new Thread(() -> {
                try {
                    p.send(s.createTextMessage("waits"));
                    p.send(s.createTextMessage("waits again"), new javax.jms.CompletionListener() { // bounded too
                        public void onCompletion(Message m) {
                        }

                        public void onException(Message m, Exception e) {
                        }
                    });
                    sent.complete(null);
                } catch (JMSException e) {
                    sent.completeExceptionally(e);
                }
            }, "blocked-sender");
            sender.start();
            FakeServer.awaitParked(sender);
            assertTrue(server.expect(Frame.CreateProducer.class) != null);
            assertNull(server.poll(0), "nothing is sent without credit");

            server.send(new Frame.ProducerCredit(sessionId, 1)); // one byte left: any one message fits
            assertEquals("waits", ((TextMessage) FakeServer.decode(nextSend(server))).getText());
            FakeServer.awaitParked(sender); // the first took the credit below zero: the asynchronous send waits as well
            assertNull(server.poll(0), "the asynchronous send waits for credit too");
            server.send(new Frame.ProducerCredit(sessionId, 1 << 20));
            assertEquals("waits again", ((TextMessage) FakeServer.decode(nextSend(server))).getText());
            sent.get(5, java.util.concurrent.TimeUnit.SECONDS);

            Thread last = new Thread(() -> {
                try {
                    while (true) {
                        p.send(s.createTextMessage("until the credit is spent"));
                    }
                } catch (JMSException e) {
                    sent.obtrudeException(e);
                }
            }, "closed-while-waiting");
            last.start();
            FakeServer.awaitParked(last);
            s.close(); // from another thread, as JMS allows: the waiting send ends
            last.join(5000);
            JMSException closed = assertThrows(java.util.concurrent.ExecutionException.class, sent::get).getCause()
                    instanceof JMSException j ? j : null;
            assertTrue(closed instanceof javax.jms.IllegalStateException, String.valueOf(closed));
            c.close();
        }
    }

    @Test
    void syncSendsOptionMakesEverySendWait() throws Exception {
        try (FakeServer server = FakeServer.inVm()) {
            Connection c = new WharfConnectionFactory(server.url() + "?syncSends=true").createConnection();
            Session s = c.createSession(true, Session.SESSION_TRANSACTED);
            MessageProducer p = s.createProducer(s.createQueue("Q"));
            p.send(s.createMessage(), DeliveryMode.NON_PERSISTENT, 4, 0);
            assertNotEquals(0, nextSend(server).requestId());
            c.close();
        }
    }

    @Test
    void transactedSendsAreFireAndForgetAndCommitReportsRollback() throws Exception {
        try (FakeServer server = FakeServer.inVm()) {
            java.util.concurrent.atomic.AtomicBoolean failCommit = new java.util.concurrent.atomic.AtomicBoolean(true);
            server.answer = f -> f instanceof Frame.Commit commit && failCommit.getAndSet(false)
                    ? new Frame.Error(commit.requestId(), ErrorCode.TRANSACTION_ROLLED_BACK, "Transaction rolled back: Queue Q is full", commit.sessionId(), 0)
                    : null;
            Connection c = new WharfConnectionFactory(server.url()).createConnection();
            Session s = c.createSession(true, Session.SESSION_TRANSACTED);
            server.expect(Frame.Hello.class);
            Frame.CreateSession cs = server.expect(Frame.CreateSession.class);
            assertTrue(cs.transacted());
            javax.jms.MessageConsumer consumer = s.createConsumer(s.createQueue("IN"));
            int consumerId = server.expect(Frame.CreateConsumer.class).consumerId();
            c.start();
            server.deliver(consumerId, 1, 1, FakeServer.text("in"));
            consumer.receive(5000);
            MessageProducer p = s.createProducer(s.createQueue("Q"));
            p.send(s.createMessage());
            assertEquals(0, nextSend(server).requestId());
            TransactionRolledBackException e = assertThrows(TransactionRolledBackException.class, s::commit);
            assertEquals("Transaction rolled back: Queue Q is full", e.getMessage());
            assertEquals(java.util.List.of(new Frame.Consumed(consumerId, 1)), server.expect(Frame.Commit.class).consumed());
            s.commit(); // the server took the consumed message back: the next transaction starts afresh
            assertTrue(server.expect(Frame.Commit.class).consumed().isEmpty());
            c.close();
        }
    }

    @Test
    void oversizeMessageRefusedBeforeSending() throws Exception {
        try (FakeServer server = FakeServer.inVm()) {
            server.maxMessageLength = 1000;
            Connection c = new WharfConnectionFactory(server.url()).createConnection();
            Session s = c.createSession();
            MessageProducer p = s.createProducer(s.createQueue("Q"));
            BytesMessage big = s.createBytesMessage();
            big.writeBytes(new byte[2000]);
            JMSException e = assertThrows(JMSException.class, () -> p.send(big));
            assertEquals("MESSAGE_TOO_LARGE", e.getErrorCode());
            assertTrue(e.getMessage().contains("2000") && e.getMessage().contains("1000") && e.getMessage().contains("maxMessageLength"),
                    e.getMessage());
            BytesMessage almost = s.createBytesMessage();
            almost.writeBytes(new byte[990]); // body fits, headers push it over
            e = assertThrows(JMSException.class, () -> p.send(almost));
            assertTrue(e.getMessage().contains("1000"), e.getMessage());
            p.send(s.createTextMessage("small"));
            assertEquals("small", ((TextMessage) FakeServer.decode(nextSend(server))).getText());
            c.close();
        }
    }

    @Test
    void anonymousProducerNeedsDestinationPerSend() throws Exception {
        try (FakeServer server = FakeServer.inVm()) {
            Connection c = new WharfConnectionFactory(server.url()).createConnection();
            Session s = c.createSession();
            MessageProducer anonymous = s.createProducer(null);
            server.expect(Frame.Hello.class);
            server.expect(Frame.CreateSession.class);
            assertNull(server.expect(Frame.CreateProducer.class).destination());
            assertThrows(UnsupportedOperationException.class, () -> anonymous.send(s.createMessage()));
            assertThrows(InvalidDestinationException.class, () -> anonymous.send(null, s.createMessage()));
            anonymous.send(s.createQueue("A"), s.createMessage());
            assertEquals(new WharfQueue("A"), FakeServer.decode(nextSend(server)).getJMSDestination());
            MessageProducer fixed = s.createProducer(s.createQueue("B"));
            assertEquals(WireDestination.queue("B"), server.expect(Frame.CreateProducer.class).destination());
            assertThrows(UnsupportedOperationException.class, () -> fixed.send(s.createQueue("A"), s.createMessage()));
            c.close();
        }
    }

    @Test
    void foreignMessageIsCopiedAndStamped() throws Exception {
        try (FakeServer server = FakeServer.inVm()) {
            Connection c = new WharfConnectionFactory(server.url()).createConnection();
            Session s = c.createSession();
            MessageProducer p = s.createProducer(s.createQueue("Q"));
            Message foreign = ForeignTextMessage.create("from elsewhere");
            foreign.setStringProperty("k", "v");
            p.send(foreign);
            WharfMessage sent = FakeServer.decode(nextSend(server));
            assertEquals("from elsewhere", ((TextMessage) sent).getText());
            assertEquals("v", sent.getStringProperty("k"));
            assertEquals(sent.getJMSMessageID(), foreign.getJMSMessageID());
            c.close();
        }
    }
}
