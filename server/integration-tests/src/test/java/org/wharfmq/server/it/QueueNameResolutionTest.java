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
import javax.jms.DeliveryMode;
import javax.jms.InvalidDestinationException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Queue;
import javax.jms.Session;
import javax.jms.TextMessage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * How a put finds its queue on queue manager QM1 (docs/distributed.md): local queues, queue aliases, remote queue
 * definitions, names qualified by a queue manager, queue-manager aliases and the default transmission queue, through
 * the real client. A message for another queue manager waits on its transmission queue with its transmission header.
 */
class QueueNameResolutionTest {

    private TestServer testServer;
    private Connection connection;
    private Session session;

    @BeforeEach
    void start() throws Exception {
        testServer = TestServer.start(c -> c.name("QM1").autoCreate(false)
                .queue("LOCAL.ORDERS").queue("REPLIES")
                .queue(QueueDefinition.transmissionQueue("QM2"))
                .queue(QueueDefinition.transmissionQueue("XMIT.OTHER"))
                .reference(QueueReference.remote("ORDERS.REMOTE", "ORDERS", "QM2", null))
                .reference(QueueReference.remote("PAY.REMOTE", "PAY", "QM3", "XMIT.OTHER"))
                .reference(QueueReference.remote("QM4", null, "QM2", null))
                .reference(QueueReference.alias("ORDERS.ALIAS", "LOCAL.ORDERS"))
                .reference(QueueReference.alias("REMOTE.ALIAS", "ORDERS.REMOTE")));
        connect();
    }

    private void connect() throws Exception {
        connection = new WharfConnectionFactory(testServer.server().tcpUrl()).createConnection();
        session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        connection.start();
    }

    @AfterEach
    void stop() throws Exception {
        connection.close();
        testServer.close();
    }

    @Test
    void aPutThroughARemoteDefinitionWaitsOnItsTransmissionQueueWithTheHeaderAndTheReplyToQualified() throws Exception {
        TextMessage order = session.createTextMessage("order 1");
        order.setStringProperty("region", "EU");
        order.setJMSReplyTo(session.createQueue("REPLIES"));
        MessageProducer producer = session.createProducer(session.createQueue("ORDERS.REMOTE"));
        producer.setDeliveryMode(DeliveryMode.PERSISTENT);
        producer.send(order);

        TextMessage waiting = (TextMessage) next("QM2");
        assertEquals("order 1", waiting.getText());
        assertEquals("EU", waiting.getStringProperty("region"));
        assertEquals("QM2", waiting.getStringProperty(TransmissionHeader.QUEUE_MANAGER));
        assertEquals("ORDERS", waiting.getStringProperty(TransmissionHeader.QUEUE));
        assertEquals("QM1", waiting.getStringProperty(TransmissionHeader.SOURCE_QUEUE_MANAGER));
        assertEquals("QM1", waiting.getStringProperty(TransmissionHeader.REPLY_TO_QUEUE_MANAGER));
        assertEquals("QM1/REPLIES", ((Queue) waiting.getJMSReplyTo()).getQueueName());
        assertEquals("ORDERS", ((Queue) waiting.getJMSDestination()).getQueueName()); // the queue there
        assertEquals(DeliveryMode.PERSISTENT, waiting.getJMSDeliveryMode());
        assertEquals(order.getJMSMessageID(), waiting.getJMSMessageID());
        assertEquals(0, depth("LOCAL.ORDERS"));
    }

    @Test
    void aNameQualifiedByAnotherQueueManagerGoesToTheTransmissionQueueNamedAsIt() throws Exception {
        send("queue://QM2/INVOICES", "invoice");
        Message waiting = next("QM2");
        assertEquals("QM2", waiting.getStringProperty(TransmissionHeader.QUEUE_MANAGER));
        assertEquals("INVOICES", waiting.getStringProperty(TransmissionHeader.QUEUE));
        assertNull(waiting.getStringProperty(TransmissionHeader.REPLY_TO_QUEUE_MANAGER)); // no reply-to
    }

    @Test
    void aRemoteDefinitionNamingItsTransmissionQueueUsesIt() throws Exception {
        send("PAY.REMOTE", "pay");
        Message waiting = next("XMIT.OTHER");
        assertEquals("QM3", waiting.getStringProperty(TransmissionHeader.QUEUE_MANAGER));
        assertEquals("PAY", waiting.getStringProperty(TransmissionHeader.QUEUE));
        assertEquals(0, depth("QM2"));
    }

    @Test
    void aQueueManagerAliasSendsItsMessagesOnToTheQueueManagerItNames() throws Exception {
        send("queue://QM4/STOCK", "stock");
        Message waiting = next("QM2");
        assertEquals("QM2", waiting.getStringProperty(TransmissionHeader.QUEUE_MANAGER));
        assertEquals("STOCK", waiting.getStringProperty(TransmissionHeader.QUEUE));
    }

    @Test
    void aQueueAliasIsItsTargetForPutsAndGetsAndMayLeadToARemoteQueue() throws Exception {
        send("ORDERS.ALIAS", "via alias");
        assertEquals(1, depth("LOCAL.ORDERS"));
        assertEquals("via alias", ((TextMessage) next("ORDERS.ALIAS")).getText());

        send("REMOTE.ALIAS", "alias to remote");
        assertEquals("ORDERS", next("QM2").getStringProperty(TransmissionHeader.QUEUE));
    }

    @Test
    void aNameQualifiedByThisQueueManagerIsLocal() throws Exception {
        send("queue://QM1/LOCAL.ORDERS", "own name");
        send("queue:///LOCAL.ORDERS", "no name");
        send("QM1/ORDERS.ALIAS", "own name, alias");
        assertEquals(3, depth("LOCAL.ORDERS"));
        assertEquals(0, depth("QM2"));
        assertEquals("own name", ((TextMessage) next("LOCAL.ORDERS")).getText());
        assertNull(next("LOCAL.ORDERS").getStringProperty(TransmissionHeader.QUEUE_MANAGER));
    }

    @Test
    void aQueueManagerWithNoWayToItIsRefusedSayingWhatToDefine() throws Exception {
        InvalidDestinationException refused = assertThrows(InvalidDestinationException.class,
                () -> send("queue://QM9/ORDERS", "lost"));
        assertEquals("Queue 'QM9/ORDERS' is for queue manager QM9, which queue manager QM1 has no way to: no"
                + " transmission queue is named QM9 and there is no default transmission queue. Define a transmission"
                + " queue named QM9 (usage: transmission), a remote queue definition or queue-manager alias naming a"
                + " transmission queue, or set defaultTransmissionQueue (docs/distributed.md).", refused.getMessage());
        assertEquals(0, depth("QM2") + depth("XMIT.OTHER"));
    }

    @Test
    void theDefaultTransmissionQueueTakesMessagesForAnyOtherQueueManager() throws Exception {
        connection.close();
        testServer.restart(c -> c.defaultTransmissionQueue("XMIT.OTHER"));
        connect();
        send("queue://QM9/ORDERS", "far away");
        Message waiting = next("XMIT.OTHER");
        assertEquals("QM9", waiting.getStringProperty(TransmissionHeader.QUEUE_MANAGER));
        assertEquals("ORDERS", waiting.getStringProperty(TransmissionHeader.QUEUE));
        send("queue://QM2/ORDERS", "near"); // a transmission queue named as the queue manager comes first
        assertEquals(1, depth("QM2"));
    }

    @Test
    void aRemoteQueueIsNotReceivedFromHere() throws Exception {
        InvalidDestinationException refused = assertThrows(InvalidDestinationException.class,
                () -> session.createConsumer(session.createQueue("ORDERS.REMOTE")));
        assertEquals("Queue 'ORDERS.REMOTE' is on queue manager QM2 (as queue 'ORDERS'), not on QM1: messages are put"
                + " to a remote queue, and received on the queue manager that holds it. Connect to QM2 to receive"
                + " them.", refused.getMessage());
    }

    private void send(String queue, String text) throws Exception {
        MessageProducer producer = session.createProducer(session.createQueue(queue));
        producer.setDeliveryMode(DeliveryMode.PERSISTENT); // its refusal comes back from the send
        producer.send(session.createTextMessage(text));
        producer.close();
    }

    private Message next(String queue) throws Exception {
        try (MessageConsumer consumer = session.createConsumer(session.createQueue(queue))) {
            return Receive.next(consumer);
        }
    }

    private long depth(String queue) {
        return testServer.server().queueManager().depth(queue);
    }
}
