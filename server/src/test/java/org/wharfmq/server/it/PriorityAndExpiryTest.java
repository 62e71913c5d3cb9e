package org.wharfmq.server.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import javax.jms.DeliveryMode;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Queue;
import javax.jms.Session;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Messages waiting on a queue leave it highest priority first, FIFO within a priority; expired ones never leave. */
@Timeout(60)
class PriorityAndExpiryTest {

    @RegisterExtension
    static final WharfServerExtension WHARF = WharfServerExtension.withDefaults();

    @Test
    void waitingMessagesAreDeliveredByPriorityThenArrival() throws Exception {
        Session session = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue queue = session.createQueue(WHARF.queueName("priority"));
        MessageProducer producer = session.createProducer(queue);
        int[] priorities = {4, 9, 0, 4, 9, 7, 0, 7, 4, 1, 5, 9};
        record Sent(String text, int priority) {
        }
        List<Sent> sent = new ArrayList<>();
        for (int i = 0; i < priorities.length; i++) {
            String text = "p" + priorities[i] + "-" + i;
            // persistent: each send returns once the message is on the queue, before the consumer exists
            producer.send(session.createTextMessage(text), DeliveryMode.PERSISTENT, priorities[i], 0);
            sent.add(new Sent(text, priorities[i]));
        }
        List<String> expected = sent.stream()
                .sorted(Comparator.comparingInt(Sent::priority).reversed()) // stable: keeps arrival order
                .map(Sent::text)
                .toList();

        MessageConsumer consumer = session.createConsumer(queue);
        assertEquals(expected, Receive.texts(consumer, priorities.length));
    }

    @Test
    void messageExpiredBeforeAnyConsumerIsNeverDelivered() throws Exception {
        Session session = WHARF.connect(Transport.TCP).createSession(false, Session.CLIENT_ACKNOWLEDGE);
        String queueName = WHARF.queueName("expiry");
        Queue queue = session.createQueue(queueName);
        MessageProducer producer = session.createProducer(queue);
        Message expiring = session.createTextMessage("expiring");
        producer.send(expiring, DeliveryMode.PERSISTENT, Message.DEFAULT_PRIORITY, 1);
        producer.send(session.createTextMessage("lasting"), DeliveryMode.PERSISTENT, Message.DEFAULT_PRIORITY, 0);
        long expiration = expiring.getJMSExpiration();
        assertTrue(expiration > 0, "timeToLive 1 must set JMSExpiration");
        awaitClockPast(expiration);

        MessageConsumer consumer = session.createConsumer(queue);
        assertEquals("lasting", Receive.nextText(consumer).getText());
        // the client drops an expired message it is given, so only the server can say it never gave it: the expired
        // one came first, so by now it was discarded, or delivered and (unacknowledged) still counted
        assertEquals(1, WHARF.depth(queueName), "only 'lasting' is left, delivered and not yet acknowledged");
        Receive.nothingMore(consumer);
    }

    /** Waits for a condition on the clock, not for a guessed duration; the expiry is at most a few ms ahead. */
    private static void awaitClockPast(long epochMillis) {
        long giveUp = System.nanoTime() + 5_000_000_000L;
        while (System.currentTimeMillis() <= epochMillis) {
            assertTrue(System.nanoTime() < giveUp, "clock did not pass " + epochMillis);
            Thread.onSpinWait();
        }
    }
}
