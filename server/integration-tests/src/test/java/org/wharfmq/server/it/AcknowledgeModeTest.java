package org.wharfmq.server.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import javax.jms.Connection;
import javax.jms.MessageConsumer;
import javax.jms.Session;
import javax.jms.TextMessage;
import java.util.List;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Non-transacted acknowledgement: CLIENT_ACKNOWLEDGE acknowledges everything the session consumed up to the call
 * (and nothing merely prefetched); unacknowledged messages come back redelivered after close or recover; AUTO and
 * DUPS_OK acknowledge by themselves.
 */
@Timeout(60)
class AcknowledgeModeTest {

    @RegisterExtension
    static final WharfServerExtension WHARF = WharfServerExtension.withDefaults();

    @Test
    void acknowledgeCoversEveryConsumerOfTheSessionUpToNow() throws Exception {
        String queueA = WHARF.queueName("ack.a");
        String queueB = WHARF.queueName("ack.b");
        Connection first = WHARF.connect(Transport.TCP);
        Send.texts(first, queueA, "a1", "a2", "a3");
        Send.texts(first, queueB, "b1");
        Session session = first.createSession(false, Session.CLIENT_ACKNOWLEDGE);
        MessageConsumer fromA = session.createConsumer(session.createQueue(queueA));
        MessageConsumer fromB = session.createConsumer(session.createQueue(queueB));

        TextMessage a1 = Receive.nextText(fromA);
        assertEquals("b1", Receive.nextText(fromB).getText());
        assertEquals("a2", Receive.nextText(fromA).getText());
        a1.acknowledge(); // an earlier message: still acknowledges a1, a2 and b1
        assertEquals("a3", Receive.nextText(fromA).getText()); // consumed after the acknowledge: not acknowledged
        first.close();

        Session second = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer againA = second.createConsumer(second.createQueue(queueA));
        TextMessage a3 = Receive.nextText(againA);
        assertEquals("a3", a3.getText());
        assertTrue(a3.getJMSRedelivered(), "unacknowledged message comes back redelivered");
        Receive.nothingMore(againA);
        Receive.nothingMore(second.createConsumer(second.createQueue(queueB)));
    }

    @Test
    void recoverRedeliversUnacknowledgedInOrder() throws Exception {
        String queueName = WHARF.queueName("ack.recover");
        Connection connection = WHARF.connect(Transport.TCP);
        Send.texts(connection, queueName, "m1", "m2", "m3");
        Session session = connection.createSession(false, Session.CLIENT_ACKNOWLEDGE);
        MessageConsumer consumer = session.createConsumer(session.createQueue(queueName));
        assertEquals(List.of("m1", "m2"), Receive.texts(consumer, 2));

        session.recover();

        TextMessage m1 = Receive.nextText(consumer);
        TextMessage m2 = Receive.nextText(consumer);
        TextMessage m3 = Receive.nextText(consumer);
        assertEquals(List.of("m1", "m2", "m3"), List.of(m1.getText(), m2.getText(), m3.getText()));
        assertTrue(m1.getJMSRedelivered());
        assertEquals(2, m1.getIntProperty("JMSXDeliveryCount"));
        assertTrue(m2.getJMSRedelivered());
        assertFalse(m3.getJMSRedelivered(), "m3 was never handed to the application before recover");
        m3.acknowledge();
        connection.close();

        Session after = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
        Receive.nothingMore(after.createConsumer(after.createQueue(queueName)));
    }

    @Test
    void closingASessionReturnsItsUnacknowledgedMessages() throws Exception {
        String queueName = WHARF.queueName("ack.close");
        Connection connection = WHARF.connect(Transport.TCP);
        Send.texts(connection, queueName, "only");
        Session unacked = connection.createSession(false, Session.CLIENT_ACKNOWLEDGE);
        assertEquals("only", Receive.nextText(unacked.createConsumer(unacked.createQueue(queueName))).getText());
        unacked.close();

        Session next = connection.createSession(false, Session.CLIENT_ACKNOWLEDGE);
        TextMessage again = Receive.nextText(next.createConsumer(next.createQueue(queueName)));
        assertEquals("only", again.getText());
        assertTrue(again.getJMSRedelivered());
        again.acknowledge();
    }

    @Test
    void autoAcknowledgeAcknowledgesEachReceivedMessage() throws Exception {
        String queueName = WHARF.queueName("ack.auto");
        Connection first = WHARF.connect(Transport.TCP);
        Send.texts(first, queueName, "x1", "x2");
        Session auto = first.createSession(false, Session.AUTO_ACKNOWLEDGE);
        assertEquals("x1", Receive.nextText(auto.createConsumer(auto.createQueue(queueName))).getText());
        first.close();

        Session second = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer consumer = second.createConsumer(second.createQueue(queueName));
        assertEquals("x2", Receive.nextText(consumer).getText());
        Receive.nothingMore(consumer);
    }

    @Test
    void dupsOkAcknowledgesEverythingByAnOrderlyClose() throws Exception {
        String queueName = WHARF.queueName("ack.dupsok");
        Connection first = WHARF.connect(Transport.TCP);
        List<String> texts = IntStream.range(0, 20).mapToObj(i -> "d" + i).toList();
        Send.texts(first, queueName, texts.toArray(String[]::new));
        Session dupsOk = first.createSession(false, Session.DUPS_OK_ACKNOWLEDGE);
        assertEquals(texts, Receive.texts(dupsOk.createConsumer(dupsOk.createQueue(queueName)), 20));
        // lazy acknowledgement may duplicate after a failure, but an orderly close must send what is pending
        first.close();

        Session second = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
        Receive.nothingMore(second.createConsumer(second.createQueue(queueName)));
        assertEquals(0, WHARF.depth(queueName));
    }
}
