package org.wharfmq.server.it;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

import javax.jms.BytesMessage;
import javax.jms.DeliveryMode;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageEOFException;
import javax.jms.MessageNotWriteableException;
import javax.jms.MessageProducer;
import javax.jms.Queue;
import javax.jms.Session;
import javax.jms.TextMessage;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A message arrives as it was sent, over TCP and in-VM: every JMS header field, typed properties, and body bytes
 * from empty to 1 MB. The message bytes pass through the server unread, so any field the client encodes or
 * decodes wrongly shows up here.
 */
@Timeout(60)
class MessageRoundTripTest {

    @RegisterExtension
    static final WharfServerExtension WHARF = WharfServerExtension.withDefaults();

    private static final int ONE_MB = 1024 * 1024;

    @ParameterizedTest
    @EnumSource(Transport.class)
    void everyHeaderFieldSetBySenderAndSendArrives(Transport transport) throws Exception {
        Session session = WHARF.connect(transport).createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue queue = session.createQueue(WHARF.queueName("headers"));
        Queue replyTo = session.createQueue(WHARF.queueName("headers.reply"));
        MessageProducer producer = session.createProducer(queue);
        MessageConsumer consumer = session.createConsumer(queue);

        TextMessage sent = session.createTextMessage("héllo wörld ✓ 🚢");
        sent.setJMSCorrelationID("corr-42");
        sent.setJMSReplyTo(replyTo);
        sent.setJMSType("order.v1");
        long ttl = 60_000;
        long before = System.currentTimeMillis();
        producer.send(sent, DeliveryMode.PERSISTENT, 7, ttl);
        long after = System.currentTimeMillis();

        TextMessage received = Receive.nextText(consumer);
        assertEquals("héllo wörld ✓ 🚢", received.getText());
        assertTrue(sent.getJMSMessageID().startsWith("ID:"), sent.getJMSMessageID());
        assertEquals(sent.getJMSMessageID(), received.getJMSMessageID());
        assertBetween(before, after, received.getJMSTimestamp(), "JMSTimestamp");
        assertEquals(sent.getJMSTimestamp(), received.getJMSTimestamp());
        assertBetween(before + ttl, after + ttl, received.getJMSExpiration(), "JMSExpiration = send time + timeToLive");
        assertEquals("corr-42", received.getJMSCorrelationID());
        assertEquals(replyTo.getQueueName(), assertInstanceOf(Queue.class, received.getJMSReplyTo()).getQueueName());
        assertEquals(queue.getQueueName(), assertInstanceOf(Queue.class, received.getJMSDestination()).getQueueName());
        assertEquals(DeliveryMode.PERSISTENT, received.getJMSDeliveryMode());
        assertEquals(7, received.getJMSPriority());
        assertEquals("order.v1", received.getJMSType());
        assertFalse(received.getJMSRedelivered());
        assertEquals(1, received.getIntProperty("JMSXDeliveryCount"));

        // send(...) sets these on the sender's message object too (JMS 2.0 §3.4)
        assertEquals(DeliveryMode.PERSISTENT, sent.getJMSDeliveryMode());
        assertEquals(7, sent.getJMSPriority());
        assertEquals(queue.getQueueName(), ((Queue) sent.getJMSDestination()).getQueueName());
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void defaultsLeaveOptionalHeadersEmpty(Transport transport) throws Exception {
        Session session = WHARF.connect(transport).createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue queue = session.createQueue(WHARF.queueName("defaults"));
        MessageProducer producer = session.createProducer(queue);
        producer.setDeliveryMode(DeliveryMode.NON_PERSISTENT);
        MessageConsumer consumer = session.createConsumer(queue);

        producer.send(session.createTextMessage("plain"));

        Message received = Receive.next(consumer);
        assertEquals(0, received.getJMSExpiration(), "no timeToLive means JMSExpiration 0");
        assertEquals(Message.DEFAULT_PRIORITY, received.getJMSPriority());
        assertEquals(DeliveryMode.NON_PERSISTENT, received.getJMSDeliveryMode());
        assertNull(received.getJMSCorrelationID());
        assertNull(received.getJMSReplyTo());
        assertNull(received.getJMSType());
        assertFalse(received.getJMSRedelivered());
        assertEquals(1, received.getIntProperty("JMSXDeliveryCount"));
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void correlationIdAsBytesRoundTrips(Transport transport) throws Exception {
        Session session = WHARF.connect(transport).createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue queue = session.createQueue(WHARF.queueName("corrbytes"));
        MessageConsumer consumer = session.createConsumer(queue);
        byte[] correlation = {0, 1, (byte) 0xFF, 0x7F, (byte) 0x80, 'x'};
        Message sent = session.createMessage();
        sent.setJMSCorrelationIDAsBytes(correlation);

        session.createProducer(queue).send(sent);

        assertArrayEquals(correlation, Receive.next(consumer).getJMSCorrelationIDAsBytes());
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void messageIdsAreUniqueAndIdentifyTheSentMessage(Transport transport) throws Exception {
        Session session = WHARF.connect(transport).createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue queue = session.createQueue(WHARF.queueName("ids"));
        MessageProducer producer = session.createProducer(queue);
        MessageConsumer consumer = session.createConsumer(queue);
        List<String> sentIds = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            Message m = session.createTextMessage("m" + i);
            producer.send(m);
            sentIds.add(m.getJMSMessageID());
        }
        List<String> receivedIds = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            receivedIds.add(Receive.next(consumer).getJMSMessageID());
        }
        assertEquals(sentIds, receivedIds);
        Set<String> distinct = new HashSet<>(receivedIds);
        assertEquals(100, distinct.size(), "JMSMessageID must be unique");
        assertTrue(distinct.stream().allMatch(id -> id.startsWith("ID:")), () -> "all ids start with ID: " + distinct);
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void typedPropertiesOfEveryTypeRoundTrip(Transport transport) throws Exception {
        Session session = WHARF.connect(transport).createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue queue = session.createQueue(WHARF.queueName("props"));
        MessageConsumer consumer = session.createConsumer(queue);
        Message sent = session.createMessage();
        sent.setBooleanProperty("bool", true);
        sent.setByteProperty("byte", (byte) -7);
        sent.setShortProperty("short", (short) 31_000);
        sent.setIntProperty("int", Integer.MIN_VALUE);
        sent.setLongProperty("long", Long.MAX_VALUE);
        sent.setFloatProperty("float", 3.25f);
        sent.setDoubleProperty("double", -1.0e300);
        sent.setStringProperty("string", "ünïcödé ✓");
        sent.setStringProperty("empty", "");
        sent.setObjectProperty("object", 9L);

        session.createProducer(queue).send(sent);

        Message received = Receive.next(consumer);
        assertTrue(received.getBooleanProperty("bool"));
        assertEquals((byte) -7, received.getByteProperty("byte"));
        assertEquals((short) 31_000, received.getShortProperty("short"));
        assertEquals(Integer.MIN_VALUE, received.getIntProperty("int"));
        assertEquals(Long.MAX_VALUE, received.getLongProperty("long"));
        assertEquals(3.25f, received.getFloatProperty("float"));
        assertEquals(-1.0e300, received.getDoubleProperty("double"));
        assertEquals("ünïcödé ✓", received.getStringProperty("string"));
        assertEquals("", received.getStringProperty("empty"));
        assertEquals(9L, received.getLongProperty("object"));
        // the wire keeps the type, not just the value
        assertInstanceOf(Boolean.class, received.getObjectProperty("bool"));
        assertInstanceOf(Byte.class, received.getObjectProperty("byte"));
        assertInstanceOf(Short.class, received.getObjectProperty("short"));
        assertInstanceOf(Integer.class, received.getObjectProperty("int"));
        assertInstanceOf(Long.class, received.getObjectProperty("long"));
        assertInstanceOf(Float.class, received.getObjectProperty("float"));
        assertInstanceOf(Double.class, received.getObjectProperty("double"));
        assertInstanceOf(Long.class, received.getObjectProperty("object"));
        // JMS conversion rules apply to received properties as to sent ones
        assertEquals("-2147483648", received.getStringProperty("int"));
        assertEquals(-7L, received.getLongProperty("byte"));
        assertFalse(received.propertyExists("absent"));
        assertNull(received.getStringProperty("absent"));
        List<String> names = new ArrayList<>();
        for (Enumeration<?> e = received.getPropertyNames(); e.hasMoreElements(); ) {
            names.add((String) e.nextElement());
        }
        assertTrue(names.containsAll(List.of("bool", "byte", "short", "int", "long", "float", "double", "string",
                "empty", "object")), () -> "property names " + names);
    }

    static Stream<Arguments> bodySizes() {
        return Stream.of(Transport.values())
                .flatMap(t -> Stream.of(0, 1, 1000, ONE_MB).map(size -> Arguments.of(t, size)));
    }

    @ParameterizedTest(name = "{0} {1} bytes")
    @MethodSource("bodySizes")
    void bytesBodyArrivesIdentical(Transport transport, int size) throws Exception {
        Session session = WHARF.connect(transport).createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue queue = session.createQueue(WHARF.queueName("bytes"));
        MessageConsumer consumer = session.createConsumer(queue);
        byte[] body = new byte[size];
        new Random(size).nextBytes(body);
        BytesMessage sent = session.createBytesMessage();
        if (size > 0) {
            sent.writeBytes(body);
        }

        session.createProducer(queue).send(sent);

        BytesMessage received = assertInstanceOf(BytesMessage.class, Receive.next(consumer));
        assertEquals(size, received.getBodyLength());
        if (size > 0) {
            byte[] read = new byte[size];
            assertEquals(size, received.readBytes(read));
            assertArrayEquals(body, read);
        }
        assertThrows(MessageEOFException.class, received::readByte, "body has no more bytes than were sent");
    }

    @ParameterizedTest(name = "{0} {1} chars")
    @MethodSource("bodySizes")
    void textBodyArrivesIdentical(Transport transport, int size) throws Exception {
        Session session = WHARF.connect(transport).createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue queue = session.createQueue(WHARF.queueName("text"));
        MessageConsumer consumer = session.createConsumer(queue);
        String text = text(size);

        session.createProducer(queue).send(session.createTextMessage(text));

        assertEquals(text, Receive.nextText(consumer).getText());
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void textMessageWithoutTextArrivesWithNullText(Transport transport) throws Exception {
        Session session = WHARF.connect(transport).createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue queue = session.createQueue(WHARF.queueName("nulltext"));
        MessageConsumer consumer = session.createConsumer(queue);

        session.createProducer(queue).send(session.createTextMessage());

        assertNull(Receive.nextText(consumer).getText());
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void changingAMessageAfterSendDoesNotChangeWhatWasSent(Transport transport) throws Exception {
        Session session = WHARF.connect(transport).createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue queue = session.createQueue(WHARF.queueName("reuse"));
        MessageProducer producer = session.createProducer(queue);
        producer.setDeliveryMode(DeliveryMode.NON_PERSISTENT);
        MessageConsumer consumer = session.createConsumer(queue);
        TextMessage message = session.createTextMessage("first");
        message.setStringProperty("p", "first");

        producer.send(message);
        message.setText("second");
        message.setStringProperty("p", "second");
        producer.send(message);

        TextMessage first = Receive.nextText(consumer);
        TextMessage second = Receive.nextText(consumer);
        assertEquals(List.of("first", "first"), List.of(first.getText(), first.getStringProperty("p")));
        assertEquals(List.of("second", "second"), List.of(second.getText(), second.getStringProperty("p")));
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void receivedBodyAndPropertiesAreReadOnlyUntilCleared(Transport transport) throws Exception {
        Session session = WHARF.connect(transport).createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue queue = session.createQueue(WHARF.queueName("readonly"));
        MessageProducer producer = session.createProducer(queue);
        MessageConsumer consumer = session.createConsumer(queue);
        TextMessage text = session.createTextMessage("text");
        text.setStringProperty("p", "v");
        producer.send(text);
        BytesMessage bytes = session.createBytesMessage();
        bytes.writeBytes(new byte[]{1, 2, 3});
        producer.send(bytes);

        TextMessage receivedText = Receive.nextText(consumer);
        assertThrows(MessageNotWriteableException.class, () -> receivedText.setText("changed"));
        assertThrows(MessageNotWriteableException.class, () -> receivedText.setStringProperty("p", "changed"));
        assertEquals("text", receivedText.getText());
        receivedText.clearBody();
        receivedText.setText("writable after clearBody");
        assertEquals("writable after clearBody", receivedText.getText());
        receivedText.clearProperties();
        receivedText.setStringProperty("p", "writable after clearProperties");

        BytesMessage receivedBytes = assertInstanceOf(BytesMessage.class, Receive.next(consumer));
        assertThrows(MessageNotWriteableException.class, () -> receivedBytes.writeByte((byte) 4));
        assertEquals(1, receivedBytes.readByte(), "a received BytesMessage is ready to read");
    }

    private static String text(int length) {
        String alphabet = "abcdefghijklmnopqrstuvwxyz0123456789 éü✓";
        Random random = new Random(length);
        StringBuilder sb = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            sb.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        return sb.toString();
    }

    private static void assertBetween(long low, long high, long actual, String what) {
        assertTrue(actual >= low && actual <= high, what + " " + actual + " not within [" + low + ", " + high + "]");
    }
}
