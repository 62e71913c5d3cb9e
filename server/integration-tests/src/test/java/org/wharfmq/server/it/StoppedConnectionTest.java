package org.wharfmq.server.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import javax.jms.Connection;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Queue;
import javax.jms.Session;
import javax.jms.TextMessage;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A connection that has not been started delivers nothing (JMS 1.1 section 4.3.3), and its consumers take nothing from
 * the queue's other consumers: the server holds back their prefetch window until the connection starts (the
 * CREATE_CONSUMER flag CONSUMER_STOPPED, docs/protocol.md). The Jakarta Messaging TCK's JmsTool opens such an idle
 * consumer beside the one a test receives with (core20 jmsconsumertests).
 */
@Timeout(60)
class StoppedConnectionTest {

    @RegisterExtension
    static final WharfServerExtension WHARF = WharfServerExtension.withDefaults();

    @Test
    void consumersOfANeverStartedConnectionTakeNothingFromTheOthers() throws Exception {
        String queueName = WHARF.queueName("stopped.idle");
        Connection idle = WHARF.track(WHARF.factory(Transport.TCP).createConnection()); // never started
        Session plain = idle.createSession(false, Session.AUTO_ACKNOWLEDGE);
        plain.createConsumer(plain.createQueue(queueName));
        Session transacted = idle.createSession(true, Session.SESSION_TRANSACTED);
        Queue queue = transacted.createQueue(queueName);
        transacted.createConsumer(queue);
        transacted.createProducer(queue).send(transacted.createTextMessage("rolled back"));
        transacted.rollback(); // a rollback restores a consumer's window: not this one's, its connection is stopped

        Connection active = WHARF.connect(Transport.TCP);
        Session session = active.createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer consumer = session.createConsumer(session.createQueue(queueName));
        Send.texts(active, queueName, "m1", "m2", "m3", "m4");
        assertEquals(List.of("m1", "m2", "m3", "m4"), Receive.texts(consumer, 4));
    }

    @Test
    void consumersCreatedBeforeStartReceiveOnceItStarts() throws Exception {
        String receiveQueue = WHARF.queueName("stopped.receive");
        String listenQueue = WHARF.queueName("stopped.listen");
        Connection connection = WHARF.track(WHARF.factory(Transport.TCP).createConnection()); // started below
        Session receiving = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer receiver = receiving.createConsumer(receiving.createQueue(receiveQueue));
        Session listening = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        CompletableFuture<String> heard = new CompletableFuture<>();
        listening.createConsumer(listening.createQueue(listenQueue)).setMessageListener(message -> {
            try {
                heard.complete(((TextMessage) message).getText());
            } catch (Exception e) {
                heard.completeExceptionally(e);
            }
        });
        Session sending = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageProducer producer = sending.createProducer(null);
        producer.send(sending.createQueue(receiveQueue), sending.createTextMessage("to the receiver"));
        producer.send(sending.createQueue(listenQueue), sending.createTextMessage("to the listener"));

        connection.start();
        assertEquals("to the receiver", Receive.nextText(receiver).getText());
        assertEquals("to the listener", heard.get(Receive.EXPECTED_MS, TimeUnit.MILLISECONDS));
    }
}
