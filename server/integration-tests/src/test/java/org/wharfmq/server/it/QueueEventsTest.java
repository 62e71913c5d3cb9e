package org.wharfmq.server.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.wharfmq.server.config.QueueConfiguration;
import org.wharfmq.server.config.QueueDefinition;
import org.wharfmq.server.topic.QueueEventPublisher;

import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.JMSException;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Session;
import javax.jms.TextMessage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Depth-high, depth-low and queue-full events, as an application subscribed to the event topics sees them: one per
 * crossing, never one per message while the queue stays above (or full). Each "no second event" is asked of the
 * server ({@link Receive#nothingMore}: a PULL round trip), after sends the server has answered; a queue's event is
 * routed to its subscribers before the put that caused it is answered.
 */
class QueueEventsTest {

    private static final String QUEUE = "WATCHED";

    @RegisterExtension
    static final WharfServerExtension WHARF = WharfServerExtension.configured(c -> c
            .queue(QueueDefinition.named(QUEUE).with(QueueConfiguration.MAX_DEPTH, 10L)
                    .with(QueueConfiguration.DEPTH_HIGH_EVENT, 80).with(QueueConfiguration.DEPTH_LOW_EVENT, 20)
                    .with(QueueConfiguration.FULL_EVENT, true)));

    @Test
    void eachCrossingPublishesOneEventAndStayingThereNone() throws Exception {
        Connection connection = WHARF.connect(Transport.TCP);
        Session monitorSession = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer monitor = monitorSession.createConsumer(monitorSession.createTopic("$SYS/EVENTS/QUEUE/#"));
        MessageConsumer everything = monitorSession.createConsumer(monitorSession.createTopic("#"));
        Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageProducer producer = session.createProducer(session.createQueue(QUEUE));
        producer.setDeliveryMode(DeliveryMode.PERSISTENT); // answered once on the queue: its event is routed by then

        send(session, producer, 7);
        Receive.nothingMore(monitor); // 7 of 10: below 80 %
        send(session, producer, 1);
        assertEvent(Receive.nextText(monitor), "DEPTH_HIGH", 8, 8);
        send(session, producer, 2);
        Receive.nothingMore(monitor); // still above: no second depth-high event

        assertThrows(JMSException.class, () -> send(session, producer, 1));
        assertEvent(Receive.nextText(monitor), "FULL", 10, 10);
        assertThrows(JMSException.class, () -> send(session, producer, 1));
        Receive.nothingMore(monitor); // still full: no second queue-full event

        MessageConsumer draining = session.createConsumer(session.createQueue(QUEUE));
        receiveAndAcknowledge(session, draining, 7); // depth 3: above 20 %
        Receive.nothingMore(monitor);
        receiveAndAcknowledge(session, draining, 1); // depth 2: 20 %
        assertEvent(Receive.nextText(monitor), "DEPTH_LOW", 2, 2);
        receiveAndAcknowledge(session, draining, 2);
        Receive.nothingMore(monitor); // below: no second depth-low event
        draining.close();

        send(session, producer, 8); // armed again by the depth-low event
        assertEvent(Receive.nextText(monitor), "DEPTH_HIGH", 8, 8);
        Receive.nothingMore(everything); // a subscription to # does not receive the queue manager's own topics
    }

    private static void send(Session session, MessageProducer producer, int count) throws JMSException {
        for (int i = 0; i < count; i++) {
            producer.send(session.createTextMessage("payload"));
        }
    }

    /** Receives {@code count} messages and acknowledges them, then asks the server for a round trip. */
    private static void receiveAndAcknowledge(Session session, MessageConsumer consumer, int count) throws Exception {
        for (int i = 0; i < count; i++) {
            Receive.next(consumer);
        }
        Send.barrier(session); // the acknowledgements (sent with the next frame) are handled: the depth is down
    }

    private static void assertEvent(TextMessage event, String kind, long depth, long threshold) throws JMSException {
        assertEquals(kind, event.getStringProperty(QueueEventPublisher.KIND_PROPERTY));
        assertEquals(QUEUE, event.getStringProperty(QueueEventPublisher.QUEUE_PROPERTY));
        assertEquals(depth, event.getLongProperty(QueueEventPublisher.DEPTH_PROPERTY));
        assertEquals(10, event.getLongProperty(QueueEventPublisher.MAX_DEPTH_PROPERTY));
        assertEquals(threshold, event.getLongProperty(QueueEventPublisher.THRESHOLD_PROPERTY));
        assertEquals("$SYS/EVENTS/QUEUE/" + kind, ((javax.jms.Topic) event.getJMSDestination()).getTopicName());
        assertTrue(event.getText().startsWith("Queue '" + QUEUE + "' "), event.getText());
    }
}
