package org.wharfmq.protocol.message;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;
import org.wharfmq.protocol.frame.MalformedFrameException;

import java.nio.charset.StandardCharsets;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/** Messages survive encode → decode, and the server-side header view reads the same values without the body. */
class MessageEncodingTest {

    private static WireMessage sample() {
        WireMessage m = new WireMessage();
        m.bodyType = BodyType.TEXT;
        m.persistent = false;
        m.priority = 7;
        m.timestamp = 1_700_000_000_000L;
        m.expiration = 1_700_000_060_000L;
        m.deliveryTime = 0;
        m.messageId = "ID:abc:1";
        m.correlationId = "ID:abc:0";
        m.destination = WireDestination.queue("REQUEST");
        m.replyTo = WireDestination.queue("REPLY");
        m.type = "order";
        m.properties.put("b", true);
        m.properties.put("y", (byte) -3);
        m.properties.put("s", (short) 300);
        m.properties.put("i", 70000);
        m.properties.put("l", 1L << 40);
        m.properties.put("f", 1.5f);
        m.properties.put("d", 2.25d);
        m.properties.put("str", "h\u00e9llo");
        m.body = "hello, wharf".getBytes(StandardCharsets.UTF_8);
        return m;
    }

    @Test
    void wholeMessageRoundTrips() {
        WireMessage m = sample();
        ByteBuf buf = Unpooled.buffer();
        m.encode(buf);
        WireMessage d = WireMessage.decode(buf);
        assertFalse(buf.isReadable());
        assertEquals(m.bodyType, d.bodyType);
        assertEquals(m.persistent, d.persistent);
        assertEquals(m.priority, d.priority);
        assertEquals(m.timestamp, d.timestamp);
        assertEquals(m.expiration, d.expiration);
        assertEquals(m.messageId, d.messageId);
        assertEquals(m.correlationId, d.correlationId);
        assertNull(d.correlationIdBytes);
        assertEquals(m.destination, d.destination);
        assertEquals(m.replyTo, d.replyTo);
        assertEquals(m.type, d.type);
        assertEquals(m.properties, d.properties);
        assertEquals(Byte.class, d.properties.get("y").getClass());
        assertEquals(Short.class, d.properties.get("s").getClass());
        assertEquals(Float.class, d.properties.get("f").getClass());
        assertArrayEquals(m.body, d.body);
    }

    @Test
    void nullsAndByteCorrelationIdRoundTrip() {
        WireMessage m = new WireMessage();
        m.destination = WireDestination.queue("Q");
        m.correlationIdBytes = new byte[]{0, 1, 2, (byte) 0xff};
        ByteBuf buf = Unpooled.buffer();
        m.encode(buf);
        WireMessage d = WireMessage.decode(buf);
        assertArrayEquals(m.correlationIdBytes, d.correlationIdBytes);
        assertNull(d.correlationId);
        assertNull(d.messageId);
        assertNull(d.replyTo);
        assertNull(d.body);
        assertTrue(d.properties.isEmpty());
    }

    @Test
    void headerViewReadsHeadersAndLazilyProperties() {
        WireMessage m = sample();
        ByteBuf buf = Unpooled.buffer();
        m.encode(buf);
        int readerIndex = buf.readerIndex();
        MessageHeaders h = MessageHeaders.read(buf);
        assertEquals(readerIndex, buf.readerIndex(), "reading headers must not move the buffer");
        assertFalse(h.persistent());
        assertEquals(7, h.priority());
        assertEquals(m.expiration, h.expiration());
        assertEquals("ID:abc:1", h.messageId());
        assertEquals("ID:abc:0", h.correlationId());
        assertEquals(WireDestination.queue("REQUEST"), h.destination());
        assertEquals("order", h.type());
        assertEquals(m.body.length, h.bodyLength());
        Map<String, Object> props = h.readProperties(buf);
        assertEquals(m.properties, props);
    }

    @Test
    void headerViewRejectsATruncatedMessage() {
        ByteBuf buf = Unpooled.buffer();
        sample().encode(buf);
        ByteBuf cut = buf.slice(0, buf.readableBytes() - 3);
        assertThrows(MalformedFrameException.class, () -> MessageHeaders.read(cut));
    }

    @Test
    void headerViewRejectsBadPriority() {
        ByteBuf buf = Unpooled.buffer();
        sample().encode(buf);
        buf.setByte(MessageEncoding.PRIORITY_OFFSET, 12);
        MalformedFrameException e = assertThrows(MalformedFrameException.class, () -> MessageHeaders.read(buf));
        assertTrue(e.getMessage().startsWith("priority 12 is outside 0-9"), e.getMessage());
    }

    @Test
    void unsupportedPropertyTypeIsRefusedAtEncode() {
        WireMessage m = sample();
        m.properties.put("bad", new Object());
        assertThrows(IllegalArgumentException.class, () -> m.encode(Unpooled.buffer()));
    }
}
