package org.wharfmq.jms;

import org.junit.jupiter.api.Test;
import org.wharfmq.protocol.ProtocolVersion;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.message.WireMessage;

import javax.jms.Connection;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.Session;
import javax.jms.TextMessage;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * The core consumer's own bookkeeping, over TCP (so receives read the socket themselves): credit returned for what
 * is consumed, by receive and by a listener alike, and the consumed deliveries each consumer reports to its
 * session's ACK and COMMIT exactly once, a closed consumer's included.
 */
class ClientConsumerTest {

    /** The id of the next consumer the client creates (HELLO and CREATE_SESSION may come first). */
    private static int createConsumer(FakeServer server) throws InterruptedException {
        return createConsumerFrame(server).consumerId();
    }

    /** The CREATE_CONSUMER of the next consumer the client creates. */
    private static Frame.CreateConsumer createConsumerFrame(FakeServer server) throws InterruptedException {
        Frame f;
        do {
            f = server.expect(Frame.class);
        } while (f instanceof Frame.Hello || f instanceof Frame.CreateSession);
        return (Frame.CreateConsumer) f;
    }

    /** The next frame that is not an AUTO_ACKNOWLEDGE acknowledgement (they ride with whatever leaves next). */
    private static Frame nextBesidesAcks(FakeServer server) throws InterruptedException {
        Frame f;
        do {
            f = server.expect(Frame.class);
        } while (f instanceof Frame.Ack);
        return f;
    }

    private static String text(Message m) throws Exception {
        assertNotNull(m, "no message");
        return ((TextMessage) m).getText();
    }

    @Test
    void creditIsReturnedInHalfWindowsForWhatReceiveAndAListenerConsume() throws Exception {
        FakeServer server = FakeServer.tcp();
        Connection connection = new WharfConnectionFactory(server.url() + "?prefetch=4").createConnection();
        connection.start(); // first: a consumer of a stopped connection is created without its window
        try {
            Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            MessageConsumer consumer = session.createConsumer(session.createQueue("Q"));
            int id = createConsumer(server);
            long bytes = 0;
            for (int i = 1; i <= 3; i++) {
                WireMessage m = FakeServer.text("m" + i);
                bytes += i <= 2 ? FakeServer.encodedLength(m) : 0;
                server.deliver(id, i, 1, m);
            }
            assertEquals("m1", text(consumer.receive(5000)));
            assertEquals("m2", text(consumer.receive(5000)));
            assertEquals(new Frame.Credit(id, 2, bytes), nextBesidesAcks(server),
                    "two of a window of four, and their bytes");
            assertEquals("m3", text(consumer.receive(5000)));

            // the listener consumes the fourth: the second half window is returned too
            BlockingQueue<String> heard = new LinkedBlockingQueue<>();
            consumer.setMessageListener(m -> {
                try {
                    heard.add(((TextMessage) m).getText());
                } catch (Exception e) {
                    heard.add(e.toString());
                }
            });
            WireMessage m4 = FakeServer.text("m4");
            server.deliver(id, 4, 1, m4);
            assertEquals("m4", heard.poll(5, TimeUnit.SECONDS));
            assertEquals(2, ((Frame.Credit) nextBesidesAcks(server)).credit());
        } finally {
            connection.close();
            server.close();
        }
    }

    /** A started connection to {@code server} with URL {@code options}, and a consumer of Q, created on the server. */
    private record Consumer(Connection connection, MessageConsumer consumer, Frame.CreateConsumer create) {
        static Consumer open(FakeServer server, String options) throws Exception {
            Connection connection = new WharfConnectionFactory(server.url() + "?" + options).createConnection();
            connection.start();
            Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            MessageConsumer consumer = session.createConsumer(session.createQueue("Q"));
            return new Consumer(connection, consumer, createConsumerFrame(server));
        }
    }

    /**
     * A consumer asks a version 3 server for its window in bytes (consumerWindowBytes) and returns credit, with the
     * bytes it settles, as soon as it has consumed half of that window in bytes, long before half its prefetch count.
     */
    @Test
    void creditGoesBackWithItsBytesOnceHalfTheWindowInBytesIsConsumed() throws Exception {
        WireMessage large = FakeServer.text("x".repeat(10_000));
        int length = FakeServer.encodedLength(large);
        int window = 2 * length; // half of it: one message
        try (FakeServer server = FakeServer.tcp()) {
            Consumer c = Consumer.open(server, "consumerWindowBytes=" + window);
            assertEquals(window, c.create().windowBytes());
            assertEquals(1000, c.create().credit(), "the prefetch count as before");
            server.deliver(c.create().consumerId(), 1, 1, large);
            assertNotNull(c.consumer().receive(5000));
            assertEquals(new Frame.Credit(c.create().consumerId(), 1, length), nextBesidesAcks(server),
                    "half the window in bytes consumed: one message of 1000 of credit, and its bytes");
            c.connection().close();
        }
    }

    /**
     * A server before protocol version 3 (its HELLO_OK says version 2) gets no window in bytes and no bytes with the
     * credit: frames it can read (it refuses trailing bytes).
     */
    @Test
    void aVersionTwoServerGetsNoWindowInBytes() throws Exception {
        try (FakeServer server = FakeServer.tcp()) {
            server.version = ProtocolVersion.OLDEST;
            Consumer c = Consumer.open(server, "prefetch=2&consumerWindowBytes=10");
            assertEquals(0, c.create().windowBytes());
            server.deliver(c.create().consumerId(), 1, 1, FakeServer.text("m1"));
            assertNotNull(c.consumer().receive(5000));
            assertEquals(new Frame.Credit(c.create().consumerId(), 1), nextBesidesAcks(server));
            c.connection().close();
        }
    }

    @Test
    void whatAClosedConsumerConsumedIsAcknowledgedByTheSessionsNextAcknowledge() throws Exception {
        FakeServer server = FakeServer.tcp();
        Connection connection = new WharfConnectionFactory(server.url()).createConnection();
        connection.start(); // first: a consumer of a stopped connection is created without its window
        try {
            Session session = connection.createSession(Session.CLIENT_ACKNOWLEDGE);
            MessageConsumer first = session.createConsumer(session.createQueue("Q"));
            int firstId = createConsumer(server);
            MessageConsumer second = session.createConsumer(session.createQueue("Q2"));
            int secondId = createConsumer(server);
            server.deliver(firstId, 1, 1, FakeServer.text("a"));
            server.deliver(secondId, 2, 1, FakeServer.text("b"));
            text(first.receive(5000));
            Message b = second.receive(5000);
            first.close();
            assertEquals(new Frame.CloseConsumer(0, 1, firstId, 1), server.expect(Frame.CloseConsumer.class));
            b.acknowledge();
            Frame.Ack ack = server.expect(Frame.Ack.class);
            assertEquals(List.of(new Frame.Consumed(firstId, 1), new Frame.Consumed(secondId, 2)), ack.consumed(),
                    "the closed consumer's delivery is settled by this ACK");

            server.deliver(secondId, 3, 1, FakeServer.text("c"));
            second.receive(5000).acknowledge();
            assertEquals(List.of(new Frame.Consumed(secondId, 3)), server.expect(Frame.Ack.class).consumed(),
                    "each delivery acknowledged once: the closed consumer is gone once settled");
        } finally {
            connection.close();
            server.close();
        }
    }

    @Test
    void aCommitListsEachConsumersLastDeliveryOnceAndTheNextOnlyWhatCameAfter() throws Exception {
        FakeServer server = FakeServer.tcp();
        Connection connection = new WharfConnectionFactory(server.url()).createConnection();
        connection.start(); // first: a consumer of a stopped connection is created without its window
        try {
            Session session = connection.createSession(Session.SESSION_TRANSACTED);
            MessageConsumer a = session.createConsumer(session.createQueue("Q"));
            int aId = createConsumer(server);
            MessageConsumer b = session.createConsumer(session.createQueue("Q2"));
            int bId = createConsumer(server);
            server.deliver(aId, 1, 1, FakeServer.text("a1"));
            server.deliver(bId, 2, 1, FakeServer.text("b1"));
            server.deliver(bId, 3, 1, FakeServer.text("b2"));
            text(a.receive(5000));
            text(b.receive(5000));
            text(b.receive(5000));
            session.commit();
            assertEquals(List.of(new Frame.Consumed(aId, 1), new Frame.Consumed(bId, 3)),
                    server.expect(Frame.Commit.class).consumed());

            server.deliver(aId, 4, 1, FakeServer.text("a2"));
            assertEquals("a2", text(a.receive(5000)));
            session.commit();
            assertEquals(List.of(new Frame.Consumed(aId, 4)), server.expect(Frame.Commit.class).consumed());
            session.commit();
            assertEquals(List.of(), server.expect(Frame.Commit.class).consumed(), "nothing consumed since");
        } finally {
            connection.close();
            server.close();
        }
    }
}
