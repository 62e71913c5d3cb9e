package org.wharfmq.server.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.wharfmq.server.config.QueueConfiguration;
import org.wharfmq.server.config.QueueDefinition;
import org.wharfmq.server.management.QueueStatus;
import org.wharfmq.server.queue.DeadLetters;

import javax.jms.Connection;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.Session;
import javax.jms.TextMessage;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A queue's backoutThreshold and backoutQueue, through JMS consumers that give a message back: a transacted session
 * that rolls back, a CLIENT_ACKNOWLEDGE session that recovers, a MessageListener that throws under AUTO_ACKNOWLEDGE.
 * The application sees a message at most backoutThreshold times; then it is on the backout queue (or the dead-letter
 * queue), once, with the properties that say why, from where and when, and the queue counts it as dead-lettered.
 */
class BackoutTest {

    @RegisterExtension
    static final WharfServerExtension WHARF = WharfServerExtension.configured(c -> c
            .queue(backout("TX.ORDERS", 2, "TX.ORDERS.BACKOUT"))
            .queue(backout("ACK.ORDERS", 1, null))
            .queue(backout("LISTENER.ORDERS", 3, "LISTENER.BACKOUT"))
            .queue(backout("FULL.ORDERS", 1, "FULL.BACKOUT"))
            .queue("FULL.BACKOUT", 1));

    /**
     * Queue {@code name}, whose messages go to {@code backoutQueue} (null: the dead-letter queue) after
     * {@code threshold} backouts.
     */
    private static QueueDefinition backout(String name, int threshold, String backoutQueue) {
        return QueueDefinition.named(name).with(QueueConfiguration.BACKOUT_THRESHOLD, threshold)
                .with(QueueConfiguration.BACKOUT_QUEUE, backoutQueue);
    }

    @Test
    void aTransactedConsumerThatRollsBackSeesTheMessageThresholdTimesThenItIsOnTheBackoutQueue() throws Exception {
        Connection connection = WHARF.connect(Transport.TCP);
        Send.texts(connection, "TX.ORDERS", "poison");
        long before = System.currentTimeMillis();
        Session tx = connection.createSession(true, Session.SESSION_TRANSACTED);
        MessageConsumer consumer = tx.createConsumer(tx.createQueue("TX.ORDERS"));
        for (int delivery = 1; delivery <= 2; delivery++) {
            Message m = Receive.next(consumer);
            assertEquals(delivery, m.getIntProperty("JMSXDeliveryCount"));
            tx.rollback();
        }
        Receive.nothingMore(consumer); // backed out twice: the threshold; it is not delivered a third time

        Session other = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        TextMessage moved = Receive.nextText(other.createConsumer(other.createQueue("TX.ORDERS.BACKOUT")));
        assertEquals("poison", moved.getText());
        assertEquals(1, moved.getIntProperty("JMSXDeliveryCount"), "a new life on the backout queue");
        assertEquals(DeadLetters.BACKED_OUT, moved.getStringProperty(DeadLetters.REASON_CODE_PROPERTY));
        assertEquals("TX.ORDERS", moved.getStringProperty(DeadLetters.QUEUE_PROPERTY));
        assertEquals(2, moved.getIntProperty(DeadLetters.DELIVERY_COUNT_PROPERTY));
        assertEquals("backed out 2 times: the backoutThreshold of queue 'TX.ORDERS' is 2",
                moved.getStringProperty(DeadLetters.REASON_PROPERTY));
        long movedAt = moved.getLongProperty(DeadLetters.TIME_PROPERTY);
        assertTrue(movedAt >= before && movedAt <= System.currentTimeMillis(), "moved at " + movedAt);
        assertEquals("TX.ORDERS", ((javax.jms.Queue) moved.getJMSDestination()).getQueueName(),
                "the message keeps its headers: JMSDestination says where it was sent");

        QueueStatus status = WHARF.server().management().queue("TX.ORDERS");
        assertEquals(1, status.deadLettered());
        assertEquals(0, status.depth());
        assertEquals(0, status.dequeued(), "a backed-out message is counted as dead-lettered, not as consumed");
        assertEquals(2, status.settings().get("backoutThreshold"));
    }

    @Test
    void aClientAcknowledgeRecoverBacksOutToTheDeadLetterQueueWhenTheQueueHasNoBackoutQueue() throws Exception {
        Connection connection = WHARF.connect(Transport.TCP);
        Send.texts(connection, "ACK.ORDERS", "recovered once");
        Session session = connection.createSession(false, Session.CLIENT_ACKNOWLEDGE);
        MessageConsumer consumer = session.createConsumer(session.createQueue("ACK.ORDERS"));
        assertEquals("recovered once", Receive.nextText(consumer).getText());
        session.recover();
        Receive.nothingMore(consumer);

        Session dlq = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer deadLetters = dlq.createConsumer(dlq.createQueue(DeadLetters.QUEUE),
                DeadLetters.QUEUE_PROPERTY + " = 'ACK.ORDERS'");
        TextMessage letter = Receive.nextText(deadLetters);
        assertEquals("recovered once", letter.getText(), "not wrapped: the message as it was, with the reason");
        assertEquals(DeadLetters.BACKED_OUT, letter.getStringProperty(DeadLetters.REASON_CODE_PROPERTY));
        assertEquals(1, letter.getIntProperty(DeadLetters.DELIVERY_COUNT_PROPERTY));
        assertFalse(letter.propertyExists(DeadLetters.WRAPPED_PROPERTY));
        assertEquals(1, WHARF.server().management().queue("ACK.ORDERS").deadLettered());
    }

    @Test
    void aListenerThatThrowsUnderAutoAcknowledgeIsGivenTheMessageThresholdTimes() throws Exception {
        Connection connection = WHARF.connect(Transport.TCP);
        Send.texts(connection, "LISTENER.ORDERS", "throws");
        BlockingQueue<Integer> deliveries = new ArrayBlockingQueue<>(10);
        Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer consumer = session.createConsumer(session.createQueue("LISTENER.ORDERS"));
        consumer.setMessageListener(m -> {
            try {
                deliveries.add(m.getIntProperty("JMSXDeliveryCount"));
            } catch (JMSException e) {
                deliveries.add(-1);
            }
            throw new IllegalStateException("the application cannot process this message");
        });
        Session other = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        TextMessage moved = Receive.nextText(other.createConsumer(other.createQueue("LISTENER.BACKOUT")));
        assertEquals("throws", moved.getText());
        assertEquals(3, moved.getIntProperty(DeadLetters.DELIVERY_COUNT_PROPERTY));
        for (int expected = 1; expected <= 3; expected++) {
            Integer count = deliveries.poll(Receive.EXPECTED_MS, TimeUnit.MILLISECONDS);
            assertEquals(expected, count);
        }
        consumer.close(); // the listener has finished: nothing it was given is left out of the count
        assertTrue(deliveries.isEmpty(), "the listener saw it 3 times, the threshold, not a fourth: " + deliveries);
        assertEquals(1, WHARF.server().management().queue("LISTENER.ORDERS").deadLettered());
    }

    @Test
    void aBackoutQueueThatCannotTakeTheMessageSendsItToTheDeadLetterQueueSayingWhy() throws Exception {
        Connection connection = WHARF.connect(Transport.TCP);
        Send.texts(connection, "FULL.BACKOUT", "fills it");
        Send.texts(connection, "FULL.ORDERS", "nowhere to back out to");
        Session tx = connection.createSession(true, Session.SESSION_TRANSACTED);
        MessageConsumer consumer = tx.createConsumer(tx.createQueue("FULL.ORDERS"));
        assertNotNull(Receive.next(consumer));
        tx.rollback();

        Session dlq = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        TextMessage letter = Receive.nextText(dlq.createConsumer(dlq.createQueue(DeadLetters.QUEUE),
                DeadLetters.QUEUE_PROPERTY + " = 'FULL.ORDERS'"));
        assertEquals("nowhere to back out to", letter.getText());
        String reason = letter.getStringProperty(DeadLetters.REASON_PROPERTY);
        assertTrue(reason.startsWith("backed out 1 time: the backoutThreshold of queue 'FULL.ORDERS' is 1; its"
                + " backoutQueue 'FULL.BACKOUT' refused it: Queue 'FULL.BACKOUT' is full"), reason);
        assertEquals(1, WHARF.depth("FULL.BACKOUT"), "the backout queue's limit holds");
    }
}
