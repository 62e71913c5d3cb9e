package org.wharfmq.server.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import javax.jms.Connection;
import javax.jms.Destination;
import javax.jms.IllegalStateException;
import javax.jms.IllegalStateRuntimeException;
import javax.jms.InvalidDestinationException;
import javax.jms.InvalidSelectorException;
import javax.jms.JMSConsumer;
import javax.jms.JMSContext;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageListener;
import javax.jms.MessageProducer;
import javax.jms.Queue;
import javax.jms.Session;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a MessageListener may do to the objects that deliver to it (JMS 2.0 rev a, sections 6.1.5, 6.1.8, 6.2.15,
 * 8.8), and the IllegalStateException, InvalidDestinationException and InvalidSelectorException cases of the
 * classic API.
 */
@Timeout(60)
class ListenerRulesTest {

    @RegisterExtension
    static final WharfServerExtension WHARF = WharfServerExtension.withDefaults();

    private interface JmsCall {
        Object call() throws Exception;
    }

    /** Runs {@code inListener} inside onMessage of a listener on a fresh queue and returns what it returned or threw. */
    private static Object fromListener(Session session, JmsCall inListener) throws Exception {
        Queue queue = session.createQueue(WHARF.queueName("rules"));
        CompletableFuture<Object> outcome = new CompletableFuture<>();
        MessageConsumer consumer = session.createConsumer(queue);
        consumer.setMessageListener(message -> {
            try {
                outcome.complete(inListener.call());
            } catch (Exception e) {
                outcome.complete(e);
            }
        });
        session.createProducer(queue).send(session.createTextMessage("go"));
        return outcome.get(Receive.EXPECTED_MS, TimeUnit.MILLISECONDS);
    }

    @Test
    void connectionCloseAndStopFromItsListenerAreRefused() throws Exception {
        Connection connection = WHARF.connect(Transport.VM);
        Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        assertInstanceOf(IllegalStateException.class, fromListener(session, () -> {
            connection.close();
            return "closed";
        }));
        assertInstanceOf(IllegalStateException.class, fromListener(session, () -> {
            connection.stop();
            return "stopped";
        }));
        connection.createSession(false, Session.AUTO_ACKNOWLEDGE).close(); // the connection still works
    }

    /**
     * Jakarta Messaging lets a provider either refuse Session.close from the session's own MessageListener or close;
     * Wharf refuses it (as the TCK requires), as it refuses Connection.close and stop: the session goes on working.
     */
    @Test
    void sessionCloseFromItsOwnListenerIsRefused() throws Exception {
        Connection connection = WHARF.connect(Transport.TCP);
        Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        IllegalStateException refused = assertInstanceOf(IllegalStateException.class, fromListener(session, () -> {
            session.close();
            return "closed";
        }));
        assertTrue(refused.getMessage().contains("own session"), refused.getMessage());
        assertEquals("still open", fromListener(session, () -> session.createTextMessage("still open").getText()));
        session.close();
        assertThrows(IllegalStateException.class, () -> session.createQueue("Q"));
    }

    /** JMS 2.0: a listener may close its own consumer; it then gets no further messages. */
    @Test
    void consumerCloseFromItsOwnListener() throws Exception {
        Connection connection = WHARF.connect(Transport.VM);
        Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        String queueName = WHARF.queueName("rules.consumer");
        Queue queue = session.createQueue(queueName);
        MessageProducer producer = session.createProducer(queue);
        producer.send(session.createTextMessage("first"));
        producer.send(session.createTextMessage("second"));
        CountDownLatch closed = new CountDownLatch(1);
        CompletableFuture<Exception> failure = new CompletableFuture<>();
        MessageConsumer consumer = session.createConsumer(queue);
        consumer.setMessageListener(new MessageListener() {
            private int calls;

            @Override
            public void onMessage(Message message) {
                if (++calls > 1) {
                    failure.complete(new Exception("the listener was called again after closing its consumer"));
                    return;
                }
                try {
                    consumer.close();
                } catch (Exception e) {
                    failure.complete(e);
                }
                closed.countDown();
            }
        });
        assertTrue(closed.await(Receive.EXPECTED_MS, TimeUnit.MILLISECONDS));
        assertThrows(IllegalStateException.class, consumer::getMessageListener, "the consumer is closed");
        Session other = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        assertEquals("second", Receive.nextText(other.createConsumer(other.createQueue(queueName))).getText(),
                "the message the closed consumer had not consumed goes to the next consumer");
        assertTrue(!failure.isDone(), () -> "listener failure: " + failure.join());
    }

    /** JMSContext.stop and close from a MessageListener of the context: IllegalStateRuntimeException. */
    @Test
    void contextStopAndCloseFromItsListenerAreRefused() throws Exception {
        try (JMSContext context = WHARF.factory(Transport.VM).createContext()) {
            Queue queue = context.createQueue(WHARF.queueName("rules.context"));
            CompletableFuture<Object> stop = new CompletableFuture<>();
            CompletableFuture<Object> close = new CompletableFuture<>();
            JMSConsumer consumer = context.createConsumer(queue);
            consumer.setMessageListener(message -> {
                try {
                    context.stop();
                    stop.complete("stopped");
                } catch (RuntimeException e) {
                    stop.complete(e);
                }
                try {
                    context.close();
                    close.complete("closed");
                } catch (RuntimeException e) {
                    close.complete(e);
                }
            });
            context.createProducer().send(queue, "go");
            assertInstanceOf(IllegalStateRuntimeException.class, stop.get(Receive.EXPECTED_MS, TimeUnit.MILLISECONDS));
            assertInstanceOf(IllegalStateRuntimeException.class, close.get(Receive.EXPECTED_MS, TimeUnit.MILLISECONDS));
        }
    }

    /** 4.3.5, 4.4.1: once closed, connection, session, producer and consumer refuse use; close stays allowed. */
    @Test
    void closedObjectsThrowIllegalState() throws Exception {
        Connection connection = WHARF.connect(Transport.VM);
        Session session = connection.createSession(false, Session.CLIENT_ACKNOWLEDGE);
        Queue queue = session.createQueue(WHARF.queueName("rules.closed"));
        MessageProducer producer = session.createProducer(queue);
        MessageConsumer consumer = session.createConsumer(queue);
        producer.send(session.createTextMessage("m"));
        Message received = Receive.next(consumer);
        producer.close();
        producer.close();
        assertThrows(IllegalStateException.class, () -> producer.send(session.createMessage()));
        consumer.close();
        assertThrows(IllegalStateException.class, consumer::receiveNoWait);
        session.close();
        session.close();
        assertThrows(IllegalStateException.class, session::createMessage);
        assertThrows(IllegalStateException.class, received::acknowledge, "4.4.1: acknowledge after the session closed");
        connection.close();
        connection.close();
        assertThrows(IllegalStateException.class, () -> connection.createSession(false, Session.AUTO_ACKNOWLEDGE));
    }

    /** 6.1.2 / 4.3.2: the client id must be set before anything else; transactions and recovery by session kind. */
    @Test
    void illegalStateByUse() throws Exception {
        Connection connection = WHARF.track(WHARF.factory(Transport.VM).createConnection());
        Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        assertThrows(IllegalStateException.class, () -> connection.setClientID("late"));
        assertThrows(IllegalStateException.class, session::commit);
        assertThrows(IllegalStateException.class, session::rollback);
        Session transacted = connection.createSession(true, Session.SESSION_TRANSACTED);
        assertThrows(IllegalStateException.class, transacted::recover);
        MessageConsumer consumer = session.createConsumer(session.createQueue(WHARF.queueName("rules.sync")));
        consumer.setMessageListener(m -> { });
        assertThrows(IllegalStateException.class, consumer::receiveNoWait, "a listener consumer cannot also receive");
    }

    /** InvalidDestinationException for a null or foreign destination, InvalidSelectorException for a bad selector. */
    @Test
    void invalidDestinationsAndSelectors() throws Exception {
        Session session = WHARF.connect(Transport.VM).createSession(false, Session.AUTO_ACKNOWLEDGE);
        Destination foreign = new Destination() {
        };
        assertThrows(InvalidDestinationException.class, () -> session.createConsumer(null));
        assertThrows(InvalidDestinationException.class, () -> session.createConsumer(foreign));
        assertThrows(InvalidDestinationException.class, () -> session.createProducer(foreign));
        MessageProducer anonymous = session.createProducer(null);
        assertThrows(InvalidDestinationException.class, () -> anonymous.send(null, session.createMessage()));
        assertThrows(InvalidDestinationException.class, () -> anonymous.send(foreign, session.createMessage()));
        assertThrows(UnsupportedOperationException.class, () -> anonymous.send(session.createMessage()));
        assertThrows(InvalidSelectorException.class,
                () -> session.createConsumer(session.createQueue(WHARF.queueName("rules.selector")), "a ="));
        assertNull(session.createConsumer(session.createQueue(WHARF.queueName("rules.empty"))).receiveNoWait());
    }
}
