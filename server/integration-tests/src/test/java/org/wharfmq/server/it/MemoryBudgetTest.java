package org.wharfmq.server.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.server.LogCapture;
import org.wharfmq.server.config.MemoryPolicy;
import org.wharfmq.server.queue.LocalQueue;
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
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Memory budgets with the policies fail and drop (docs/resilience.md): the server never holds more than a budget,
 * a refused send says which budget, how much is held and which setting to change, and with drop every publication is
 * accounted for (received + dropped = sent). Block, which slows the producer instead, is ProducerFlowControlTest's.
 */
@Timeout(60)
class MemoryBudgetTest {

    private static final String FAIL_QUEUE = "BUDGET.FAIL";
    /** About ten 1 KB messages, each counted with its encoded headers and the server's objects for it. */
    private static final long BUDGET = 15_000;
    private static final String BODY = "x".repeat(1000);

    @RegisterExtension
    static final WharfServerExtension WHARF = WharfServerExtension.configured(c -> c
            .queue(FAIL_QUEUE, BUDGET, MemoryPolicy.FAIL)
            .topic("budget/drop/#", BUDGET, MemoryPolicy.DROP)
            .topic("budget/fail/#", BUDGET, MemoryPolicy.FAIL));

    /** A second server whose whole memory budget is small, with the policy fail for everything. */
    @RegisterExtension
    static final WharfServerExtension SMALL = WharfServerExtension.configured(c -> c
            .maxMemoryBytes(BUDGET).memoryPolicy(MemoryPolicy.FAIL));

    @Test
    void aQueueWithPolicyFailRefusesTheSendThatWouldPassItsBudgetAndSaysWhy() throws Exception {
        Session session = syncSending(WHARF).createSession(false, Session.CLIENT_ACKNOWLEDGE);
        MessageProducer producer = nonPersistent(session, session.createProducer(session.createQueue(FAIL_QUEUE)));
        LocalQueue queue = WHARF.server().queueManager().queue(FAIL_QUEUE);
        producer.send(session.createTextMessage(BODY));
        long perMessage = queue.heldBytes();
        JMSException refused = null;
        for (int sent = 1; refused == null; sent++) {
            assertTrue(sent <= BUDGET / perMessage, "the budget did not refuse the send that would pass it");
            try {
                producer.send(session.createTextMessage(BODY));
            } catch (JMSException e) {
                refused = e;
            }
        }
        long held = queue.heldBytes();
        assertTrue(held <= BUDGET && held + perMessage > BUDGET, () -> "refused at " + held + " bytes held");
        assertEquals("QUEUE_FULL", refused.getErrorCode());
        String why = refused.getMessage();
        for (String named : List.of("queue '" + FAIL_QUEUE + "'", "holds " + held + " bytes", "may hold " + BUDGET,
                "setting maxBytes of queue '" + FAIL_QUEUE + "'", "policy, fail")) {
            assertTrue(why.contains(named), () -> "the refusal names " + named + ": " + why);
        }

        MessageConsumer consumer = session.createConsumer(session.createQueue(FAIL_QUEUE));
        Receive.next(consumer).acknowledge(); // answered: the message is gone when it returns
        consumer.close();
        producer.send(session.createTextMessage(BODY)); // room for one again
        assertTrue(queue.heldBytes() <= BUDGET);
    }

    @Test
    void whenTheServersBudgetIsSpentEveryDestinationAppliesItsPolicy() throws Exception {
        Session session = syncSending(SMALL).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageProducer producer = nonPersistent(session, session.createProducer(null));
        javax.jms.Queue first = session.createQueue(SMALL.queueName("first"));
        javax.jms.Queue second = session.createQueue(SMALL.queueName("second"));
        int sent = 0;
        JMSException refused = null;
        while (refused == null) {
            try {
                producer.send(sent % 2 == 0 ? first : second, session.createTextMessage(BODY));
                sent++;
            } catch (JMSException e) {
                refused = e;
            }
            assertTrue(sent < 100, "the server's budget never refused a send");
        }
        long used = SMALL.server().queueManager().memoryBudget().usedBytes();
        assertTrue(used <= BUDGET, () -> "the queues hold " + used + " bytes of a budget of " + BUDGET);
        assertEquals("QUEUE_FULL", refused.getErrorCode());
        String why = refused.getMessage();
        assertTrue(why.contains("memory budget") && why.contains("setting maxMemoryBytes")
                && why.contains("may hold " + BUDGET) && why.contains("policy fail"), why);

        MessageConsumer consumer = session.createConsumer(first); // consuming anywhere makes room everywhere
        Receive.next(consumer);
        Send.barrier(session); // the acknowledgement has been handled
        producer.send(second, session.createTextMessage(BODY));
    }

    @Test
    void aSubscriptionWithPolicyFailRefusesThePublicationForEveryoneAndSaysWhy() throws Exception {
        String topicName = "budget/fail/" + WHARF.queueName("t").toLowerCase();
        Session session = syncSending(WHARF).createSession(false, Session.AUTO_ACKNOWLEDGE);
        Topic topic = session.createTopic(topicName);
        MessageConsumer slow = session.createConsumer(topic); // prefetches, never acknowledges: its budget fills
        Session other = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer keepsUp = other.createConsumer(other.createTopic(topicName));
        MessageProducer publisher = nonPersistent(session, session.createProducer(topic));
        int published = 0;
        JMSException refused = null;
        while (refused == null) {
            try {
                publisher.send(session.createTextMessage(BODY));
                published++;
                Receive.next(keepsUp);
            } catch (JMSException e) {
                refused = e;
            }
            assertTrue(published < 100, "the subscription's budget never refused a publication");
        }
        assertEquals("QUEUE_FULL", refused.getErrorCode());
        String why = refused.getMessage();
        assertTrue(why.contains("topic '" + topicName + "'") && why.contains("delivered to no subscriber")
                && why.contains("setting maxBytes of topic 'budget/fail/#'") && why.contains("may hold " + BUDGET), why);
        Receive.nothingMore(keepsUp); // the refused publication reached no one
        for (TopicManager.SubscriptionInfo s : subscriptions(topicName)) {
            assertTrue(s.heldBytes() <= BUDGET, () -> s + " holds more than its budget");
        }
        assertTrue(slow != null);
    }

    @Test
    void aSlowSubscriptionWithPolicyDropLosesItsOldestMessagesOnlyAndAccountsForEveryOne() throws Exception {
        String topicName = "budget/drop/" + WHARF.queueName("t").toLowerCase();
        int publications = 60;
        Connection subscriberConnection = WHARF.track(new WharfConnectionFactory(WHARF.server().tcpUrl() + "?prefetch=1")
                .createConnection());
        subscriberConnection.start();
        Session subscriberSession = subscriberConnection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer subscriber = subscriberSession.createConsumer(subscriberSession.createTopic(topicName));
        Session session = syncSending(WHARF).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageProducer publisher = nonPersistent(session, session.createProducer(session.createTopic(topicName)));
        List<Integer> received = new ArrayList<>();
        try (LogCapture log = LogCapture.of(LocalQueue.class.getName())) {
            for (int i = 0; i < publications; i++) {
                publisher.send(session.createTextMessage(Integer.toString(i)));
                TopicManager.SubscriptionInfo s = subscriptions(topicName).get(0);
                assertTrue(s.heldBytes() <= BUDGET, () -> "after a publication the subscription holds " + s.heldBytes()
                        + " bytes, more than its budget of " + BUDGET);
                if (i % 20 == 19) { // the subscriber takes one now and then: far slower than the publisher
                    received.add(number(Receive.next(subscriber)));
                }
            }
            Message m;
            while ((m = subscriber.receiveNoWait()) != null) { // what is left, then the server says there is no more
                received.add(number(m));
            }
            Send.barrier(subscriberSession); // its last acknowledgement has been handled
            long dropped = subscriptions(topicName).get(0).dropped();
            List<String> warnings = log.lines().stream().filter(l -> l.startsWith("WARNING")).toList();
            assertEquals(1, warnings.size(), () -> "one warning for the episode of drops, not one per drop: " + log.lines());
            assertTrue(warnings.get(0).contains("policy drop") && warnings.get(0).contains("setting maxBytes of topic"),
                    warnings.get(0));
            assertTrue(log.lines().stream().anyMatch(l -> l.startsWith("INFO") && l.contains(dropped + " messages were dropped")),
                    () -> "the end of the episode says how many were dropped: " + log.lines());
        }
        long dropped = subscriptions(topicName).get(0).dropped();
        assertTrue(dropped > 0, "the slow subscription dropped nothing");
        assertEquals(publications, received.size() + dropped, () -> "received " + received + " and dropped " + dropped);
        for (int i = 1; i < received.size(); i++) {
            assertTrue(received.get(i) > received.get(i - 1), () -> "order kept: " + received);
        }
        assertEquals(publications - 1, received.get(received.size() - 1), "the newest is never the one dropped");
        // 0 was delivered before the budget was reached, and 1 too when the consumer's credit came back in time;
        // the oldest waiting one then is the first dropped, so 1 or 2 is missing (a policy dropping the newest
        // would have kept both and lost 59)
        assertFalse(received.containsAll(List.of(1, 2)), () -> "the oldest waiting ones were dropped: " + received);
    }

    @Test
    void everyMessageGivesBackWhatItCountedWhenItLeaves() throws Exception {
        org.wharfmq.server.queue.MemoryBudget budget = WHARF.server().queueManager().memoryBudget();
        long before = budget.usedBytes();
        Connection connection = WHARF.connect(Transport.TCP);
        Session session = connection.createSession(false, Session.CLIENT_ACKNOWLEDGE);
        javax.jms.Queue queue = session.createQueue(WHARF.queueName("accounting"));
        MessageProducer producer = session.createProducer(null);
        producer.send(queue, session.createTextMessage(BODY)); // persistent: answered once on the queue
        producer.send(queue, session.createTextMessage(BODY));
        assertTrue(budget.usedBytes() > before, "messages on a queue count");
        MessageConsumer consumer = session.createConsumer(queue);
        Receive.next(consumer);
        session.recover(); // back to the queue, counted once still
        Receive.next(consumer);
        Receive.next(consumer).acknowledge();
        consumer.close();

        Session tx = connection.createSession(true, Session.SESSION_TRANSACTED);
        MessageProducer txProducer = tx.createProducer(queue);
        txProducer.send(tx.createTextMessage(BODY));
        tx.rollback(); // a send that never happened
        String topicName = "accounting/" + WHARF.queueName("t").toLowerCase();
        Topic topic = session.createTopic(topicName);
        MessageConsumer subscriber = session.createConsumer(topic);
        javax.jms.TemporaryQueue temporary = session.createTemporaryQueue();
        producer.send(topic, session.createTextMessage(BODY));
        producer.send(temporary, session.createTextMessage(BODY));
        Receive.next(subscriber).acknowledge();
        subscriber.close();
        javax.jms.QueueBrowser browser = session.createBrowser(queue);
        assertFalse(browser.getEnumeration().hasMoreElements());
        browser.close();
        connection.close(); // its temporary queue goes, with the message on it

        assertEquals(before, budget.usedBytes(), "every message gave back exactly what it counted");
    }

    private static Connection syncSending(WharfServerExtension server) throws JMSException {
        Connection connection = server.track(new WharfConnectionFactory(server.server().tcpUrl() + "?syncSends=true")
                .createConnection());
        connection.start();
        return connection;
    }

    private static MessageProducer nonPersistent(Session session, MessageProducer producer) throws JMSException {
        producer.setDeliveryMode(DeliveryMode.NON_PERSISTENT);
        return producer;
    }

    private static List<TopicManager.SubscriptionInfo> subscriptions(String topic) {
        return WHARF.server().topicManager().describe().stream().filter(s -> s.topic().equals(topic)).toList();
    }

    private static int number(Message m) throws JMSException {
        return Integer.parseInt(((TextMessage) m).getText());
    }
}
