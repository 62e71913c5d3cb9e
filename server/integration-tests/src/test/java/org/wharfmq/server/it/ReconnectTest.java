package org.wharfmq.server.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.wharfmq.jms.FailoverEvent;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.server.FreePorts;
import org.wharfmq.server.TestServer;

import javax.jms.Connection;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Session;
import javax.jms.TemporaryQueue;
import javax.jms.TextMessage;
import javax.jms.TransactionRolledBackException;
import java.io.IOException;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Automatic reconnection (issue 22 item 4; docs/resilience.md, "Reconnect and failover"), with the real server and
 * client: a connection whose link is cut (by {@link TcpProxy}: reset on both sides, or only on the client's, a
 * half-open connection the server has not noticed) or whose server stops is made again, to the same server or the
 * next address of its URL, with its sessions, consumers (selectors included), producers, client ID, temporary queue and
 * durable subscription; what the application had not acknowledged comes back marked JMSRedelivered, a transaction
 * that was open is rolled back at commit, and the ExceptionListener hears only of a failure that reconnecting gave up
 * on. A server killed and restarted is {@code store.ServerRestartReconnectTest}.
 */
@Timeout(120)
class ReconnectTest {

    @RegisterExtension
    static final WharfServerExtension WHARF = WharfServerExtension.withDefaults();

    private static Connection throughProxy(TcpProxy proxy) throws JMSException {
        return WHARF.track(new WharfConnectionFactory(proxy.url() + "?" + Failovers.FAST).createConnection());
    }

    private static TextMessage colored(Session session, String text, String color) throws JMSException {
        TextMessage m = session.createTextMessage(text);
        m.setStringProperty("color", color);
        return m;
    }

    @Test
    void aCutConnectionIsMadeAgainAndWhatWasNotAcknowledgedComesBackRedelivered() throws Exception {
        String queue = WHARF.queueName("reconnect-cut");
        try (TcpProxy proxy = TcpProxy.start(WHARF.server().tcpPort())) {
            Connection connection = throughProxy(proxy);
            Failovers failovers = Failovers.of(connection);
            AtomicInteger exceptions = new AtomicInteger();
            connection.setExceptionListener(e -> exceptions.incrementAndGet());
            Session session = connection.createSession(Session.CLIENT_ACKNOWLEDGE);
            MessageConsumer reds = session.createConsumer(session.createQueue(queue), "color = 'red'");
            MessageProducer producer = session.createProducer(session.createQueue(queue));
            connection.start();
            producer.send(colored(session, "red-1", "red"));
            producer.send(colored(session, "blue-1", "blue"));
            Message first = Receive.next(reds);
            assertEquals("red-1", ((TextMessage) first).getText());
            assertFalse(first.getJMSRedelivered());

            proxy.killConnections(); // red-1 is in the application's hands, not acknowledged
            failovers.expect(FailoverEvent.Kind.DISCONNECTED);
            failovers.expect(FailoverEvent.Kind.RECONNECTED);

            Message again = Receive.next(reds);
            assertEquals("red-1", ((TextMessage) again).getText());
            assertTrue(again.getJMSRedelivered(), "received and not acknowledged before the failure: marked");
            producer.send(colored(session, "red-2", "red")); // the same producer, after the reconnection
            Message second = Receive.next(reds);
            assertEquals("red-2", ((TextMessage) second).getText());
            assertFalse(second.getJMSRedelivered());
            second.acknowledge();
            Receive.nothingMore(reds);
            assertEquals(1, WHARF.depth(queue), "blue-1 waits: the consumer was made again with its selector");
            assertEquals(0, exceptions.get(), "the ExceptionListener hears only of a failure reconnecting gives up on");
        }
    }

    @Test
    void aReceiveWaitingAcrossTheReconnectionGetsTheNextMessage() throws Exception {
        String queue = WHARF.queueName("reconnect-receive");
        try (TcpProxy proxy = TcpProxy.start(WHARF.server().tcpPort())) {
            Connection connection = throughProxy(proxy);
            Failovers failovers = Failovers.of(connection);
            Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            MessageConsumer consumer = session.createConsumer(session.createQueue(queue));
            connection.start();
            CompletableFuture<Message> waiting = CompletableFuture.supplyAsync(() -> {
                try {
                    return consumer.receive(); // no timeout: neither null nor an exception may end it
                } catch (JMSException e) {
                    throw new IllegalStateException(e);
                }
            });
            proxy.killConnections();
            failovers.expect(FailoverEvent.Kind.DISCONNECTED);
            failovers.expect(FailoverEvent.Kind.RECONNECTED);
            Send.texts(WHARF.connect(Transport.TCP), queue, "after the reconnection");
            assertEquals("after the reconnection", ((TextMessage) waiting.get(Receive.EXPECTED_MS, TimeUnit.MILLISECONDS)).getText());
        }
    }

    /**
     * The half-open case: the client's side of the link is gone, the server's is open and silent, so the server still
     * holds the old connection (its client ID, its durable subscriber, its temporary queue) when the client comes back.
     * While the client is cut off, a responder answers a request sent before the cut to its temporary queue, and a
     * publication goes to its durable subscription; the new connection takes over from the old one and gets both.
     */
    @Test
    void aHalfOpenConnectionIsTakenOverWithItsTemporaryQueueClientIdAndDurableSubscription() throws Exception {
        String requests = WHARF.queueName("reconnect-requests");
        String topic = "reconnect/" + WHARF.queueName("news");
        Connection direct = WHARF.connect(Transport.TCP);
        Session responder = direct.createSession(Session.AUTO_ACKNOWLEDGE);
        MessageConsumer requestsIn = responder.createConsumer(responder.createQueue(requests));
        MessageProducer replier = responder.createProducer(null);
        try (TcpProxy proxy = TcpProxy.start(WHARF.server().tcpPort())) {
            Connection requester = throughProxy(proxy);
            requester.setClientID("reconnect-takeover");
            Failovers failovers = Failovers.of(requester, () -> {
                // on the reconnection thread, before its first attempt: the server still has the old connection
                Message question = Receive.next(requestsIn);
                replier.send(question.getJMSReplyTo(), responder.createTextMessage("answer while cut off"));
                replier.send(responder.createTopic(topic), responder.createTextMessage("news while cut off"));
            });
            Session session = requester.createSession(Session.AUTO_ACKNOWLEDGE);
            TemporaryQueue replies = session.createTemporaryQueue();
            MessageConsumer replyConsumer = session.createConsumer(replies);
            MessageConsumer subscriber = session.createDurableSubscriber(session.createTopic(topic), "news");
            MessageProducer asker = session.createProducer(session.createQueue(requests));
            requester.start();
            TextMessage question = session.createTextMessage("question 1");
            question.setJMSReplyTo(replies);
            asker.send(question);

            proxy.cutClientSides();
            failovers.expect(FailoverEvent.Kind.DISCONNECTED);
            failovers.expect(FailoverEvent.Kind.RECONNECTED);

            assertEquals("answer while cut off", Receive.nextText(replyConsumer).getText(),
                    "the reply to a temporary queue made before the failure arrived");
            assertEquals("news while cut off", Receive.nextText(subscriber).getText());
            // the same temporary queue, the same name, still this connection's: a second request and its reply
            TextMessage again = session.createTextMessage("question 2");
            again.setJMSReplyTo(replies);
            asker.send(again);
            Message secondQuestion = Receive.next(requestsIn);
            assertEquals(replies, secondQuestion.getJMSReplyTo());
            replier.send(secondQuestion.getJMSReplyTo(), responder.createTextMessage("answer 2"));
            assertEquals("answer 2", Receive.nextText(replyConsumer).getText());
            assertEquals("reconnect-takeover", requester.getClientID());
        }
    }

    @Test
    void aTransactionCutByTheFailureIsRolledBackAtCommitAndTheSessionCarriesOn() throws Exception {
        String in = WHARF.queueName("reconnect-tx-in");
        String out = WHARF.queueName("reconnect-tx-out");
        Send.texts(WHARF.connect(Transport.TCP), in, "work-1");
        try (TcpProxy proxy = TcpProxy.start(WHARF.server().tcpPort())) {
            Connection connection = throughProxy(proxy);
            Failovers failovers = Failovers.of(connection);
            Session session = connection.createSession(Session.SESSION_TRANSACTED);
            MessageConsumer work = session.createConsumer(session.createQueue(in));
            MessageProducer results = session.createProducer(session.createQueue(out));
            connection.start();
            Message first = Receive.next(work);
            assertFalse(first.getJMSRedelivered());
            results.send(session.createTextMessage("result of the first try"));

            proxy.killConnections();
            failovers.expect(FailoverEvent.Kind.DISCONNECTED);
            failovers.expect(FailoverEvent.Kind.RECONNECTED);

            TransactionRolledBackException rolledBack = assertThrows(TransactionRolledBackException.class, session::commit);
            assertTrue(rolledBack.getMessage().startsWith("The transaction was rolled back: the connection to Wharf was"
                    + " lost while it was open, and has been made again."), rolledBack.getMessage());
            Message again = Receive.next(work);
            assertEquals("work-1", ((TextMessage) again).getText());
            assertTrue(again.getJMSRedelivered());
            results.send(session.createTextMessage("result of the second try"));
            session.commit();

            Session check = WHARF.connect(Transport.TCP).createSession(Session.AUTO_ACKNOWLEDGE);
            MessageConsumer outputs = check.createConsumer(check.createQueue(out));
            assertEquals("result of the second try", Receive.nextText(outputs).getText());
            Receive.nothingMore(outputs); // the first try's result went with its transaction
            assertEquals(0, WHARF.depth(in));
        }
    }

    @Test
    void theClientConnectsToTheFirstAddressThatAnswersAndMovesToTheNextWhenItsServerStops() throws Exception {
        int down = portNobodyListensOn();
        try (TestServer first = TestServer.start(); TestServer second = TestServer.start()) {
            String url = "tcp://127.0.0.1:" + down + ",tcp://127.0.0.1:" + first.server().tcpPort()
                    + ",tcp://127.0.0.1:" + second.server().tcpPort() + "?" + Failovers.FAST;
            Connection connection = WHARF.track(new WharfConnectionFactory(url).createConnection());
            Failovers failovers = Failovers.of(connection);
            Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            MessageConsumer consumer = session.createConsumer(session.createQueue("MOVING"));
            MessageProducer producer = session.createProducer(session.createQueue("MOVING"));
            connection.start();
            producer.send(session.createTextMessage("to the first server"));
            assertEquals(1, first.server().queueManager().depth("MOVING"), "the first address that answers");
            assertEquals("to the first server", Receive.nextText(consumer).getText());

            String firstAddress = "tcp://127.0.0.1:" + first.server().tcpPort();
            first.stop(); // the server of the address in use goes away
            assertEquals(firstAddress, failovers.expect(FailoverEvent.Kind.DISCONNECTED).address());
            FailoverEvent moved = failovers.expect(FailoverEvent.Kind.RECONNECTED);
            assertEquals("tcp://127.0.0.1:" + second.server().tcpPort(), moved.address());
            producer.send(session.createTextMessage("to the second server"));
            assertEquals("to the second server", Receive.nextText(consumer).getText());
            Receive.nothingMore(consumer); // its acknowledgement leaves before the PULL this asks with
            assertEquals(0, second.server().queueManager().depth("MOVING"), "received and acknowledged there");
        }
    }

    @Test
    void whenReconnectingGivesUpTheExceptionListenerHearsOnceNamingTheAddressesAndTheSetting() throws Exception {
        int down = portNobodyListensOn();
        try (TestServer only = TestServer.start()) {
            String url = "tcp://127.0.0.1:" + only.server().tcpPort() + ",tcp://127.0.0.1:" + down
                    + "?reconnectAttempts=3&reconnectInterval=10&reconnectMaxInterval=20";
            Connection connection = WHARF.track(new WharfConnectionFactory(url).createConnection());
            Failovers failovers = Failovers.of(connection);
            BlockingQueue<JMSException> heard = new LinkedBlockingQueue<>();
            connection.setExceptionListener(heard::add);
            Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            MessageConsumer consumer = session.createConsumer(session.createQueue("GONE"));
            connection.start();
            CompletableFuture<Throwable> receive = CompletableFuture.supplyAsync(() -> {
                try {
                    return consumer.receive() == null ? new AssertionError("receive returned null") : null;
                } catch (JMSException e) {
                    return e;
                }
            });
            int port = only.server().tcpPort();
            only.stop();

            failovers.expect(FailoverEvent.Kind.DISCONNECTED);
            assertEquals(3, failovers.expect(FailoverEvent.Kind.FAILED).attempts());
            JMSException lost = heard.poll(Receive.EXPECTED_MS, TimeUnit.MILLISECONDS);
            assertNotNull(lost, "the ExceptionListener was told");
            String expected = "reconnecting gave up after 3 attempt(s) over tcp://127.0.0.1:" + port + ", tcp://127.0.0.1:"
                    + down + " (reconnectAttempts=3, reconnectInterval=10 ms, reconnectMaxInterval=20 ms; raise"
                    + " reconnectAttempts, or -1 to try for ever).";
            assertTrue(lost.getMessage().contains(expected), lost.getMessage());
            assertTrue(lost.getMessage().startsWith("Connection to Wharf at tcp://127.0.0.1:" + port + " was lost"),
                    lost.getMessage());
            JMSException fromReceive = assertInstanceOf(JMSException.class, receive.get(Receive.EXPECTED_MS, TimeUnit.MILLISECONDS));
            assertTrue(fromReceive.getMessage().contains(expected), fromReceive.getMessage());
            connection.close();
            assertTrue(heard.isEmpty(), "told once: " + heard);
        }
    }

    private static int portNobodyListensOn() throws IOException {
        return FreePorts.one();
    }
}
