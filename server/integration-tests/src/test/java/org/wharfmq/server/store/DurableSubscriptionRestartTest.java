package org.wharfmq.server.store;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.it.Receive;
import org.wharfmq.server.topic.TopicManager;

import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Session;
import javax.jms.TextMessage;
import javax.jms.Topic;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Durable subscriptions and retained publications across a restart of the server on the same data directory: the
 * subscription comes back with its persistent messages (not its non-persistent ones), an unsubscribed one does
 * not, and a persistent retained publication is still given to new subscribers.
 */
@Timeout(60)
class DurableSubscriptionRestartTest {

    private static Connection connect(WharfServer server, String clientId) throws JMSException {
        Connection c = new WharfConnectionFactory(server.tcpUrl()).createConnection();
        if (clientId != null) {
            c.setClientID(clientId);
        }
        c.start();
        return c;
    }

    @Test
    void durableSubscriptionSurvivesARestartWithItsPersistentMessages() throws Exception {
        try (TestServer testServer = TestServer.start()) {
            WharfServer server = testServer.server();
            try (Connection c = connect(server, "app")) {
                Session session = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
                Topic topic = session.createTopic("orders/new");
                session.createDurableSubscriber(topic, "audit", "region <> 'test'", false).close();
                session.createDurableSubscriber(session.createTopic("orders/#"), "gone").close();
                session.unsubscribe("gone");
                MessageProducer publisher = session.createProducer(topic);
                publisher.send(withRegion(session, "persistent-1", "eu"));
                publisher.send(withRegion(session, "filtered", "test"));
                publisher.setDeliveryMode(DeliveryMode.NON_PERSISTENT);
                publisher.send(withRegion(session, "non-persistent", "eu"));
                publisher.setDeliveryMode(DeliveryMode.PERSISTENT);
                publisher.send(withRegion(session, "persistent-2", "us"));
                Session tx = c.createSession(true, Session.SESSION_TRANSACTED);
                tx.createProducer(topic).send(withRegion(tx, "committed", "eu"));
                tx.commit();
                tx.createProducer(topic).send(withRegion(tx, "rolled back", "eu"));
                tx.rollback();
            }
            assertEquals(4, backlog(server, "audit"));
            server = testServer.restart();
            assertEquals(3, backlog(server, "audit"), "the persistent messages came back, the non-persistent did not");
            assertEquals(-1, backlog(server, "gone"), "an unsubscribed subscription stays deleted");
            try (Connection c = connect(server, "app")) {
                Session session = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
                Topic topic = session.createTopic("orders/new");
                MessageConsumer audit = session.createDurableSubscriber(topic, "audit", "region <> 'test'", false);
                assertEquals(List.of("persistent-1", "persistent-2", "committed"), texts(audit, 3));
                session.createProducer(topic).send(withRegion(session, "after restart", "eu"));
                assertEquals(List.of("after restart"), texts(audit, 1));
                audit.close();
                session.unsubscribe("audit");
            }
            server = testServer.restart();
            assertTrue(server.topicManager().describe().isEmpty(), "nothing left: " + server.topicManager().describe());
        }
    }

    @Test
    void retainedPublicationIsGivenFirstToNewSubscribersReplacedByTheNextAndSurvivesARestart() throws Exception {
        try (TestServer testServer = TestServer.start()) {
            WharfServer server = testServer.server();
            try (Connection c = connect(server, null)) {
                Session session = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
                MessageProducer publisher = session.createProducer(session.createTopic("prices/fx/GBP"));
                publisher.send(retained(session, "1.25"));
                MessageConsumer first = session.createConsumer(session.createTopic("prices/fx/+"));
                assertEquals(List.of("1.25"), texts(first, 1));
                publisher.send(retained(session, "1.26"));
                publisher.send(session.createTextMessage("not retained"));
                assertEquals(List.of("1.26", "not retained"), texts(first, 2));
                MessageConsumer late = session.createConsumer(session.createTopic("prices/#"));
                assertEquals(List.of("1.26"), texts(late, 1), "only the last retained one, not the unretained one");
                Receive.nothingMore(late);
                MessageConsumer elsewhere = session.createConsumer(session.createTopic("prices/equity/#"));
                Receive.nothingMore(elsewhere); // retained publications go only to matching subscriptions
            }
            assertEquals(List.of("prices/fx/GBP"), server.topicManager().retainedTopics());
            server = testServer.restart();
            try (Connection c = connect(server, null)) {
                Session session = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
                MessageConsumer afterRestart = session.createConsumer(session.createTopic("prices/fx/GBP"));
                assertEquals(List.of("1.26"), texts(afterRestart, 1));
                Receive.nothingMore(afterRestart);
            }
        }
    }

    @Test
    void aDelayedPublicationOnADurableSubscriptionStillWaitsForItsDeliveryTimeAfterARestart() throws Exception {
        try (TestServer testServer = TestServer.start()) {
            try (Connection c = connect(testServer.server(), "app")) {
                Session session = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
                Topic topic = session.createTopic("orders/later");
                session.createDurableSubscriber(topic, "delayed").close();
                MessageProducer publisher = session.createProducer(topic);
                publisher.setDeliveryDelay(3_600_000);
                publisher.send(session.createTextMessage("in an hour"));
                publisher.setDeliveryDelay(0);
                publisher.send(session.createTextMessage("now"));
            }
            WharfServer server = testServer.restart();
            assertEquals(2, backlog(server, "delayed"), "both came back");
            try (Connection c = connect(server, "app")) {
                Session session = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
                MessageConsumer subscriber = session.createDurableSubscriber(session.createTopic("orders/later"), "delayed");
                assertEquals(List.of("now"), texts(subscriber, 1));
                assertNull(subscriber.receiveNoWait(), "the delayed one is not due for an hour, restart or not");
            }
        }
    }

    private static TextMessage retained(Session session, String text) throws JMSException {
        TextMessage m = session.createTextMessage(text);
        m.setBooleanProperty(TopicManager.RETAIN_PROPERTY, true);
        return m;
    }

    private static TextMessage withRegion(Session session, String text, String region) throws JMSException {
        TextMessage m = session.createTextMessage(text);
        m.setStringProperty("region", region);
        return m;
    }

    private static List<String> texts(MessageConsumer consumer, int n) throws JMSException {
        List<String> texts = new java.util.ArrayList<>();
        for (int i = 0; i < n; i++) {
            Message m = consumer.receive(10_000);
            if (m == null) {
                break;
            }
            texts.add(((TextMessage) m).getText());
        }
        return texts;
    }

    private static long backlog(WharfServer server, String name) {
        return server.topicManager().describe().stream().filter(i -> name.equals(i.name()))
                .mapToLong(TopicManager.SubscriptionInfo::depth).findFirst().orElse(-1);
    }
}
