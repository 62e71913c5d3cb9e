package org.wharfmq.server.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import javax.jms.BytesMessage;
import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Queue;
import javax.jms.Session;
import javax.jms.TemporaryQueue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Limits refuse the one message that breaks them, with an exception that says which limit, and nothing else: the
 * same session goes on sending, and other queues do not notice.
 */
@Timeout(60)
class LimitsTest {

    private static final int MAX_MESSAGE_LENGTH = 64 * 1024;
    private static final String LIMITED_QUEUE = "LIMITED";
    private static final int MAX_DEPTH = 10;
    private static final int MAX_TEMPORARY_QUEUES = 3;

    @RegisterExtension
    static final WharfServerExtension WHARF = WharfServerExtension.configured(c -> c
            .maxMessageLength(MAX_MESSAGE_LENGTH)
            .queue(LIMITED_QUEUE, MAX_DEPTH)
            .maxTemporaryQueuesPerConnection(MAX_TEMPORARY_QUEUES));

    @Test
    void oversizeMessageIsRefusedNamingTheLimitAndTheSessionCarriesOn() throws Exception {
        Session session = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue queue = session.createQueue(WHARF.queueName("oversize"));
        MessageProducer producer = session.createProducer(queue);
        MessageConsumer consumer = session.createConsumer(queue);
        BytesMessage tooBig = session.createBytesMessage();
        tooBig.writeBytes(new byte[100 * 1024]);

        for (int mode : new int[]{DeliveryMode.PERSISTENT, DeliveryMode.NON_PERSISTENT}) {
            JMSException refused = assertThrows(JMSException.class, () -> producer.send(tooBig, mode, 4, 0));
            assertTrue(String.valueOf(refused.getMessage()).contains(String.valueOf(MAX_MESSAGE_LENGTH)),
                    () -> "message names the limit " + MAX_MESSAGE_LENGTH + ": " + refused.getMessage());
            assertEquals("MESSAGE_TOO_LARGE", refused.getErrorCode());
        }

        producer.send(session.createTextMessage("normal"));
        assertEquals("normal", Receive.nextText(consumer).getText());
        Receive.nothingMore(consumer);
    }

    @Test
    void fullQueueRefusesTheNextSendUntilOneIsConsumed() throws Exception {
        Connection connection = WHARF.connect(Transport.TCP);
        Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue limited = session.createQueue(LIMITED_QUEUE);
        MessageProducer producer = session.createProducer(limited);
        producer.setDeliveryMode(DeliveryMode.PERSISTENT);
        for (int i = 0; i < MAX_DEPTH; i++) {
            producer.send(session.createTextMessage("fill-" + i));
        }
        assertEquals(MAX_DEPTH, WHARF.depth(LIMITED_QUEUE));

        JMSException full = assertThrows(JMSException.class,
                () -> producer.send(session.createTextMessage("one too many")));
        assertTrue(String.valueOf(full.getMessage()).contains(LIMITED_QUEUE),
                () -> "message names the queue: " + full.getMessage());
        assertEquals("QUEUE_FULL", full.getErrorCode());
        assertEquals(MAX_DEPTH, WHARF.depth(LIMITED_QUEUE));

        // other queues are not affected
        Queue other = session.createQueue(WHARF.queueName("unlimited"));
        session.createProducer(other).send(session.createTextMessage("elsewhere"));
        assertEquals("elsewhere", Receive.nextText(session.createConsumer(other)).getText());

        // a transaction that sends to the full queue cannot commit
        Session tx = connection.createSession(true, Session.SESSION_TRANSACTED);
        tx.createProducer(limited).send(tx.createTextMessage("in a transaction"));
        JMSException commitRefused = assertThrows(JMSException.class, tx::commit);
        assertTrue(String.valueOf(commitRefused.getMessage()).contains(LIMITED_QUEUE),
                () -> "commit failure names the queue: " + commitRefused.getMessage());
        assertEquals(MAX_DEPTH, WHARF.depth(LIMITED_QUEUE));

        // consuming one (acknowledge is answered, so it is final on return) makes room for one
        Session acking = connection.createSession(false, Session.CLIENT_ACKNOWLEDGE);
        MessageConsumer consumer = acking.createConsumer(limited);
        Message first = Receive.next(consumer);
        first.acknowledge();
        consumer.close();
        producer.send(session.createTextMessage("fits again"));
        assertEquals(MAX_DEPTH, WHARF.depth(LIMITED_QUEUE));
        assertThrows(JMSException.class, () -> producer.send(session.createTextMessage("full again")));
    }

    /**
     * One connection cannot spend the server's maxQueues on temporary queues: past its own limit it is refused, naming
     * the limit and the setting; deleting one frees a place, other connections are not affected, and closing the
     * connection deletes them all.
     */
    @Test
    void temporaryQueuesPastThePerConnectionLimitAreRefusedUntilOneIsDeleted() throws Exception {
        Connection connection = WHARF.factory(Transport.TCP).createConnection();
        WHARF.track(connection);
        Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        java.util.List<TemporaryQueue> queues = new java.util.ArrayList<>();
        for (int i = 0; i < MAX_TEMPORARY_QUEUES; i++) {
            queues.add(session.createTemporaryQueue());
        }
        JMSException refused = assertThrows(JMSException.class, session::createTemporaryQueue);
        assertEquals("TOO_MANY_QUEUES", refused.getErrorCode());
        assertTrue(refused.getMessage().contains("this connection already holds " + MAX_TEMPORARY_QUEUES + " temporary"
                + " queues, its maximum (setting maxTemporaryQueuesPerConnection)"), refused.getMessage());

        // another connection has its own limit
        Session other = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
        TemporaryQueue others = other.createTemporaryQueue();
        other.createProducer(others).send(other.createTextMessage("unaffected"));
        assertEquals("unaffected", Receive.nextText(other.createConsumer(others)).getText());

        queues.remove(0).delete();
        queues.add(session.createTemporaryQueue());
        assertThrows(JMSException.class, session::createTemporaryQueue);

        connection.close(); // answered once the server has deleted its temporary queues
        java.util.Set<String> live = WHARF.server().queueManager().temporaryQueueNames();
        for (TemporaryQueue queue : queues) {
            assertTrue(!live.contains(queue.getQueueName()), queue.getQueueName() + " deleted with its connection");
        }
    }
}
