package org.wharfmq.server.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import javax.jms.Connection;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Session;
import javax.jms.TextMessage;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Local transactions: sends appear all together at commit and never after rollback; consumed messages are gone
 * for good after commit and come back, in order and marked redelivered with a growing delivery count, after
 * rollback.
 */
@Timeout(60)
class TransactionTest {

    @RegisterExtension
    static final WharfServerExtension WHARF = WharfServerExtension.withDefaults();

    @Test
    void sendsAreInvisibleUntilCommit() throws Exception {
        String queueName = WHARF.queueName("tx.send");
        Session tx = WHARF.connect(Transport.TCP).createSession(true, Session.SESSION_TRANSACTED);
        MessageProducer producer = tx.createProducer(tx.createQueue(queueName));
        for (String text : List.of("t1", "t2", "t3")) {
            producer.send(tx.createTextMessage(text));
        }
        Send.barrier(tx);
        Session other = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer consumer = other.createConsumer(other.createQueue(queueName));

        Receive.nothingMore(consumer); // the server has the uncommitted sends and must not show them

        tx.commit();
        assertEquals(List.of("t1", "t2", "t3"), Receive.texts(consumer, 3));
        Receive.nothingMore(consumer);
    }

    @Test
    void rollbackDiscardsSendsAndLaterCommitKeepsOnlyLaterOnes() throws Exception {
        String queueName = WHARF.queueName("tx.discard");
        Session tx = WHARF.connect(Transport.TCP).createSession(true, Session.SESSION_TRANSACTED);
        MessageProducer producer = tx.createProducer(tx.createQueue(queueName));
        producer.send(tx.createTextMessage("discarded-1"));
        producer.send(tx.createTextMessage("discarded-2"));
        tx.rollback();
        producer.send(tx.createTextMessage("kept"));
        tx.commit();

        Session other = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer consumer = other.createConsumer(other.createQueue(queueName));
        assertEquals("kept", Receive.nextText(consumer).getText());
        Receive.nothingMore(consumer);
    }

    @Test
    void committedReceivesAreGoneForGood() throws Exception {
        String queueName = WHARF.queueName("tx.ack");
        Connection first = WHARF.connect(Transport.TCP);
        Send.texts(first, queueName, "a", "b", "c");
        Session tx = first.createSession(true, Session.SESSION_TRANSACTED);
        MessageConsumer consumer = tx.createConsumer(tx.createQueue(queueName));
        assertEquals(List.of("a", "b", "c"), Receive.texts(consumer, 3));
        tx.commit();
        first.close();

        Session again = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer reconsumer = again.createConsumer(again.createQueue(queueName));
        Receive.nothingMore(reconsumer);
        assertEquals(0, WHARF.depth(queueName));
    }

    @Test
    void rollbackRedeliversInOriginalOrderCountingDeliveries() throws Exception {
        String queueName = WHARF.queueName("tx.rollback");
        Connection connection = WHARF.connect(Transport.TCP);
        Send.texts(connection, queueName, "r1", "r2", "r3");
        Session tx = connection.createSession(true, Session.SESSION_TRANSACTED);
        MessageConsumer consumer = tx.createConsumer(tx.createQueue(queueName));

        for (int delivery = 1; delivery <= 3; delivery++) {
            for (String expected : List.of("r1", "r2", "r3")) {
                TextMessage m = Receive.nextText(consumer);
                assertEquals(expected, m.getText(), "order on delivery " + delivery);
                assertDelivery(m, delivery);
            }
            if (delivery < 3) {
                tx.rollback();
            }
        }
        tx.commit();
        Receive.nothingMore(consumer);
        connection.close();
        Session after = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
        Receive.nothingMore(after.createConsumer(after.createQueue(queueName)));
    }

    @Test
    void rollbackMarksOnlyConsumedMessagesRedelivered() throws Exception {
        String queueName = WHARF.queueName("tx.partial");
        Connection connection = WHARF.connect(Transport.TCP);
        Send.texts(connection, queueName, "p1", "p2", "p3");
        Session tx = connection.createSession(true, Session.SESSION_TRANSACTED);
        MessageConsumer consumer = tx.createConsumer(tx.createQueue(queueName));
        assertEquals(List.of("p1", "p2"), Receive.texts(consumer, 2));
        // p3 has most likely been prefetched but the application never saw it: it must not count as redelivered
        tx.rollback();

        TextMessage p1 = Receive.nextText(consumer);
        TextMessage p2 = Receive.nextText(consumer);
        TextMessage p3 = Receive.nextText(consumer);
        assertEquals(List.of("p1", "p2", "p3"), List.of(p1.getText(), p2.getText(), p3.getText()));
        assertDelivery(p1, 2);
        assertDelivery(p2, 2);
        assertDelivery(p3, 1);
        tx.commit();
    }

    @Test
    void receiveAndSendInOneTransactionCommitOrRollBackTogether() throws Exception {
        String in = WHARF.queueName("tx.in");
        String out = WHARF.queueName("tx.out");
        Connection connection = WHARF.connect(Transport.TCP);
        Send.texts(connection, in, "work");
        Session tx = connection.createSession(true, Session.SESSION_TRANSACTED);
        MessageConsumer fromIn = tx.createConsumer(tx.createQueue(in));
        MessageProducer toOut = tx.createProducer(tx.createQueue(out));
        Session observer = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer outWatcher = observer.createConsumer(observer.createQueue(out));

        toOut.send(tx.createTextMessage("done:" + Receive.nextText(fromIn).getText()));
        tx.rollback();
        Receive.nothingMore(outWatcher);

        TextMessage again = Receive.nextText(fromIn);
        assertTrue(again.getJMSRedelivered());
        toOut.send(tx.createTextMessage("done:" + again.getText()));
        tx.commit();

        assertEquals("done:work", Receive.nextText(outWatcher).getText());
        Receive.nothingMore(fromIn);
    }

    private static void assertDelivery(Message m, int count) throws JMSException {
        assertEquals(count, m.getIntProperty("JMSXDeliveryCount"), "JMSXDeliveryCount");
        if (count > 1) {
            assertTrue(m.getJMSRedelivered(), "JMSRedelivered on delivery " + count);
        } else {
            assertFalse(m.getJMSRedelivered(), "JMSRedelivered on first delivery");
        }
    }
}
