package org.wharfmq.server.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.wharfmq.server.Configuration;

import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.Destination;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Queue;
import javax.jms.Session;
import javax.jms.TemporaryQueue;
import javax.jms.Topic;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

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

    /**
     * maxMessageLength counts the encoded message, headers, properties and body (docs/protocol.md, "Sending"). Sent
     * to a queue and published to a topic by the real client, persistent and not, a message one byte over it is
     * refused naming its length, the limit, the setting and the fix; one of exactly the limit is taken (the server
     * counts it as the client does: its queue holds the limit's bytes and no more) and arrives intact; the session
     * carries on.
     */
    @Test
    void aMessageOneByteOverMaxMessageLengthIsRefusedNamingTheLimitTheSettingAndTheFixAndOneAtItIsTaken()
            throws Exception {
        Session session = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue queue = session.createQueue(WHARF.queueName("at-the-limit"));
        Topic topic = session.createTopic("limits/" + WHARF.queueName("at-the-limit").toLowerCase());
        MessageConsumer subscriber = session.createConsumer(topic);
        String name = WHARF.server().config().name();
        for (Destination destination : new Destination[] {queue, topic}) {
            MessageProducer producer = session.createProducer(destination);
            // a message id's length grows with its number: without one, a body length makes one encoded length
            producer.setDisableMessageID(true);
            int headers = encodedLength(session, producer) - MAX_MESSAGE_LENGTH;
            for (int mode : new int[] {DeliveryMode.PERSISTENT, DeliveryMode.NON_PERSISTENT}) {
                Message over = LargeMessages.message(session, MAX_MESSAGE_LENGTH + 1 - headers, mode);
                JMSException refused = assertThrows(JMSException.class, () -> producer.send(over, mode, 4, 0));
                assertEquals("MESSAGE_TOO_LARGE", refused.getErrorCode());
                assertEquals("The message is " + (MAX_MESSAGE_LENGTH + 1) + " bytes long (encoded: headers,"
                        + " properties and body), more than queue manager " + name + "'s maximum message length of "
                        + MAX_MESSAGE_LENGTH + " bytes (setting maxMessageLength); it was not sent. Send a smaller"
                        + " message, or raise maxMessageLength in queue manager " + name + "'s configuration.",
                        refused.getMessage());
            }
            producer.send(LargeMessages.message(session, MAX_MESSAGE_LENGTH - headers, 7), DeliveryMode.PERSISTENT, 4, 0);
            if (destination == queue) {
                assertEquals(MAX_MESSAGE_LENGTH + Configuration.MESSAGE_OVERHEAD_BYTES,
                        WHARF.server().management().queue(queue.getQueueName()).memoryBytes(),
                        "the server counts the message taken as the client does: the limit's bytes");
                MessageConsumer consumer = session.createConsumer(queue);
                assertEquals(7, LargeMessages.assertIntact(Receive.next(consumer)));
                consumer.close();
            } else {
                assertEquals(7, LargeMessages.assertIntact(Receive.next(subscriber)));
            }
        }
        Receive.nothingMore(subscriber);
        assertEquals(0, WHARF.depth(queue.getQueueName()), "nothing refused was stored");

        MessageProducer producer = session.createProducer(queue); // the session carries on
        producer.send(session.createTextMessage("normal"));
        assertEquals("normal", Receive.nextText(session.createConsumer(queue)).getText());
    }

    /**
     * The encoded length of {@code producer}'s message with a body of {@link #MAX_MESSAGE_LENGTH} bytes, as the client
     * names it refusing the message (its headers take it past the limit).
     */
    private static int encodedLength(Session session, MessageProducer producer) throws JMSException {
        Message atLimit = LargeMessages.message(session, MAX_MESSAGE_LENGTH, 0);
        JMSException refused = assertThrows(JMSException.class, () -> producer.send(atLimit));
        Matcher length = Pattern.compile("The message is (\\d+) bytes long").matcher(refused.getMessage());
        assertTrue(length.find(), refused.getMessage());
        return Integer.parseInt(length.group(1));
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
