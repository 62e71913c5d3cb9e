package org.wharfmq.server.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import javax.jms.DeliveryMode;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Queue;
import javax.jms.Session;
import javax.jms.TextMessage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * receiveNoWait is exact (PULL): once another connection's send has returned (persistent, or committed), the
 * message is found at once, whether it is on the queue or already on its way in the consumer's prefetch.
 */
@Timeout(60)
class ReceiveNoWaitTest {

    @RegisterExtension
    static final WharfServerExtension WHARF = WharfServerExtension.withDefaults();

    private static final int ROUNDS = 200;

    @ParameterizedTest
    @EnumSource(Transport.class)
    void findsEachSynchronouslySentMessageImmediately(Transport transport) throws Exception {
        Session producing = WHARF.connect(transport).createSession(false, Session.AUTO_ACKNOWLEDGE);
        Session consuming = WHARF.connect(transport).createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue queue = producing.createQueue(WHARF.queueName("nowait.sync"));
        MessageProducer producer = producing.createProducer(queue);
        producer.setDeliveryMode(DeliveryMode.PERSISTENT);
        MessageConsumer consumer = consuming.createConsumer(queue);

        assertNull(consumer.receiveNoWait(), "empty queue");
        for (int i = 0; i < ROUNDS; i++) {
            producer.send(producing.createTextMessage("m" + i));
            Message m = consumer.receiveNoWait();
            assertNotNull(m, "round " + i + ": receiveNoWait missed a message that was on the queue");
            assertEquals("m" + i, ((TextMessage) m).getText());
            assertNull(consumer.receiveNoWait(), "round " + i + ": nothing else is there");
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void findsEachCommittedMessageImmediately(Transport transport) throws Exception {
        Session tx = WHARF.connect(transport).createSession(true, Session.SESSION_TRANSACTED);
        Session consuming = WHARF.connect(transport).createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue queue = tx.createQueue(WHARF.queueName("nowait.tx"));
        MessageProducer producer = tx.createProducer(queue);
        producer.setDeliveryMode(DeliveryMode.NON_PERSISTENT);
        MessageConsumer consumer = consuming.createConsumer(queue);

        for (int i = 0; i < ROUNDS; i++) {
            producer.send(tx.createTextMessage("a" + i));
            producer.send(tx.createTextMessage("b" + i));
            assertNull(consumer.receiveNoWait(), "round " + i + ": uncommitted");
            tx.commit();
            assertEquals("a" + i, assertInstanceOf(TextMessage.class, consumer.receiveNoWait(),
                    "round " + i + ": first committed message").getText());
            assertEquals("b" + i, assertInstanceOf(TextMessage.class, consumer.receiveNoWait(),
                    "round " + i + ": second committed message").getText());
        }
    }

    @Test
    void consumerCreatedAfterTheSendFindsItWithoutWaiting() throws Exception {
        Session producing = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
        Session consuming = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue queue = producing.createQueue(WHARF.queueName("nowait.late"));
        MessageProducer producer = producing.createProducer(queue);
        producer.setDeliveryMode(DeliveryMode.PERSISTENT);
        for (int i = 0; i < 50; i++) {
            producer.send(producing.createTextMessage("late" + i));
            MessageConsumer consumer = consuming.createConsumer(queue);
            Message m = consumer.receiveNoWait();
            consumer.close();
            assertNotNull(m, "round " + i);
            assertEquals("late" + i, ((TextMessage) m).getText());
        }
    }

    @Test
    void selectorConsumerFindsTheMatchBehindNonMatchingMessages() throws Exception {
        Session producing = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
        Session consuming = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue queue = producing.createQueue(WHARF.queueName("nowait.selector"));
        MessageProducer producer = producing.createProducer(queue);
        producer.setDeliveryMode(DeliveryMode.PERSISTENT);
        MessageConsumer consumer = consuming.createConsumer(queue, "color = 'red'");
        for (int i = 0; i < 20; i++) {
            Message blue = producing.createTextMessage("blue" + i);
            blue.setStringProperty("color", "blue");
            producer.send(blue);
            Message red = producing.createTextMessage("red" + i);
            red.setStringProperty("color", "red");
            producer.send(red);
            assertEquals("red" + i, assertInstanceOf(TextMessage.class, consumer.receiveNoWait(),
                    "round " + i).getText());
            assertNull(consumer.receiveNoWait());
        }
        assertEquals(20, WHARF.depth(queue.getQueueName()), "the blue ones stay");
    }
}
