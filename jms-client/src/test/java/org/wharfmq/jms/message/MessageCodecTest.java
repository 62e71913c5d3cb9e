package org.wharfmq.jms.message;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;
import org.wharfmq.jms.WharfQueue;
import org.wharfmq.jms.WharfTopic;
import org.wharfmq.protocol.frame.MalformedFrameException;
import org.wharfmq.protocol.message.BodyType;
import org.wharfmq.protocol.message.MessageEncoding;
import org.wharfmq.protocol.message.MessageHeaders;
import org.wharfmq.protocol.message.MessageReader;
import org.wharfmq.protocol.message.WireDestination;
import org.wharfmq.protocol.message.WireMessage;

import javax.jms.DeliveryMode;
import javax.jms.JMSException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The client's codec must agree byte for byte with the protocol module's WireMessage and MessageHeaders. */
class MessageCodecTest {
    @Test
    void encodedTextMessageReadsBackWithWireMessage() throws JMSException {
        WharfTextMessage m = new WharfTextMessage("grüße €");
        m.setJMSMessageID("ID:x:1");
        m.setJMSCorrelationID("corr-1");
        m.setJMSReplyTo(new WharfQueue("REPLY"));
        m.setJMSType("order");
        m.setJMSDeliveryMode(DeliveryMode.NON_PERSISTENT);
        m.setJMSPriority(7);
        m.setJMSTimestamp(11);
        m.setJMSExpiration(22);
        m.setJMSDeliveryTime(33);
        m.setIntProperty("i", 1);
        m.setStringProperty("s", "v");
        m.setBooleanProperty("b", true);
        m.setDoubleProperty("d", 1.5);
        ByteBuf buf = Unpooled.buffer();
        MessageCodec.encode(m, WireDestination.queue("ORDERS"), buf);

        MessageHeaders headers = MessageHeaders.read(buf);
        assertEquals("corr-1", headers.correlationId());
        assertEquals(7, headers.priority());
        assertFalse(headers.persistent());

        WireMessage w = WireMessage.decode(buf.duplicate());
        assertEquals(BodyType.TEXT, w.bodyType);
        assertEquals("grüße €", new String(w.body, StandardCharsets.UTF_8));
        assertEquals("ID:x:1", w.messageId);
        assertEquals(WireDestination.queue("ORDERS"), w.destination);
        assertEquals(WireDestination.queue("REPLY"), w.replyTo);
        assertEquals("order", w.type);
        assertEquals(11, w.timestamp);
        assertEquals(22, w.expiration);
        assertEquals(33, w.deliveryTime);
        assertEquals(Map.of("i", 1, "s", "v", "b", true, "d", 1.5), w.properties);
        assertEquals(22, MessageReader.expirationOf(buf));
    }

    @Test
    void wireMessageDecodesIntoJmsMessage() throws JMSException {
        WireMessage w = new WireMessage();
        w.bodyType = BodyType.BYTES;
        w.body = new byte[]{1, 2, 3};
        w.persistent = true;
        w.priority = 2;
        w.messageId = "ID:y:2";
        w.correlationIdBytes = new byte[]{9, 9};
        w.destination = WireDestination.queue("Q");
        w.replyTo = WireDestination.topic("T");
        w.properties.put("n", 5L);
        ByteBuf buf = Unpooled.buffer();
        w.encode(buf);

        WharfMessage m = MessageCodec.decode(buf, 2);
        WharfBytesMessage bytes = assertInstanceOf(WharfBytesMessage.class, m);
        assertEquals(3, bytes.getBodyLength());
        assertEquals(DeliveryMode.PERSISTENT, m.getJMSDeliveryMode());
        assertEquals(2, m.getJMSPriority());
        assertEquals("ID:y:2", m.getJMSMessageID());
        assertArrayEquals(new byte[]{9, 9}, m.getJMSCorrelationIDAsBytes());
        assertEquals(new WharfQueue("Q"), m.getJMSDestination());
        assertEquals(new WharfTopic("T"), m.getJMSReplyTo());
        assertEquals(5L, m.getLongProperty("n"));
        assertTrue(m.getJMSRedelivered());
        assertEquals(2, m.getIntProperty("JMSXDeliveryCount"));
    }

    @Test
    void nullStringPropertySurvives() throws JMSException {
        WharfMessage m = new WharfMessage();
        m.setStringProperty("nothing", null);
        ByteBuf buf = Unpooled.buffer();
        MessageCodec.encode(m, WireDestination.queue("Q"), buf);
        WharfMessage back = MessageCodec.decode(buf, 1);
        assertTrue(back.propertyExists("nothing"));
        assertNull(back.getStringProperty("nothing"));
        assertNull(back.getJMSReplyTo());
    }

    @Test
    void everyPropertyTypeKeepsItsTypeAndValue() throws JMSException {
        WharfMessage m = new WharfMessage();
        java.util.Map<String, Object> values = new java.util.LinkedHashMap<>();
        values.put("bool", true);
        values.put("b", (byte) -3);
        values.put("sh", (short) 300);
        values.put("i", 70_000);
        values.put("l", 1L << 40);
        values.put("f", 1.5f);
        values.put("d", -2.25);
        values.put("s", "text");
        for (java.util.Map.Entry<String, Object> e : values.entrySet()) {
            m.setObjectProperty(e.getKey(), e.getValue());
        }
        ByteBuf buf = Unpooled.buffer();
        MessageCodec.encode(m, WireDestination.queue("Q"), buf);
        WharfMessage back = MessageCodec.decode(buf, 1);
        for (java.util.Map.Entry<String, Object> e : values.entrySet()) {
            assertEquals(e.getValue(), back.getObjectProperty(e.getKey()), e.getKey());
        }
    }

    @Test
    void plainMessageHasNoBody() throws JMSException {
        ByteBuf buf = Unpooled.buffer();
        MessageCodec.encode(new WharfMessage(), WireDestination.queue("Q"), buf);
        assertEquals(-1, MessageHeaders.read(buf).bodyLength());
        WharfMessage back = MessageCodec.decode(buf, 1);
        assertEquals(WharfMessage.class, back.getClass());
        assertNull(back.getBody(Object.class));
    }

    @Test
    void aPriorityOutside0To9IsRefusedByTheMessageAndTheDecodingInTheSameWords() throws JMSException {
        WharfMessage m = new WharfMessage();
        String set = assertThrows(JMSException.class, () -> m.setJMSPriority(10)).getMessage();
        assertEquals(MessageEncoding.invalidPriority(10), set);

        ByteBuf buf = Unpooled.buffer();
        MessageCodec.encode(m, WireDestination.queue("Q"), buf);
        buf.setByte(MessageEncoding.PRIORITY_OFFSET, 10);
        assertEquals(set, assertThrows(MalformedFrameException.class, () -> MessageCodec.decode(buf.duplicate(), 1))
                .getMessage());
        assertEquals(set, assertThrows(MalformedFrameException.class, () -> MessageHeaders.read(buf)).getMessage());
    }

    /**
     * The server stores what this client can decode and nothing else: for random damage to messages this client
     * encoded, the server's header read accepts exactly what {@link MessageCodec#decode} decodes, and refuses the
     * rest in the same words. (Bodies are the client's alone: the bodies here cannot be malformed, and the body type,
     * which says how to read a body, is left alone.)
     */
    @Test
    void theServersHeaderReadAcceptsExactlyWhatTheClientDecodes() throws JMSException {
        Random random = new Random(20);
        for (int i = 0; i < 20_000; i++) {
            WharfMessage m = switch (random.nextInt(3)) {
                case 0 -> new WharfMessage();
                case 1 -> new WharfTextMessage(random.nextBoolean() ? null : "t\u00e9xt".repeat(random.nextInt(3)));
                default -> {
                    WharfBytesMessage bytes = new WharfBytesMessage();
                    bytes.writeBytes(new byte[random.nextInt(8)]);
                    yield bytes;
                }
            };
            m.setJMSDeliveryMode(random.nextBoolean() ? DeliveryMode.PERSISTENT : DeliveryMode.NON_PERSISTENT);
            m.setJMSPriority(random.nextInt(10));
            m.setJMSMessageID(random.nextBoolean() ? null : "ID:c:" + i);
            if (random.nextBoolean()) {
                m.setJMSCorrelationIDAsBytes(new byte[random.nextInt(4)]);
            } else {
                m.setJMSCorrelationID(random.nextBoolean() ? null : "c" + i);
            }
            m.setJMSReplyTo(random.nextBoolean() ? null : new WharfTopic("r/" + i));
            m.setJMSType(random.nextBoolean() ? null : "type");
            if (random.nextBoolean()) {
                m.setStringProperty("s", random.nextBoolean() ? null : "v");
            }
            if (random.nextBoolean()) {
                m.setLongProperty("l", i);
            }
            ByteBuf buf = Unpooled.buffer();
            MessageCodec.encode(m, WireDestination.queue("Q" + i), buf);
            if (random.nextInt(8) == 0) {
                buf.writerIndex(random.nextInt(buf.writerIndex()));
            } else {
                int at = 1 + random.nextInt(buf.writerIndex() - 1); // another body type is another body encoding
                buf.setByte(at, random.nextBoolean() ? random.nextInt(256) : buf.getByte(at) + random.nextInt(5) - 2);
            }
            String server = outcome(() -> MessageHeaders.read(buf));
            String client = outcome(() -> MessageCodec.decode(buf.duplicate(), 1));
            assertEquals(server, client, ByteBufUtil.hexDump(buf));
        }
    }

    private static String outcome(Runnable read) {
        try {
            read.run();
            return "accepted";
        } catch (MalformedFrameException e) {
            return "refused: " + e.getMessage();
        }
    }
}
