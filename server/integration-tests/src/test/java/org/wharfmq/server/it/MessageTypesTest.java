package org.wharfmq.server.it;

import org.wharfmq.server.TestUsers;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import javax.jms.BytesMessage;
import javax.jms.Connection;
import javax.jms.JMSException;
import javax.jms.MapMessage;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageEOFException;
import javax.jms.MessageFormatException;
import javax.jms.MessageNotReadableException;
import javax.jms.MessageNotWriteableException;
import javax.jms.MessageProducer;
import javax.jms.ObjectMessage;
import javax.jms.Queue;
import javax.jms.Session;
import javax.jms.StreamMessage;
import javax.jms.TextMessage;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * JMS 2.0 chapter 3 through a real server: every message type arrives as the type it was sent as, with its body,
 * the conversion tables apply on the receiving side, received bodies and properties are read-only, and the
 * provider-set JMSX properties are there.
 */
@Timeout(60)
class MessageTypesTest {

    @RegisterExtension
    static final WharfServerExtension WHARF = WharfServerExtension.withUsers(TestUsers.of("alice", "bob", "carol"));

    private record Pair(Session session, MessageProducer producer, MessageConsumer consumer) {
    }

    private static Pair pair(Connection connection, String purpose) throws JMSException {
        Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue queue = session.createQueue(WHARF.queueName(purpose));
        return new Pair(session, session.createProducer(queue), session.createConsumer(queue));
    }

    /** 3.11: each of the six message types keeps its type and body across the server. */
    @ParameterizedTest
    @EnumSource(Transport.class)
    void everyMessageTypeArrivesWithItsBody(Transport transport) throws Exception {
        Pair p = pair(WHARF.connect(transport), "types");
        Session s = p.session();

        MapMessage map = s.createMapMessage();
        map.setInt("qty", 3);
        map.setString("sku", "A-1");
        map.setBytes("raw", new byte[]{1, 2});
        map.setChar("grade", 'B');
        StreamMessage stream = s.createStreamMessage();
        stream.writeLong(7L);
        stream.writeString("x");
        stream.writeBytes(new byte[]{9});
        HashMap<String, List<Integer>> object = new HashMap<>(Map.of("k", new ArrayList<>(List.of(1, 2))));
        BytesMessage bytes = s.createBytesMessage();
        bytes.writeUTF("héllo");
        for (Message m : List.of(s.createMessage(), s.createTextMessage("text"), bytes, map, stream, s.createObjectMessage(object))) {
            p.producer().send(m);
        }

        Message plain = Receive.next(p.consumer());
        assertFalse(plain instanceof TextMessage || plain instanceof BytesMessage || plain instanceof MapMessage
                || plain instanceof StreamMessage || plain instanceof ObjectMessage, "a plain Message has no body type");
        assertEquals("text", assertInstanceOf(TextMessage.class, Receive.next(p.consumer())).getText());
        assertEquals("héllo", assertInstanceOf(BytesMessage.class, Receive.next(p.consumer())).readUTF());

        MapMessage gotMap = assertInstanceOf(MapMessage.class, Receive.next(p.consumer()));
        assertEquals(3, gotMap.getInt("qty"));
        assertEquals("3", gotMap.getString("qty"), "3.11.4: int reads as String");
        assertEquals(3L, gotMap.getLong("qty"), "3.11.4: int reads as long");
        assertThrows(MessageFormatException.class, () -> gotMap.getShort("qty"), "3.11.4: int does not read as short");
        assertEquals("A-1", gotMap.getString("sku"));
        assertArrayEquals(new byte[]{1, 2}, gotMap.getBytes("raw"));
        assertEquals('B', gotMap.getChar("grade"));
        assertEquals(List.of("qty", "sku", "raw", "grade"), Collections.list(gotMap.getMapNames()));

        StreamMessage gotStream = assertInstanceOf(StreamMessage.class, Receive.next(p.consumer()));
        assertThrows(MessageFormatException.class, gotStream::readInt, "3.11.3: long does not read as int");
        assertEquals("7", gotStream.readString(), "a failed read leaves the value in place");
        assertEquals("x", gotStream.readString());
        byte[] chunk = new byte[4];
        assertEquals(1, gotStream.readBytes(chunk));
        assertEquals(9, chunk[0]);
        assertThrows(MessageEOFException.class, gotStream::readBoolean);

        ObjectMessage gotObject = assertInstanceOf(ObjectMessage.class, Receive.next(p.consumer()));
        assertEquals(object, gotObject.getObject());
    }

    /** 3.11.2 and 3.10: a received message's body and properties are read-only until cleared. */
    @Test
    void receivedBodiesAndPropertiesAreReadOnly() throws Exception {
        Pair p = pair(WHARF.connect(Transport.VM), "readonly");
        Session s = p.session();
        TextMessage text = s.createTextMessage("t");
        text.setStringProperty("p", "v");
        p.producer().send(text);
        p.producer().send(s.createMapMessage());
        p.producer().send(s.createStreamMessage());
        p.producer().send(s.createObjectMessage("o"));
        BytesMessage bytes = s.createBytesMessage();
        bytes.writeInt(1);
        assertThrows(MessageNotReadableException.class, bytes::readInt, "a new BytesMessage is write-only");
        p.producer().send(bytes);

        TextMessage gotText = (TextMessage) Receive.next(p.consumer());
        assertThrows(MessageNotWriteableException.class, () -> gotText.setText("u"));
        assertThrows(MessageNotWriteableException.class, () -> gotText.setStringProperty("q", "w"));
        gotText.clearProperties();
        gotText.setStringProperty("q", "w");
        gotText.clearBody();
        gotText.setText("u");
        assertThrows(MessageNotWriteableException.class, () -> ((MapMessage) Receive.next(p.consumer())).setInt("a", 1));
        StreamMessage gotStream = (StreamMessage) Receive.next(p.consumer());
        assertThrows(MessageNotWriteableException.class, () -> gotStream.writeInt(1));
        ObjectMessage gotObject = (ObjectMessage) Receive.next(p.consumer());
        assertThrows(MessageNotWriteableException.class, () -> gotObject.setObject("p"));
        BytesMessage gotBytes = (BytesMessage) Receive.next(p.consumer());
        assertThrows(MessageNotWriteableException.class, () -> gotBytes.writeInt(2));
        assertEquals(1, gotBytes.readInt());
    }

    /** 3.5.9: JMSXDeliveryCount is set on receipt and counts redeliveries. */
    @Test
    void deliveryCountCountsRedeliveries() throws Exception {
        Connection connection = WHARF.connect(Transport.VM);
        Session session = connection.createSession(false, Session.CLIENT_ACKNOWLEDGE);
        Queue queue = session.createQueue(WHARF.queueName("jmsx.count"));
        session.createProducer(queue).send(session.createTextMessage("again"));
        MessageConsumer consumer = session.createConsumer(queue);
        Message first = Receive.next(consumer);
        assertEquals(1, first.getIntProperty("JMSXDeliveryCount"));
        assertFalse(first.getJMSRedelivered());
        session.recover();
        Message second = Receive.next(consumer);
        assertEquals(2, second.getIntProperty("JMSXDeliveryCount"));
        assertTrue(second.getJMSRedelivered());
        second.acknowledge();
    }

    /** 3.5.9: JMSXUserID is the sender's user name (Wharf: the user the server authenticated). */
    @Test
    void userIdIsTheConnectionsUserName() throws Exception {
        Connection named = WHARF.track(WHARF.factory(Transport.TCP).createConnection("alice", TestUsers.password("alice")));
        Connection anonymous = WHARF.connect(Transport.TCP);
        String queueName = WHARF.queueName("jmsx.user");
        Session namedSession = named.createSession(false, Session.AUTO_ACKNOWLEDGE);
        TextMessage sent = namedSession.createTextMessage("from alice");
        namedSession.createProducer(namedSession.createQueue(queueName)).send(sent);
        assertEquals("alice", sent.getStringProperty("JMSXUserID"), "the provider sets it on the sent message");
        Session anonymousSession = anonymous.createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue queue = anonymousSession.createQueue(queueName);
        anonymousSession.createProducer(queue).send(anonymousSession.createTextMessage("from nobody"));

        MessageConsumer consumer = anonymousSession.createConsumer(queue);
        assertEquals("alice", Receive.next(consumer).getStringProperty("JMSXUserID"));
        Message second = Receive.next(consumer);
        assertFalse(second.propertyExists("JMSXUserID"), "no user name, no JMSXUserID");
        assertTrue(Collections.list(named.getMetaData().getJMSXPropertyNames()).containsAll(
                List.of("JMSXUserID", "JMSXDeliveryCount", "JMSXGroupID", "JMSXGroupSeq")));
    }

    /** 3.5.9: JMSXGroupID and JMSXGroupSeq travel as the application set them, with their spec types enforced. */
    @Test
    void groupPropertiesTravelWithTheirTypes() throws Exception {
        Pair p = pair(WHARF.connect(Transport.VM), "jmsx.group");
        Message m = p.session().createMessage();
        assertThrows(MessageFormatException.class, () -> m.setStringProperty("JMSXGroupSeq", "1"));
        m.setStringProperty("JMSXGroupID", "orders-7");
        m.setIntProperty("JMSXGroupSeq", 3);
        p.producer().send(m);
        Message got = Receive.next(p.consumer());
        assertEquals("orders-7", got.getStringProperty("JMSXGroupID"));
        assertEquals(3, got.getObjectProperty("JMSXGroupSeq"));
    }

    /** 3.5.4: properties convert on reading as the property table says. */
    @Test
    void propertyConversionTableAppliesToReceivedMessages() throws Exception {
        Pair p = pair(WHARF.connect(Transport.VM), "props");
        Message m = p.session().createMessage();
        m.setByteProperty("b", (byte) 5);
        m.setStringProperty("s", "12");
        m.setFloatProperty("f", 0.5f);
        p.producer().send(m);
        Message got = Receive.next(p.consumer());
        assertEquals(5L, got.getLongProperty("b"));
        assertEquals(12, got.getIntProperty("s"));
        assertEquals(0.5, got.getDoubleProperty("f"));
        assertThrows(MessageFormatException.class, () -> got.getIntProperty("f"));
        assertThrows(MessageFormatException.class, () -> got.getBooleanProperty("b"));
        assertThrows(NumberFormatException.class, () -> got.getIntProperty("missing"));
        assertNull(got.getStringProperty("missing"));
    }

    /** 3.11 (JMS 2.0 getBody): each type's body, or MessageFormatException where the type has none to give. */
    @Test
    void getBodyPerMessageType() throws Exception {
        Pair p = pair(WHARF.connect(Transport.VM), "getbody");
        Session s = p.session();
        MapMessage map = s.createMapMessage();
        map.setInt("n", 1);
        StreamMessage stream = s.createStreamMessage();
        stream.writeInt(1);
        BytesMessage bytes = s.createBytesMessage();
        bytes.writeByte((byte) 4);
        for (Message m : List.of(s.createMessage(), s.createTextMessage("t"), bytes, map, stream, s.createObjectMessage(5L))) {
            p.producer().send(m);
        }
        Message plain = Receive.next(p.consumer());
        assertNull(plain.getBody(String.class));
        assertTrue(plain.isBodyAssignableTo(Integer.class));
        Message text = Receive.next(p.consumer());
        assertEquals("t", text.getBody(String.class));
        assertThrows(MessageFormatException.class, () -> text.getBody(Integer.class));
        assertArrayEquals(new byte[]{4}, Receive.next(p.consumer()).getBody(byte[].class));
        assertEquals(Map.of("n", 1), Receive.next(p.consumer()).getBody(Map.class));
        Message gotStream = Receive.next(p.consumer());
        assertFalse(gotStream.isBodyAssignableTo(Object.class));
        assertThrows(MessageFormatException.class, () -> gotStream.getBody(Object.class));
        Message object = Receive.next(p.consumer());
        assertEquals(5L, object.getBody(Long.class));
        assertTrue(object.isBodyAssignableTo(Number.class));
        assertFalse(object.isBodyAssignableTo(String.class));
    }
}
