package org.wharfmq.server.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.function.Executable;

import javax.jms.IllegalStateException;
import javax.jms.MessageConsumer;
import javax.jms.Queue;
import javax.jms.QueueConnection;
import javax.jms.QueueConnectionFactory;
import javax.jms.QueueSession;
import javax.jms.Session;
import javax.jms.TextMessage;
import javax.jms.Topic;
import javax.jms.TopicConnection;
import javax.jms.TopicConnectionFactory;
import javax.jms.TopicSession;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The JMS 1.1 domain interfaces refuse the other domain's methods with IllegalStateException (JMS 1.1 section 4.11;
 * JMS 2.0 javadoc of QueueConnection, QueueSession and TopicSession): a QueueSession every publish/subscribe method,
 * a TopicSession every point-to-point one, a QueueConnection the topic connection consumers. Wharf's connection and
 * session implement both domains' interfaces, so the methods reachable only through a cast are refused too. Each
 * refusal names the method, the object and what to use instead.
 */
@Timeout(60)
class DomainSessionTest {

    @RegisterExtension
    static final WharfServerExtension WHARF = WharfServerExtension.withDefaults();

    private QueueConnection queueConnection() throws Exception {
        QueueConnection c = ((QueueConnectionFactory) WHARF.factory(Transport.TCP)).createQueueConnection();
        WHARF.track(c);
        c.start();
        return c;
    }

    private TopicConnection topicConnection() throws Exception {
        TopicConnection c = ((TopicConnectionFactory) WHARF.factory(Transport.TCP)).createTopicConnection();
        WHARF.track(c);
        c.start();
        return c;
    }

    private static void assertRefused(String method, String object, Executable call) {
        IllegalStateException refused = assertThrows(IllegalStateException.class, call, method + " on a " + object);
        String message = refused.getMessage();
        assertTrue(message.startsWith(method + " is not allowed on a " + object), message);
    }

    @Test
    void aQueueSessionRefusesEveryPublishSubscribeMethod() throws Exception {
        QueueConnection connection = queueConnection();
        QueueSession session = connection.createQueueSession(false, Session.AUTO_ACKNOWLEDGE);
        Topic topic = connection.createSession().createTopic("domain/" + WHARF.queueName("t").toLowerCase());
        String name = WHARF.queueName("sub");

        IllegalStateException refused = assertThrows(IllegalStateException.class, () -> session.createTopic("prices"));
        assertEquals("createTopic is not allowed on a QueueSession (JMS 1.1: a QueueSession is for queues only); "
                + "use a Session from createSession", refused.getMessage());
        assertRefused("createTemporaryTopic", "QueueSession", session::createTemporaryTopic);
        assertRefused("createDurableSubscriber", "QueueSession", () -> session.createDurableSubscriber(topic, name));
        assertRefused("createDurableSubscriber", "QueueSession",
                () -> session.createDurableSubscriber(topic, name, null, false));
        assertRefused("createDurableConsumer", "QueueSession", () -> session.createDurableConsumer(topic, name));
        assertRefused("createDurableConsumer", "QueueSession",
                () -> session.createDurableConsumer(topic, name, null, false));
        assertRefused("createSharedConsumer", "QueueSession", () -> session.createSharedConsumer(topic, name));
        assertRefused("createSharedConsumer", "QueueSession", () -> session.createSharedConsumer(topic, name, null));
        assertRefused("createSharedDurableConsumer", "QueueSession",
                () -> session.createSharedDurableConsumer(topic, name));
        assertRefused("createSharedDurableConsumer", "QueueSession",
                () -> session.createSharedDurableConsumer(topic, name, null));
        assertRefused("unsubscribe", "QueueSession", () -> session.unsubscribe(name));
        TopicSession cast = (TopicSession) session;
        assertRefused("createSubscriber", "QueueSession", () -> cast.createSubscriber(topic));
        assertRefused("createSubscriber", "QueueSession", () -> cast.createSubscriber(topic, null, false));
        assertRefused("createPublisher", "QueueSession", () -> cast.createPublisher(topic));

        // its own domain still works, refusals having left it usable
        Queue queue = session.createQueue(WHARF.queueName("domain.q"));
        session.createSender(queue).send(session.createTextMessage("p2p"));
        assertNotNull(session.createBrowser(queue).getEnumeration());
        assertEquals("p2p", ((TextMessage) Receive.next(session.createReceiver(queue))).getText());
        assertNotNull(session.createTemporaryQueue());
    }

    @Test
    void aTopicSessionRefusesEveryPointToPointMethod() throws Exception {
        TopicConnection connection = topicConnection();
        TopicSession session = connection.createTopicSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue queue = connection.createSession().createQueue(WHARF.queueName("domain.t"));

        assertRefused("createQueue", "TopicSession", () -> session.createQueue("ORDERS"));
        assertRefused("createTemporaryQueue", "TopicSession", session::createTemporaryQueue);
        assertRefused("createBrowser", "TopicSession", () -> session.createBrowser(queue));
        assertRefused("createBrowser", "TopicSession", () -> session.createBrowser(queue, "a = 1"));
        QueueSession cast = (QueueSession) session;
        assertRefused("createReceiver", "TopicSession", () -> cast.createReceiver(queue));
        assertRefused("createReceiver", "TopicSession", () -> cast.createReceiver(queue, null));
        assertRefused("createSender", "TopicSession", () -> cast.createSender(queue));

        Topic topic = session.createTopic("domain/" + WHARF.queueName("t").toLowerCase());
        MessageConsumer subscriber = session.createSubscriber(topic);
        session.createPublisher(topic).send(session.createTextMessage("pub/sub"));
        assertEquals("pub/sub", ((TextMessage) Receive.next(subscriber)).getText());
        assertNotNull(session.createTemporaryTopic());
    }

    @Test
    void aQueueConnectionRefusesTopicConnectionConsumersAndTopicSessions() throws Exception {
        QueueConnection connection = queueConnection();
        Topic topic = connection.createSession().createTopic("domain/c");
        IllegalStateException refused = assertThrows(IllegalStateException.class,
                () -> connection.createDurableConnectionConsumer(topic, "sub", null, null, 1));
        assertEquals("createDurableConnectionConsumer is not allowed on a QueueConnection (JMS 1.1: a QueueConnection "
                + "is for queues only); use a Connection from createConnection", refused.getMessage());
        assertRefused("createSharedConnectionConsumer", "QueueConnection",
                () -> connection.createSharedConnectionConsumer(topic, "sub", null, null, 1));
        assertRefused("createSharedDurableConnectionConsumer", "QueueConnection",
                () -> connection.createSharedDurableConnectionConsumer(topic, "sub", null, null, 1));
        TopicConnection cast = (TopicConnection) connection;
        assertRefused("createConnectionConsumer(Topic, ...)", "QueueConnection",
                () -> cast.createConnectionConsumer(topic, null, null, 1));
        assertRefused("createTopicSession", "QueueConnection", () -> cast.createTopicSession(false, Session.AUTO_ACKNOWLEDGE));

        TopicConnection topics = topicConnection();
        Queue queue = topics.createSession().createQueue("ANY");
        assertRefused("createQueueSession", "TopicConnection",
                () -> ((QueueConnection) topics).createQueueSession(false, Session.AUTO_ACKNOWLEDGE));
        assertRefused("createConnectionConsumer(Queue, ...)", "TopicConnection",
                () -> ((QueueConnection) topics).createConnectionConsumer(queue, null, null, 1));
    }

    @Test
    void aSessionFromCreateSessionServesBothDomainsOnEitherDomainConnection() throws Exception {
        Session fromQueueConnection = queueConnection().createSession(false, Session.AUTO_ACKNOWLEDGE);
        assertNotNull(fromQueueConnection.createTopic("domain/both"));
        assertNotNull(fromQueueConnection.createTemporaryTopic());
        Session fromTopicConnection = topicConnection().createSession(false, Session.AUTO_ACKNOWLEDGE);
        assertNotNull(fromTopicConnection.createQueue("BOTH"));
        assertNotNull(fromTopicConnection.createTemporaryQueue());
    }
}
