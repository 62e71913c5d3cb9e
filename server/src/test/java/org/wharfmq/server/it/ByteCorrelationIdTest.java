package org.wharfmq.server.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.wharfmq.server.queue.LocalQueue;

import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.JMSConsumer;
import javax.jms.JMSContext;
import javax.jms.JMSProducer;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Queue;
import javax.jms.Session;
import javax.jms.TextMessage;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * Correlation ids set as bytes ({@code setJMSCorrelationIDAsBytes}, as IBM MQ-style applications do) are reported by
 * {@code getJMSCorrelationID} as {@code "ID:"} followed by two lowercase hex digits per byte, and selectors see that
 * same string: an application that selects on the value it reads back gets its message, served by the queue's
 * correlation index like a string id. A string id of the same form is the same id to a selector.
 */
@Timeout(60)
class ByteCorrelationIdTest {

    @RegisterExtension
    static final WharfServerExtension WHARF = WharfServerExtension.withDefaults();

    /** What JMSPerfHarness puts in a correlation id: 24 bytes, zeros and bytes that are not UTF-8 among them. */
    private static final byte[] HARNESS_ID = {
            (byte) 0xc0, (byte) 0xa8, 0x01, 0x07, '1', '2', '3', 'a', 'b', 'c', ':', 'x', 0, 0, (byte) 0x80,
            (byte) 0xff, 0x7f, 0, 0, 0, 0, 0, '1', '7'};
    private static final String HARNESS_ID_STRING = "ID:c0a801073132336162633a780000" + "80ff7f00000000003137";

    @Test
    void putGetSelectingOnTheReportedStringGetsItsOwnMessageBack() throws Exception {
        // JMSPerfHarness jms.r11.PutGet -co true: set the id as bytes, select on what getJMSCorrelationID reports,
        // then send the same message and receive it from the same queue, again and again
        Session session = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue queue = session.createQueue(WHARF.queueName("putget"));
        TextMessage out = session.createTextMessage("put-get");
        out.setJMSCorrelationIDAsBytes(HARNESS_ID);
        String reported = out.getJMSCorrelationID();
        MessageConsumer consumer = session.createConsumer(queue, "JMSCorrelationID='" + reported + "'");
        MessageProducer producer = session.createProducer(queue);
        for (int deliveryMode : new int[]{DeliveryMode.NON_PERSISTENT, DeliveryMode.PERSISTENT, DeliveryMode.NON_PERSISTENT}) {
            producer.send(out, deliveryMode, Message.DEFAULT_PRIORITY, 0);
            Message in = consumer.receive(5000);
            assertNotNull(in, "No response to message (" + out.getJMSMessageID() + ")");
            assertEquals(out.getJMSMessageID(), in.getJMSMessageID());
            assertEquals(HARNESS_ID_STRING, in.getJMSCorrelationID());
            assertArrayEquals(HARNESS_ID, in.getJMSCorrelationIDAsBytes());
        }
        assertEquals(HARNESS_ID_STRING, reported);
    }

    @Test
    void byteIdReplyGoesToItsRequesterThroughTheCorrelationIndex() throws Exception {
        String replyQueue = WHARF.queueName("reply");
        Session requesters = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue replies = requesters.createQueue(replyQueue);
        List<MessageConsumer> waiting = new ArrayList<>();
        List<String> selectedIds = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            Message probe = requesters.createMessage();
            probe.setJMSCorrelationIDAsBytes(requesterId(i));
            selectedIds.add(probe.getJMSCorrelationID());
            waiting.add(requesters.createConsumer(replies, "JMSCorrelationID = '" + probe.getJMSCorrelationID() + "'"));
        }
        Send.barrier(requesters); // the consumers created without waiting are open
        LocalQueue queue = WHARF.server().queueManager().queue(replyQueue);

        Session responder = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageProducer producer = responder.createProducer(responder.createQueue(replyQueue));
        TextMessage reply = responder.createTextMessage("reply-37");
        reply.setJMSCorrelationIDAsBytes(requesterId(37));
        long visitsBefore = queue.consumerVisits();
        producer.send(reply, DeliveryMode.PERSISTENT, Message.DEFAULT_PRIORITY, 0); // answered once offered
        assertEquals(1, queue.consumerVisits() - visitsBefore,
                "the reply must find its requester by one index lookup, examining no other consumer");

        Message received = waiting.get(37).receive(5000);
        assertNotNull(received, "requester 37 selecting on " + selectedIds.get(37) + " got no reply");
        assertEquals("reply-37", assertInstanceOf(TextMessage.class, received).getText());
        assertEquals(selectedIds.get(37), received.getJMSCorrelationID());
        assertArrayEquals(requesterId(37), received.getJMSCorrelationIDAsBytes());
        Receive.nothingMore(waiting.get(36)); // a neighbour's selector must not take another id's reply
        assertEquals(0, WHARF.depth(replyQueue));
    }

    @Test
    void aStringIdOfTheReportedFormIsTheSameIdToSelectors() throws Exception {
        // JMSPerfHarness's Responder copies the request's id as a string: reply.setJMSCorrelationID(request.getJMSCorrelationID())
        Session session = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue queue = session.createQueue(WHARF.queueName("same"));
        MessageProducer producer = session.createProducer(queue);
        Message asBytes = session.createTextMessage("bytes");
        asBytes.setJMSCorrelationIDAsBytes(new byte[]{0x0a, (byte) 0xbc});
        producer.send(asBytes);
        Message asString = session.createTextMessage("string");
        asString.setJMSCorrelationID("ID:0abc");
        producer.send(asString);
        Message upperCase = session.createTextMessage("upper case");
        upperCase.setJMSCorrelationID("ID:0ABC");
        producer.send(upperCase);

        MessageConsumer selecting = session.createConsumer(queue, "JMSCorrelationID = 'ID:0abc'");
        Message first = selecting.receive(5000);
        Message second = selecting.receive(5000);
        assertEquals("bytes", ((TextMessage) first).getText());
        assertEquals("string", ((TextMessage) second).getText());
        assertEquals("ID:0abc", first.getJMSCorrelationID());
        assertEquals("ID:0abc", second.getJMSCorrelationID());
        assertArrayEquals(new byte[]{0x0a, (byte) 0xbc}, first.getJMSCorrelationIDAsBytes());
        assertArrayEquals(new byte[]{0x0a, (byte) 0xbc}, second.getJMSCorrelationIDAsBytes());
        Receive.nothingMore(selecting); // selectors compare the string exactly: 'ID:0ABC' is another string
        selecting.close();

        Message left = session.createConsumer(queue).receive(5000);
        assertEquals("upper case", ((TextMessage) left).getText());
        assertEquals("ID:0ABC", left.getJMSCorrelationID(), "a string id reads back as it was set");
        assertArrayEquals(new byte[]{0x0a, (byte) 0xbc}, left.getJMSCorrelationIDAsBytes());
    }

    @Test
    void messageIdAsCorrelationIdStillSelectsByIndexAndReadsBackUnchanged() throws Exception {
        String replyQueue = WHARF.queueName("reply");
        Session session = WHARF.connect(Transport.VM).createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue requests = session.createQueue(WHARF.queueName("request"));
        Queue replies = session.createQueue(replyQueue);
        Message request = session.createTextMessage("request");
        session.createProducer(requests).send(request);
        Message received = session.createConsumer(requests).receive(5000);
        MessageConsumer requester = session.createConsumer(replies, "JMSCorrelationID = '" + request.getJMSMessageID() + "'");
        Send.barrier(session);

        Message reply = session.createTextMessage("reply");
        reply.setJMSCorrelationID(received.getJMSMessageID());
        LocalQueue queue = WHARF.server().queueManager().queue(replyQueue);
        long visitsBefore = queue.consumerVisits();
        session.createProducer(replies).send(reply, DeliveryMode.PERSISTENT, Message.DEFAULT_PRIORITY, 0);
        assertEquals(1, queue.consumerVisits() - visitsBefore);

        Message answer = requester.receive(5000);
        assertNotNull(answer);
        assertEquals(request.getJMSMessageID(), answer.getJMSCorrelationID());
        assertArrayEquals(request.getJMSMessageID().getBytes(StandardCharsets.UTF_8), answer.getJMSCorrelationIDAsBytes(),
                "a string id that is not 'ID:' and hex digits reads back as its UTF-8 bytes");
    }

    @Test
    void aJmsProducerReportsAndSendsAByteIdTheSameWay() {
        try (JMSContext context = WHARF.factory(Transport.VM).createContext()) {
            Queue queue = context.createQueue(WHARF.queueName("ctx"));
            JMSProducer producer = context.createProducer().setJMSCorrelationIDAsBytes(new byte[]{(byte) 0xfe, 0x01});
            assertEquals("ID:fe01", producer.getJMSCorrelationID());
            assertArrayEquals(new byte[]{(byte) 0xfe, 0x01}, producer.getJMSCorrelationIDAsBytes());
            JMSConsumer consumer = context.createConsumer(queue, "JMSCorrelationID = '" + producer.getJMSCorrelationID() + "'");
            producer.send(queue, "by bytes");
            assertEquals("by bytes", consumer.receiveBody(String.class, 5000));
            assertArrayEquals(new byte[]{0x12}, producer.setJMSCorrelationID("ID:12").getJMSCorrelationIDAsBytes());
        }
    }

    /** A distinct 24-byte id per requester (up to 63), as an MQ application would build. */
    private static byte[] requesterId(int requester) {
        byte[] id = HARNESS_ID.clone();
        id[23] = (byte) (0x40 + requester);
        return id;
    }
}
