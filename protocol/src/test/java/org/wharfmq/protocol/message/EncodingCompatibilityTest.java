package org.wharfmq.protocol.message;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The encoding does not change: bytes captured from the encoder that wrote the journals until the message reader
 * and writer were merged (issue 20) are still read field for field, and are still what the writer writes, byte for
 * byte. The bytes are annotated field by field (docs/protocol.md, "Message encoding").
 */
class EncodingCompatibilityTest {

    /** {@link #everything()} as the old encoder wrote it. */
    static final byte[] EVERYTHING = hex(
            "02", "01", "07",                                      // TEXT, persistent, priority 7
            "0000018bcfe5687b", "0000018bcfe65428", "0000018bcfe56efd", // timestamp, expiration, deliveryTime
            "0000000e", "49443a77686172662d312d323a33",            // messageId "ID:wharf-1-2:3"
            "00000007", "636f72722dc3a9",                          // correlationId "corr-é"
            "01", "00000006", "4f5244455253",                      // destination queue ORDERS
            "04", "00000007", "544d502e542e31",                    // replyTo temporary topic TMP.T.1
            "00000005", "6f72646572",                              // type "order"
            "0000007a", "0008",                                    // properties: 122 bytes, 8 of them
            "00000004", "626f6f6c", "01", "01",                    // bool: boolean true
            "00000004", "62797465", "02", "fd",                    // byte: byte -3
            "00000005", "73686f7274", "03", "012c",                // short: short 300
            "00000003", "696e74", "04", "00011170",                // int: int 70000
            "00000004", "6c6f6e67", "05", "0000010000000000",      // long: long 2^40
            "00000005", "666c6f6174", "06", "3fc00000",            // float: float 1.5
            "00000006", "646f75626c65", "07", "c002000000000000",  // double: double -2.25
            "00000006", "737472696e67", "08", "0000000b", "6772c3bcc39f6520e282ac", // string: "grüße €"
            "0000000d", "68c3a96c6c6f2c207768617266");             // body: 13 bytes, "héllo, wharf"

    /** {@link #byteCorrelationIdNoBody()} as the old encoder wrote it. */
    static final byte[] BYTE_CORRELATION_ID = hex(
            "01", "02", "00",                                      // BYTES, correlation id as bytes, priority 0
            "0000000000000000", "0000000000000000", "0000000000000000", // no timestamp, expiration, delivery time
            "ffffffff",                                            // no messageId
            "00000004", "0001feff",                                // correlationId: 4 bytes
            "02", "0000000d", "7072696365732f66782f474250",        // destination topic prices/fx/GBP
            "00",                                                  // no replyTo
            "ffffffff",                                            // no type
            "00000002", "0000",                                    // properties: 2 bytes, none
            "ffffffff");                                           // no body

    /** Every header set, a reply-to, a type, one property of each type and a body. */
    static WireMessage everything() {
        WireMessage m = new WireMessage();
        m.bodyType = BodyType.TEXT;
        m.persistent = true;
        m.priority = 7;
        m.timestamp = 1_700_000_000_123L;
        m.expiration = 1_700_000_060_456L;
        m.deliveryTime = 1_700_000_001_789L;
        m.messageId = "ID:wharf-1-2:3";
        m.correlationId = "corr-\u00e9";
        m.destination = WireDestination.queue("ORDERS");
        m.replyTo = new WireDestination(WireDestination.Kind.TEMPORARY_TOPIC, "TMP.T.1");
        m.type = "order";
        m.properties = everyPropertyType();
        m.body = "h\u00e9llo, wharf".getBytes(StandardCharsets.UTF_8);
        return m;
    }

    /** One property of each of the eight types, in this order. */
    static Map<String, Object> everyPropertyType() {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("bool", true);
        p.put("byte", (byte) -3);
        p.put("short", (short) 300);
        p.put("int", 70_000);
        p.put("long", 1L << 40);
        p.put("float", 1.5f);
        p.put("double", -2.25d);
        p.put("string", "gr\u00fc\u00dfe \u20ac");
        return p;
    }

    /** The other branches: a correlation id set as bytes, non-persistent, no reply-to, type, properties or body. */
    static WireMessage byteCorrelationIdNoBody() {
        WireMessage m = new WireMessage();
        m.bodyType = BodyType.BYTES;
        m.persistent = false;
        m.priority = 0;
        m.correlationIdBytes = new byte[]{0, 1, (byte) 0xfe, (byte) 0xff};
        m.destination = WireDestination.topic("prices/fx/GBP");
        return m;
    }

    @Test
    void theWriterWritesWhatTheOldEncoderWrote() {
        assertEquals(ByteBufUtil.hexDump(EVERYTHING), ByteBufUtil.hexDump(encode(everything())));
        assertEquals(ByteBufUtil.hexDump(BYTE_CORRELATION_ID), ByteBufUtil.hexDump(encode(byteCorrelationIdNoBody())));
    }

    @Test
    void theReaderReadsEveryFieldTheOldEncoderWrote() {
        WireMessage expected = everything();
        WireMessage m = WireMessage.decode(Unpooled.wrappedBuffer(EVERYTHING));
        assertEquals(BodyType.TEXT, m.bodyType);
        assertTrue(m.persistent);
        assertEquals(7, m.priority);
        assertEquals(expected.timestamp, m.timestamp);
        assertEquals(expected.expiration, m.expiration);
        assertEquals(expected.deliveryTime, m.deliveryTime);
        assertEquals("ID:wharf-1-2:3", m.messageId);
        assertEquals("corr-\u00e9", m.correlationId);
        assertNull(m.correlationIdBytes);
        assertEquals(WireDestination.queue("ORDERS"), m.destination);
        assertEquals(expected.replyTo, m.replyTo);
        assertEquals("order", m.type);
        assertEquals(everyPropertyType(), m.properties);
        for (Map.Entry<String, Object> p : everyPropertyType().entrySet()) {
            assertEquals(p.getValue().getClass(), m.properties.get(p.getKey()).getClass(), p.getKey());
        }
        assertArrayEquals(expected.body, m.body);

        WireMessage bytes = WireMessage.decode(Unpooled.wrappedBuffer(BYTE_CORRELATION_ID));
        assertEquals(BodyType.BYTES, bytes.bodyType);
        assertFalse(bytes.persistent);
        assertEquals(0, bytes.priority);
        assertArrayEquals(new byte[]{0, 1, (byte) 0xfe, (byte) 0xff}, bytes.correlationIdBytes);
        assertNull(bytes.correlationId);
        assertNull(bytes.messageId);
        assertEquals(WireDestination.topic("prices/fx/GBP"), bytes.destination);
        assertNull(bytes.replyTo);
        assertNull(bytes.type);
        assertTrue(bytes.properties.isEmpty());
        assertNull(bytes.body);
    }

    @Test
    void theServersHeaderReadReadsTheOldBytes() {
        ByteBuf buf = Unpooled.wrappedBuffer(EVERYTHING);
        MessageHeaders h = MessageHeaders.read(buf);
        assertEquals(BodyType.TEXT, h.bodyType());
        assertTrue(h.persistent());
        assertEquals(7, h.priority());
        assertEquals(1_700_000_060_456L, h.expiration());
        assertEquals("ID:wharf-1-2:3", h.messageId());
        assertEquals("corr-\u00e9", h.correlationId());
        assertEquals(WireDestination.queue("ORDERS"), h.destination());
        assertEquals("order", h.type());
        assertEquals(13, h.bodyLength());
        assertEquals(everyPropertyType(), h.readProperties(buf));
        for (Map.Entry<String, Object> p : everyPropertyType().entrySet()) { // each read in place, as decoded
            Object inPlace = h.property(buf, p.getKey(), p.getKey().getBytes(StandardCharsets.UTF_8));
            if (p.getValue() instanceof byte[] bytesValue) {
                assertArrayEquals(bytesValue, (byte[]) inPlace, p.getKey());
            } else {
                assertEquals(p.getValue(), inPlace, p.getKey());
            }
        }
        assertNull(h.property(buf, "absent", "absent".getBytes(StandardCharsets.UTF_8)));

        MessageHeaders bytes = MessageHeaders.read(Unpooled.wrappedBuffer(BYTE_CORRELATION_ID));
        assertEquals("ID:0001feff", bytes.correlationId());
        assertEquals(-1, bytes.bodyLength());
    }

    private static byte[] encode(WireMessage m) {
        ByteBuf buf = Unpooled.buffer();
        m.encode(buf);
        return ByteBufUtil.getBytes(buf);
    }

    private static byte[] hex(String... fields) {
        return ByteBufUtil.decodeHexDump(String.join("", fields));
    }
}
