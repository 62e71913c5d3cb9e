package org.wharfmq.server.it;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.protocol.message.TransmissionHeader;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.config.QueueDefinition;
import org.wharfmq.server.config.QueueReference;

import javax.jms.Connection;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Session;
import javax.jms.TextMessage;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A requester on QM1 and a responder on QM2 that replies to JMSReplyTo as it would on one queue manager: the
 * reply-to names QM1, so QM2's own definitions route the reply back. The test moves each message from one queue
 * manager's transmission queue to the other's target queue, as the channel (not built yet) will.
 */
class ReplyAcrossQueueManagersTest {

    private TestServer qm1;
    private TestServer qm2;
    private Connection onQm1;
    private Connection onQm2;

    @BeforeEach
    void start() throws Exception {
        qm1 = TestServer.start(c -> c.name("QM1").autoCreate(false).queue("REPLIES")
                .queue(QueueDefinition.transmissionQueue("QM2"))
                .reference(QueueReference.remote("ORDERS", "ORDERS", "QM2", null)));
        qm2 = TestServer.start(c -> c.name("QM2").autoCreate(false).queue("ORDERS")
                .queue(QueueDefinition.transmissionQueue("QM1")));
        onQm1 = new WharfConnectionFactory(qm1.server().tcpUrl()).createConnection();
        onQm2 = new WharfConnectionFactory(qm2.server().tcpUrl()).createConnection();
        onQm1.start();
        onQm2.start();
    }

    @AfterEach
    void stop() throws Exception {
        onQm1.close();
        onQm2.close();
        qm1.close();
        qm2.close();
    }

    @Test
    void aResponderOnAnotherQueueManagerRepliesThroughItsOwnDefinitions() throws Exception {
        Session requester = onQm1.createSession(false, Session.AUTO_ACKNOWLEDGE);
        TextMessage request = requester.createTextMessage("how many?");
        request.setJMSReplyTo(requester.createQueue("REPLIES"));
        request.setJMSCorrelationID("order-1"); // the test's channel sends anew, so the message id changes
        requester.createProducer(requester.createQueue("ORDERS")).send(request);

        moveAsAChannelWould(onQm1, "QM2", onQm2);

        Session responder = onQm2.createSession(false, Session.AUTO_ACKNOWLEDGE);
        Message received = Receive.next(responder.createConsumer(responder.createQueue("ORDERS")));
        assertEquals("QM1/REPLIES", ((javax.jms.Queue) received.getJMSReplyTo()).getQueueName());
        TextMessage reply = responder.createTextMessage("42");
        reply.setJMSCorrelationID(received.getJMSCorrelationID());
        responder.createProducer(null).send(received.getJMSReplyTo(), reply); // no code of its own for QM1

        moveAsAChannelWould(onQm2, "QM1", onQm1);

        MessageConsumer replies = requester.createConsumer(requester.createQueue("REPLIES"));
        TextMessage answer = (TextMessage) Receive.next(replies);
        assertEquals("42", answer.getText());
        assertEquals("order-1", answer.getJMSCorrelationID());
        assertEquals("QM2", answer.getStringProperty(TransmissionHeader.SOURCE_QUEUE_MANAGER));
    }

    /** Takes the message waiting on {@code from}'s transmission queue and puts it on its target queue on {@code to}. */
    private static void moveAsAChannelWould(Connection from, String transmissionQueue, Connection to)
            throws Exception {
        Session take = from.createSession(false, Session.AUTO_ACKNOWLEDGE);
        Session put = to.createSession(false, Session.AUTO_ACKNOWLEDGE);
        try (MessageConsumer waiting = take.createConsumer(take.createQueue(transmissionQueue))) {
            Message message = Receive.next(waiting);
            MessageProducer producer = put.createProducer(
                    put.createQueue(message.getStringProperty(TransmissionHeader.QUEUE)));
            producer.send(message, message.getJMSDeliveryMode(), message.getJMSPriority(), 0);
        }
        take.close();
        put.close();
    }
}
