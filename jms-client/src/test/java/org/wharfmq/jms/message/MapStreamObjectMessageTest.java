package org.wharfmq.jms.message;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;
import org.wharfmq.protocol.message.WireDestination;

import javax.jms.JMSException;
import javax.jms.MessageEOFException;
import javax.jms.MessageFormatException;
import javax.jms.MessageNotReadableException;
import javax.jms.MessageNotWriteableException;
import java.io.Serializable;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** MapMessage, StreamMessage and ObjectMessage: body encodings, the JMS conversion tables, read/write states. */
class MapStreamObjectMessageTest {

    private static WharfMessage roundTrip(WharfMessage m) throws JMSException {
        ByteBuf buf = Unpooled.buffer();
        MessageCodec.encode(m, WireDestination.queue("Q"), buf);
        WharfMessage decoded = MessageCodec.decode(buf, 1);
        assertEquals(0, buf.readableBytes(), "decoder must consume the whole message");
        return decoded;
    }

    // ---- MapMessage ----

    @Test
    void mapMessageRoundTripsEveryType() throws JMSException {
        WharfMapMessage m = new WharfMapMessage();
        m.setBoolean("bool", true);
        m.setByte("byte", (byte) -3);
        m.setShort("short", (short) 300);
        m.setChar("char", 'é');
        m.setInt("int", 70_000);
        m.setLong("long", 1L << 40);
        m.setFloat("float", 1.5f);
        m.setDouble("double", 2.25);
        m.setString("string", "grüße");
        m.setString("nullString", null);
        m.setBytes("bytes", new byte[]{1, 2, 3}, 1, 2);

        WharfMapMessage r = assertInstanceOf(WharfMapMessage.class, roundTrip(m));
        assertTrue(r.getBoolean("bool"));
        assertEquals(-3, r.getByte("byte"));
        assertEquals(300, r.getShort("short"));
        assertEquals('é', r.getChar("char"));
        assertEquals(70_000, r.getInt("int"));
        assertEquals(1L << 40, r.getLong("long"));
        assertEquals(1.5f, r.getFloat("float"));
        assertEquals(2.25, r.getDouble("double"));
        assertEquals("grüße", r.getString("string"));
        assertTrue(r.itemExists("nullString"));
        assertNull(r.getString("nullString"));
        assertArrayEquals(new byte[]{2, 3}, r.getBytes("bytes"));
        assertEquals(List.of("bool", "byte", "short", "char", "int", "long", "float", "double", "string", "nullString", "bytes"),
                Collections.list(r.getMapNames()));
    }

    @Test
    void mapMessageConversionTable() throws JMSException {
        WharfMapMessage m = new WharfMapMessage();
        m.setByte("b", (byte) 7);
        m.setString("s", "42");
        m.setFloat("f", 1.5f);
        m.setChar("c", 'x');
        m.setBytes("bytes", new byte[]{1});
        m.setBoolean("bool", true);
        // widening and String parsing are allowed
        assertEquals(7, m.getShort("b"));
        assertEquals(7L, m.getLong("b"));
        assertEquals("7", m.getString("b"));
        assertEquals(42, m.getInt("s"));
        assertEquals(1.5, m.getDouble("f"));
        assertEquals("x", m.getString("c"));
        assertEquals("true", m.getString("bool"));
        // narrowing, float to integral, and cross-family reads are not
        assertThrows(MessageFormatException.class, () -> m.getByte("f"));
        assertThrows(MessageFormatException.class, () -> m.getInt("f"));
        assertThrows(MessageFormatException.class, () -> m.getFloat("b"));
        assertThrows(MessageFormatException.class, () -> m.getBoolean("b"));
        assertThrows(MessageFormatException.class, () -> m.getInt("c"));
        assertThrows(MessageFormatException.class, () -> m.getChar("s"));
        assertThrows(MessageFormatException.class, () -> m.getString("bytes"));
        assertThrows(MessageFormatException.class, () -> m.getBytes("s"));
        assertThrows(MessageFormatException.class, () -> m.getInt("bool"));
        // a missing entry reads as null does: valueOf(null)
        assertFalse(m.getBoolean("missing"));
        assertNull(m.getString("missing"));
        assertNull(m.getBytes("missing"));
        assertThrows(NumberFormatException.class, () -> m.getInt("missing"));
        assertThrows(NullPointerException.class, () -> m.getDouble("missing"));
        assertThrows(NullPointerException.class, () -> m.getChar("missing"));
    }

    @Test
    void mapMessageRefusesOtherObjectsAndBadNames() throws JMSException {
        WharfMapMessage m = new WharfMapMessage();
        assertThrows(MessageFormatException.class, () -> m.setObject("o", new ArrayList<>()));
        assertThrows(IllegalArgumentException.class, () -> m.setInt(null, 1));
        assertThrows(IllegalArgumentException.class, () -> m.setInt("", 1));
        byte[] source = {5};
        m.setObject("bytes", source);
        source[0] = 6;
        assertArrayEquals(new byte[]{5}, (byte[]) m.getObject("bytes"), "setObject must store a copy");
    }

    @Test
    void receivedMapMessageIsReadOnlyUntilClearBody() throws JMSException {
        WharfMapMessage m = new WharfMapMessage();
        m.setInt("a", 1);
        assertEquals(1, m.getInt("a"), "a new MapMessage is readable while being written");
        WharfMapMessage r = (WharfMapMessage) roundTrip(m);
        assertThrows(MessageNotWriteableException.class, () -> r.setInt("b", 2));
        assertEquals(Map.of("a", 1), r.getBody(Map.class));
        assertTrue(r.isBodyAssignableTo(Map.class));
        assertFalse(r.isBodyAssignableTo(String.class));
        r.clearBody();
        assertFalse(r.itemExists("a"));
        r.setInt("b", 2);
        assertEquals(2, r.getInt("b"));
    }

    // ---- StreamMessage ----

    @Test
    void streamMessageRoundTripsInOrder() throws JMSException {
        WharfStreamMessage m = new WharfStreamMessage();
        m.writeBoolean(false);
        m.writeChar('c');
        m.writeInt(-1);
        m.writeString(null);
        m.writeBytes(new byte[]{9, 8});
        m.writeDouble(0.5);
        WharfStreamMessage r = assertInstanceOf(WharfStreamMessage.class, roundTrip(m));
        assertFalse(r.readBoolean());
        assertEquals('c', r.readChar());
        assertEquals(-1L, r.readLong());
        assertNull(r.readString());
        assertArrayEquals(new byte[]{9, 8}, (byte[]) r.readObject());
        assertEquals(0.5, r.readDouble());
        assertThrows(MessageEOFException.class, r::readInt);
    }

    @Test
    void failedStreamConversionDoesNotConsumeTheValue() throws JMSException {
        WharfStreamMessage m = new WharfStreamMessage();
        m.writeString("abc");
        m.writeFloat(2.5f);
        m.reset();
        assertThrows(NumberFormatException.class, m::readInt);
        assertThrows(MessageFormatException.class, m::readChar);
        assertEquals("abc", m.readString(), "the failed reads must leave the value to be read again");
        assertThrows(MessageFormatException.class, m::readLong);
        assertThrows(MessageFormatException.class, () -> m.readBytes(new byte[1]));
        assertEquals(2.5, m.readDouble());
    }

    @Test
    void readBytesReturnsChunksThenMinusOne() throws JMSException {
        WharfStreamMessage m = new WharfStreamMessage();
        m.writeBytes(new byte[]{1, 2, 3, 4, 5});
        m.writeBytes(new byte[]{6, 7});
        m.writeBytes(new byte[0]);
        m.writeObject(null);
        m.writeInt(10);
        m.reset();
        byte[] buf = new byte[2];
        assertEquals(2, m.readBytes(buf));
        assertArrayEquals(new byte[]{1, 2}, buf);
        assertThrows(MessageFormatException.class, m::readInt, "other reads wait until the byte[] value is read");
        assertEquals(2, m.readBytes(buf));
        assertEquals(1, m.readBytes(buf), "the last chunk is shorter than the buffer: the value is done");
        assertEquals(5, buf[0]);
        assertEquals(2, m.readBytes(buf));
        assertArrayEquals(new byte[]{6, 7}, buf);
        assertEquals(-1, m.readBytes(buf), "a value that filled the buffer exactly ends with -1");
        assertEquals(0, m.readBytes(buf), "an empty array reads as 0");
        assertEquals(-1, m.readBytes(buf), "a null value reads as -1");
        assertEquals(10, m.readInt());
    }

    @Test
    void streamMessageStatesAndNullConversions() throws JMSException {
        WharfStreamMessage m = new WharfStreamMessage();
        m.writeString(null);
        assertThrows(MessageNotReadableException.class, m::readString, "write-only until reset");
        m.reset();
        assertThrows(MessageNotWriteableException.class, () -> m.writeInt(1));
        assertThrows(NumberFormatException.class, m::readInt);
        assertThrows(NullPointerException.class, m::readFloat);
        assertFalse(m.readBoolean());
        assertThrows(MessageFormatException.class, () -> m.getBody(Object.class));
        assertFalse(m.isBodyAssignableTo(Object.class));
        m.clearBody();
        assertThrows(MessageFormatException.class, () -> m.writeObject(new Object()));
        m.writeInt(3);
        m.reset();
        assertEquals("3", m.readString());
    }

    // ---- ObjectMessage ----

    /** A class outside every default allow list. */
    record Order(String id, int quantity) implements Serializable {
    }

    @Test
    void objectMessageCopiesAtSetAndRoundTripsDefaultTypes() throws JMSException {
        WharfObjectMessage m = new WharfObjectMessage(DeserializationPolicy.of(DeserializationPolicy.DEFAULT_ALLOW_LIST));
        HashMap<String, Object> value = new HashMap<>(Map.of("n", 1, "d", new BigDecimal("1.10"), "t", LocalDate.of(2026, 1, 2),
                "l", new ArrayList<>(List.of("a", 2L))));
        m.setObject(value);
        value.put("later", true);
        WharfObjectMessage r = assertInstanceOf(WharfObjectMessage.class, roundTrip(m));
        r.setDeserializationPolicy(DeserializationPolicy.of(DeserializationPolicy.DEFAULT_ALLOW_LIST));
        Map<?, ?> back = assertInstanceOf(HashMap.class, r.getObject());
        assertEquals(4, back.size(), "setObject must serialise at once, so later changes are not sent");
        assertEquals(new BigDecimal("1.10"), back.get("d"));
        assertThrows(MessageNotWriteableException.class, () -> r.setObject("x"));
        assertTrue(r.isBodyAssignableTo(Map.class));
        assertFalse(r.isBodyAssignableTo(String.class));
        assertThrows(MessageFormatException.class, () -> r.getBody(String.class));
    }

    @Test
    void objectMessageRefusesClassesOutsideTheAllowList() throws JMSException {
        WharfObjectMessage m = new WharfObjectMessage(DeserializationPolicy.of(DeserializationPolicy.DEFAULT_ALLOW_LIST));
        m.setObject(new ArrayList<>(List.of(new Order("o-1", 3))));
        JMSException e = assertThrows(JMSException.class, m::getObject);
        assertTrue(e.getMessage().contains(Order.class.getName()), e.getMessage());
        assertTrue(e.getMessage().contains("deserializationAllowList"), e.getMessage());

        m.setDeserializationPolicy(DeserializationPolicy.of("java.util.*," + Order.class.getPackageName() + ".*"));
        assertEquals(List.of(new Order("o-1", 3)), m.getObject());
        m.setDeserializationPolicy(DeserializationPolicy.of("org.wharfmq.**,java.util.ArrayList"));
        assertEquals(List.of(new Order("o-1", 3)), m.getObject());
        m.setDeserializationPolicy(DeserializationPolicy.of("org.*,java.util.ArrayList"));
        assertThrows(JMSException.class, m::getObject, "pkg.* covers the package only, not its subpackages");
    }

    @Test
    void allowListPatterns() {
        DeserializationPolicy p = DeserializationPolicy.of("com.acme.*, com.big.**, x.Exact");
        assertTrue(p.allows("com.acme.Order"));
        assertFalse(p.allows("com.acme.sub.Order"));
        assertTrue(p.allows("com.big.a.b.C"));
        assertTrue(p.allows("x.Exact"));
        assertFalse(p.allows("x.Exactly"));
        assertTrue(p.allows("java.lang.Integer"), "boxed primitives are always allowed");
        assertFalse(p.allows("java.util.HashMap"));
        assertTrue(DeserializationPolicy.of("*").allows("anything.At.All"));
        assertThrows(IllegalArgumentException.class, () -> DeserializationPolicy.of("com.*acme"));
        assertFalse(DeserializationPolicy.of(DeserializationPolicy.DEFAULT_ALLOW_LIST).allows("java.lang.ProcessBuilder"));
        assertFalse(DeserializationPolicy.of(DeserializationPolicy.DEFAULT_ALLOW_LIST).allows("java.util.concurrent.Foo"));
        assertTrue(Set.of(DeserializationPolicy.DEFAULT_ALLOW_LIST.split(",")).contains("java.util.*"));
    }

    @Test
    void nullObjectHasNoBody() throws JMSException {
        WharfObjectMessage m = new WharfObjectMessage();
        m.setObject(null);
        WharfObjectMessage r = (WharfObjectMessage) roundTrip(m);
        assertNull(r.getObject());
        assertNull(r.getBody(Serializable.class));
        assertTrue(r.isBodyAssignableTo(String.class));
    }

    @Test
    void jmsxGroupPropertiesHaveTheirSpecTypes() throws JMSException {
        WharfMessage m = new WharfMessage();
        assertThrows(MessageFormatException.class, () -> m.setIntProperty("JMSXGroupID", 1));
        assertThrows(MessageFormatException.class, () -> m.setStringProperty("JMSXGroupSeq", "1"));
        m.setStringProperty("JMSXGroupID", "g");
        m.setIntProperty("JMSXGroupSeq", 2);
        WharfMessage r = roundTrip(m);
        assertEquals("g", r.getStringProperty("JMSXGroupID"));
        assertEquals(2, r.getIntProperty("JMSXGroupSeq"));
    }
}
