package org.wharfmq.server.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.wharfmq.server.Configuration;
import org.wharfmq.server.cli.FlowCommandAccess;
import org.wharfmq.server.topic.TopicManager;

import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.JMSException;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Session;
import javax.jms.Topic;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A full subscription queue (IBM MQ's default delivery rules: persistent publications fail for a full durable
 * subscriber; others skip the full subscriber only) and the administrator's view, {@code wharf topic list}.
 */
@Timeout(60)
class TopicAdminAndLimitsTest {

    private static final int MAX_DEPTH = 3;

    @RegisterExtension
    static final WharfServerExtension WHARF = WharfServerExtension.configured(c -> c.maxQueueDepth(MAX_DEPTH));

    @Test
    void aFullSubscriptionMissesNonPersistentPublicationsWhileOthersGetThem() throws Exception {
        String name = "limits/" + WHARF.queueName("nonpersistent").toLowerCase();
        Session session = WHARF.connect(Transport.TCP).createSession(false, Session.CLIENT_ACKNOWLEDGE);
        Topic topic = session.createTopic(name);
        MessageConsumer slow = session.createConsumer(topic); // never consumes: its queue fills up
        // CLIENT_ACKNOWLEDGE: acknowledge() waits for the server, so the fast one's queue is empty before each next
        // publication (an AUTO_ACKNOWLEDGE ack rides with the next frame, and a delivered, unacknowledged message
        // counts in the depth: on a loaded machine three could stay unacknowledged and fill it)
        Session fast = WHARF.connect(Transport.TCP).createSession(false, Session.CLIENT_ACKNOWLEDGE);
        MessageConsumer keepsUp = fast.createConsumer(fast.createTopic(name));
        MessageProducer publisher = session.createProducer(topic);
        publisher.setDeliveryMode(DeliveryMode.NON_PERSISTENT);
        for (int i = 0; i < MAX_DEPTH + 2; i++) {
            publisher.send(session.createTextMessage("p" + i));
            Receive.next(keepsUp).acknowledge(); // keep the fast one's queue empty
        }
        TopicManager.SubscriptionInfo full = WHARF.server().topicManager().describe().stream()
                .filter(i -> i.topic().equals(name) && i.depth() == MAX_DEPTH).findFirst().orElseThrow();
        assertEquals(2, full.missed());
        assertTrue(slow != null);
    }

    @Test
    void aPersistentPublicationToAFullDurableSubscriptionFailsForEveryoneAndSaysWhy() throws Exception {
        String id = WHARF.queueName("persistent").toLowerCase();
        Connection connection = WHARF.track(WHARF.factory(Transport.TCP).createConnection());
        connection.setClientID(id);
        connection.start();
        Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        Topic topic = session.createTopic("limits/" + id);
        session.createDurableSubscriber(topic, "backlog").close();
        MessageConsumer other = session.createConsumer(topic);
        MessageProducer publisher = session.createProducer(topic);
        for (int i = 0; i < MAX_DEPTH; i++) {
            publisher.send(session.createTextMessage("fits " + i));
        }
        JMSException e = assertThrows(JMSException.class, () -> publisher.send(session.createTextMessage("too many")));
        assertEquals("QUEUE_FULL", e.getErrorCode());
        assertTrue(e.getMessage().contains("'backlog'") && e.getMessage().contains("limits/" + id), e.getMessage());
        assertEquals(List.of("fits 0", "fits 1", "fits 2"), Receive.texts(other, MAX_DEPTH));
        Receive.nothingMore(other); // all or nothing: the refused one reached nobody
        other.close();
        session.unsubscribe("backlog");
    }

    @Test
    void topicListShowsSubscriptionsWithTheirBacklog() throws Exception {
        String id = WHARF.queueName("admin").toLowerCase();
        Connection connection = WHARF.track(WHARF.factory(Transport.TCP).createConnection());
        connection.setClientID(id);
        connection.start();
        Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        Topic topic = session.createTopic("admin/" + id);
        session.createDurableSubscriber(topic, "reports").close();
        session.createProducer(topic).send(session.createTextMessage("waiting"));
        MessageConsumer live = session.createConsumer(session.createTopic("admin/#"));

        FlowCommandAccess.Result list = FlowCommandAccess.run("topic", "list", "--url", WHARF.server().tcpUrl());
        assertEquals(0, list.status(), list.err());
        String line = list.out().lines().filter(l -> l.contains("reports")).findFirst().orElseThrow(() -> new AssertionError(list.out()));
        assertTrue(line.startsWith("admin/" + id) && line.contains(id) && line.contains("durable")
                && line.matches(".*\\s0\\s+1\\s+0\\s+[1-9][0-9]*\\s+" + Configuration.MAX_SUBSCRIPTION_BYTES.defaultValue() + "\\s+0\\s*$"),
                line); // consumers, depth, missed, bytes held, memory budget, dropped
        assertTrue(list.out().lines().anyMatch(l -> l.startsWith("admin/#") && l.contains("non-durable")), list.out());
        assertTrue(list.out().startsWith("TOPIC"), list.out());
        live.close();
        session.unsubscribe("reports");
    }
}
