package org.wharfmq.server.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.wharfmq.protocol.message.WireDestination;
import org.wharfmq.protocol.selector.Selector;
import org.wharfmq.server.topic.TopicManager;

import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.InvalidDestinationException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Session;
import javax.jms.TextMessage;
import javax.jms.Topic;
import javax.jms.TopicConnection;
import javax.jms.TopicPublisher;
import javax.jms.TopicSession;
import javax.jms.TopicSubscriber;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Non-durable publish/subscribe through JMS (JMS 2.0 chapter 6.11 / 4.2): every subscription gets every
 * publication once, wildcards, selectors, noLocal, transactions, acknowledgement and redelivery, fan-out counts,
 * and the cost of matching with many unrelated subscriptions.
 */
@Timeout(60)
class TopicPubSubTest {

    @RegisterExtension
    static final WharfServerExtension WHARF = WharfServerExtension.withDefaults();

    private String topic(String purpose) {
        return "test/" + WHARF.queueName(purpose).toLowerCase();
    }

    @Test
    void everySubscriberGetsEveryPublicationAndLateSubscribersNothingEarlier() throws Exception {
        String name = topic("basic");
        Session session = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
        Topic topic = session.createTopic(name);
        MessageProducer publisher = session.createProducer(topic);
        publisher.send(session.createTextMessage("before anyone subscribed")); // dropped, not an error
        MessageConsumer first = session.createConsumer(topic);
        Session other = WHARF.connect(Transport.VM).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer second = other.createConsumer(other.createTopic(name));

        publisher.send(session.createTextMessage("one"));
        publisher.send(session.createTextMessage("two"));

        for (MessageConsumer c : List.of(first, second)) {
            TextMessage m = Receive.nextText(c);
            assertEquals("one", m.getText());
            assertEquals(topic, m.getJMSDestination());
            assertEquals("two", Receive.nextText(c).getText());
            Receive.nothingMore(c);
        }
    }

    @Test
    void wildcardSubscriptionsReceiveFromMatchingTopicsOnly() throws Exception {
        String base = topic("wild");
        Session session = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer oneLevel = session.createConsumer(session.createTopic(base + "/+/GBP"));
        MessageConsumer anyLevels = session.createConsumer(session.createTopic(base + "/#"));
        MessageProducer anonymous = session.createProducer(null);
        for (String t : List.of("/fx/GBP", "/fx/USD", "/fx/spot/GBP", "")) {
            anonymous.send(session.createTopic(base + t), session.createTextMessage(t));
        }
        assertEquals(List.of("/fx/GBP"), Receive.texts(oneLevel, 1));
        Receive.nothingMore(oneLevel);
        assertEquals(List.of("/fx/GBP", "/fx/USD", "/fx/spot/GBP", ""), Receive.texts(anyLevels, 4));
    }

    @Test
    void publishingToAWildcardTopicIsRefused() throws Exception {
        Session session = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
        InvalidDestinationException e = assertThrows(InvalidDestinationException.class,
                () -> session.createProducer(session.createTopic("prices/#")));
        assertTrue(e.getMessage().contains("wildcard"), e.getMessage());
    }

    @Test
    void subscriptionQueuesCannotBeAddressedAsQueues() throws Exception {
        Session session = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
        assertThrows(InvalidDestinationException.class, () -> session.createConsumer(session.createQueue("SYSTEM.SUB.N1")));
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 10, 100, 1000})
    void fanOutDeliversEachPublicationExactlyOncePerSubscriber(int subscribers) throws Exception {
        String name = topic("fanout" + subscribers);
        Connection connection = WHARF.connect(Transport.VM);
        Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        Topic topic = session.createTopic(name);
        List<MessageConsumer> consumers = new ArrayList<>();
        for (int i = 0; i < subscribers; i++) {
            consumers.add(session.createConsumer(topic));
        }
        Session producing = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageProducer publisher = producing.createProducer(topic);
        publisher.setDeliveryMode(DeliveryMode.NON_PERSISTENT);
        for (int m = 0; m < 3; m++) {
            publisher.send(producing.createTextMessage("m" + m));
        }
        Send.barrier(producing); // the fire-and-forget publications are handled: nothing more is on its way
        int delivered = 0;
        for (MessageConsumer c : consumers) {
            for (int m = 0; m < 3; m++) {
                assertEquals("m" + m, Receive.nextText(c).getText());
                delivered++;
            }
            Receive.nothingMore(c); // not a publication twice
        }
        assertEquals(3 * subscribers, delivered);
    }

    @Test
    void subscriptionSelectorsFilterAtPublishTime() throws Exception {
        String name = topic("selector");
        Session session = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
        Topic topic = session.createTopic(name);
        MessageConsumer gbp = session.createConsumer(topic, "ccy = 'GBP'");
        MessageConsumer all = session.createConsumer(topic);
        MessageProducer publisher = session.createProducer(topic);
        for (String ccy : List.of("USD", "GBP", "EUR", "GBP")) {
            TextMessage m = session.createTextMessage(ccy);
            m.setStringProperty("ccy", ccy);
            publisher.send(m);
        }
        assertEquals(List.of("GBP", "GBP"), Receive.texts(gbp, 2));
        Receive.nothingMore(gbp);
        assertEquals(List.of("USD", "GBP", "EUR", "GBP"), Receive.texts(all, 4));
        TopicManager.SubscriptionInfo info = WHARF.server().topicManager().describe().stream()
                .filter(i -> i.topic().equals(name)).findFirst().orElseThrow();
        assertNotNull(info.queueName());
    }

    @Test
    void noLocalLeavesOutOnlyTheSubscribersOwnConnection() throws Exception {
        String name = topic("nolocal");
        Connection mine = WHARF.connect(Transport.TCP);
        Session session = mine.createSession(false, Session.AUTO_ACKNOWLEDGE);
        Topic topic = session.createTopic(name);
        MessageConsumer noLocal = session.createConsumer(topic, null, true);
        Session otherSessionSameConnection = mine.createSession(false, Session.AUTO_ACKNOWLEDGE);
        otherSessionSameConnection.createProducer(topic).send(otherSessionSameConnection.createTextMessage("mine"));
        Session theirs = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
        theirs.createProducer(theirs.createTopic(name)).send(theirs.createTextMessage("theirs"));
        assertEquals("theirs", Receive.nextText(noLocal).getText());
        Receive.nothingMore(noLocal);
    }

    @Test
    void transactedPublishIsVisibleAtCommitAndDroppedAtRollback() throws Exception {
        String name = topic("tx");
        Session subscriber = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer a = subscriber.createConsumer(subscriber.createTopic(name));
        MessageConsumer b = subscriber.createConsumer(subscriber.createTopic(name));
        Session tx = WHARF.connect(Transport.TCP).createSession(true, Session.SESSION_TRANSACTED);
        MessageProducer publisher = tx.createProducer(tx.createTopic(name));
        publisher.send(tx.createTextMessage("rolled back"));
        tx.rollback();
        publisher.send(tx.createTextMessage("committed-1"));
        publisher.send(tx.createTextMessage("committed-2"));
        Send.barrier(tx);
        Receive.nothingMore(a); // the server has the uncommitted publications and must not show them
        tx.commit();
        for (MessageConsumer c : List.of(a, b)) {
            assertEquals(List.of("committed-1", "committed-2"), Receive.texts(c, 2));
            Receive.nothingMore(c);
        }
    }

    @Test
    void topicMessagesAreAcknowledgedAndRedeliveredLikeQueueMessages() throws Exception {
        String name = topic("ack");
        Session session = WHARF.connect(Transport.TCP).createSession(false, Session.CLIENT_ACKNOWLEDGE);
        MessageConsumer consumer = session.createConsumer(session.createTopic(name));
        session.createProducer(session.createTopic(name)).send(session.createTextMessage("again"));
        Message first = Receive.next(consumer);
        assertFalse(first.getJMSRedelivered());
        session.recover();
        Message second = Receive.next(consumer);
        assertTrue(second.getJMSRedelivered());
        assertEquals(2, second.getIntProperty("JMSXDeliveryCount"));
        second.acknowledge();
        session.recover();
        Receive.nothingMore(consumer);

        Session tx = WHARF.connect(Transport.TCP).createSession(true, Session.SESSION_TRANSACTED);
        MessageConsumer txConsumer = tx.createConsumer(tx.createTopic(name));
        session.createProducer(session.createTopic(name)).send(session.createTextMessage("tx"));
        Receive.next(txConsumer);
        tx.rollback();
        assertTrue(Receive.next(txConsumer).getJMSRedelivered());
        tx.commit();
        Receive.nothingMore(txConsumer);
    }

    @Test
    void aClosedNonDurableSubscriptionIsGoneWithItsMessages() throws Exception {
        String name = topic("gone");
        Session session = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
        Topic topic = session.createTopic(name);
        MessageConsumer consumer = session.createConsumer(topic);
        assertEquals(1, subscriptionsOn(name));
        session.createProducer(topic).send(session.createTextMessage("unread"));
        consumer.close();
        Send.barrier(session);
        assertEquals(0, subscriptionsOn(name));
        MessageConsumer again = session.createConsumer(topic);
        Receive.nothingMore(again);
    }

    @Test
    void topicSessionApi() throws Exception {
        String name = topic("topicsession");
        TopicConnection connection = (TopicConnection) WHARF.track(WHARF.factory(Transport.TCP).createConnection());
        connection.start();
        TopicSession session = connection.createTopicSession(false, Session.AUTO_ACKNOWLEDGE);
        Topic topic = session.createTopic(name);
        TopicSubscriber subscriber = session.createSubscriber(topic, null, false);
        TopicPublisher publisher = session.createPublisher(topic);
        assertEquals(topic, publisher.getTopic());
        assertEquals(topic, subscriber.getTopic());
        publisher.publish(session.createTextMessage("published"));
        assertEquals("published", Receive.nextText(subscriber).getText());
    }

    @Test
    void tenThousandNonMatchingSubscriptionsDoNotSlowAMatchingPublish() throws Exception {
        String name = topic("crowd");
        Session session = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer consumer = session.createConsumer(session.createTopic(name));
        MessageProducer publisher = session.createProducer(session.createTopic(name));
        TopicManager topics = WHARF.server().topicManager();
        long before = topics.matchVisits();
        publisher.send(session.createTextMessage("alone"));
        long alone = topics.matchVisits() - before;

        Object someConnection = new Object();
        List<org.wharfmq.server.topic.Subscription> crowd = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
            crowd.add(topics.attach(WireDestination.topic(name + "/sub" + i), null, Selector.ALL_MATCH, false, false,
                    false, null, null, someConnection, org.wharfmq.server.security.Identity.ANONYMOUS));
            crowd.add(topics.attach(WireDestination.topic("elsewhere/" + i + "/#"), null, Selector.ALL_MATCH, false,
                    false, false, null, null, someConnection, org.wharfmq.server.security.Identity.ANONYMOUS));
        }
        try {
            before = topics.matchVisits();
            publisher.send(session.createTextMessage("crowded"));
            long crowded = topics.matchVisits() - before;
            assertEquals(alone, crowded, "20,000 non-matching subscriptions changed the nodes visited");
            assertEquals(List.of("alone", "crowded"), Receive.texts(consumer, 2));
        } finally {
            crowd.forEach(topics::detach);
        }
    }

    private static long subscriptionsOn(String topic) {
        return WHARF.server().topicManager().describe().stream().filter(i -> i.topic().equals(topic)).count();
    }
}
