package org.wharfmq.server.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.opentest4j.AssertionFailedError;

import javax.jms.DeliveryMode;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Queue;
import javax.jms.Session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The checks other tests build on: {@link Send#barrier} really waits for the server, and
 * {@link Receive#nothingMore} really fails when the server has something, even a message sent a moment ago by
 * another connection without waiting for an answer.
 */
@Timeout(60)
class BarrierTest {

    private static final int SENDS = 200;

    @RegisterExtension
    static final WharfServerExtension WHARF = WharfServerExtension.withDefaults();

    @Test
    void aBarrierReturnsOnceTheServerHasHandledEverySendBeforeIt() throws Exception {
        String queueName = WHARF.queueName("barrier.sends");
        Session session = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageProducer producer = session.createProducer(session.createQueue(queueName));
        producer.setDeliveryMode(DeliveryMode.NON_PERSISTENT);
        Session transacted = WHARF.connect(Transport.VM).createSession(true, Session.SESSION_TRANSACTED);
        MessageProducer inTransaction = transacted.createProducer(transacted.createQueue(queueName));
        for (int i = 0; i < SENDS; i++) {
            producer.send(session.createTextMessage("fire and forget " + i));
            inTransaction.send(transacted.createTextMessage("uncommitted " + i));
        }
        Send.barrier(session);
        Send.barrier(transacted);
        // an uncommitted send holds its place on the queue, so both count, at once
        assertEquals(2 * SENDS, WHARF.depth(queueName));
    }

    @Test
    void nothingMoreFailsOnAMessageAnotherConnectionSentWithoutWaiting() throws Exception {
        String queueName = WHARF.queueName("barrier.late");
        Session consuming = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue queue = consuming.createQueue(queueName);
        MessageConsumer consumer = consuming.createConsumer(queue);
        Receive.nothingMore(consumer);

        Session producing = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageProducer producer = producing.createProducer(queue);
        producer.setDeliveryMode(DeliveryMode.NON_PERSISTENT);
        producer.send(producing.createTextMessage("sent a moment ago"));
        Send.barrier(producing);

        AssertionFailedError failed = assertThrows(AssertionFailedError.class, () -> Receive.nothingMore(consumer));
        assertTrue(failed.getMessage().contains("'sent a moment ago'"), failed.getMessage());
    }

    @Test
    void nothingMorePassesBeforeACommitAndFailsAfterIt() throws Exception {
        String queueName = WHARF.queueName("barrier.commit");
        Session session = WHARF.connect(Transport.VM).createSession(true, Session.SESSION_TRANSACTED);
        Queue queue = session.createQueue(queueName);
        MessageConsumer consumer = session.createConsumer(queue);
        session.createProducer(queue).send(session.createTextMessage("waiting"));
        // not committed: the consumer must not see it; committed: it must, whether pushed to it or left waiting
        Receive.nothingMore(consumer);
        session.commit();
        assertThrows(AssertionFailedError.class, () -> Receive.nothingMore(consumer));
    }
}
