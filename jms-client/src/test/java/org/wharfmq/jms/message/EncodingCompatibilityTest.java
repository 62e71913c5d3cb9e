package org.wharfmq.jms.message;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;
import org.wharfmq.jms.WharfQueue;
import org.wharfmq.protocol.message.WireDestination;

import javax.jms.DeliveryMode;
import javax.jms.JMSException;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The client's encoding does not change: bytes captured from the client's encoder before the message reader and
 * writer were merged (issue 20) are what it still writes, byte for byte, and it still reads them. The protocol
 * module's test of the same name pins the header section; these pin what only the client writes: a null String
 * property and the MapMessage and StreamMessage bodies, with every tagged value type.
 */
class EncodingCompatibilityTest {

    /** {@link #map()} as the old client encoder wrote it. */
    static final byte[] MAP = hex(
            "03", "02", "09",                                      // MAP, correlation id as bytes (not persistent), 9
            "0000000000000000", "0000000000000000", "0000000000000000", // no timestamp, expiration, delivery time
            "00000006", "49443a633a39",                            // messageId "ID:c:9"
            "00000002", "cafe",                                    // correlationId: 2 bytes
            "01", "00000001", "51",                                // destination queue Q
            "01", "00000005", "5245504c59",                        // replyTo queue REPLY
            "ffffffff",                                            // no type
            "0000001c", "0002",                                    // properties: 28 bytes, 2 of them
            "00000007", "6e6f7468696e67", "08", "ffffffff",        // nothing: string null
            "00000001", "6e", "04", "00000005",                    // n: int 5
            "0000009d", "0000000b",                                // body: 157 bytes, 11 entries
            "00000004", "626f6f6c", "01", "01",                    // bool: boolean true
            "00000004", "62797465", "02", "fd",                    // byte: byte -3
            "00000005", "73686f7274", "03", "012c",                // short: short 300
            "00000004", "63686172", "09", "00e9",                  // char: char 'é'
            "00000003", "696e74", "04", "00011170",                // int: int 70000
            "00000004", "6c6f6e67", "05", "0000010000000000",      // long: long 2^40
            "00000005", "666c6f6174", "06", "3fc00000",            // float: float 1.5
            "00000006", "646f75626c65", "07", "c002000000000000",  // double: double -2.25
            "00000006", "737472696e67", "08", "00000007", "6772c3bcc39f65", // string: "grüße"
            "00000004", "6e756c6c", "00",                          // null: null
            "00000005", "6279746573", "0a", "00000003", "010203"); // bytes: byte[] {1, 2, 3}

    /** {@link #stream()} as the old client encoder wrote it. */
    static final byte[] STREAM = hex(
            "04", "01", "04",                                      // STREAM, persistent, priority 4 (the defaults)
            "0000000000000000", "0000000000000000", "0000000000000000", // no timestamp, expiration, delivery time
            "ffffffff", "ffffffff",                                // no messageId, no correlationId
            "01", "00000001", "51",                                // destination queue Q
            "00", "ffffffff",                                      // no replyTo, no type
            "00000002", "0000",                                    // properties: 2 bytes, none
            "00000038",                                            // body: 56 bytes
            "01", "00", "02", "01", "03", "fffe", "09", "0078",    // false, (byte) 1, (short) -2, 'x'
            "04", "00000003", "05", "fffffffffffffffc",            // 3, -4L
            "06", "40b00000", "07", "4019000000000000",            // 5.5f, 6.25
            "08", "00000005", "736576656e", "00",                  // "seven", null
            "0a", "00000002", "0809");                             // byte[] {8, 9}

    /** A MapMessage with one entry of each tagged type, a null String property and a correlation id as bytes. */
    static WharfMapMessage map() throws JMSException {
        WharfMapMessage m = new WharfMapMessage();
        m.setJMSDeliveryMode(DeliveryMode.NON_PERSISTENT);
        m.setJMSPriority(9);
        m.setJMSMessageID("ID:c:9");
        m.setJMSCorrelationIDAsBytes(new byte[]{(byte) 0xca, (byte) 0xfe});
        m.setJMSReplyTo(new WharfQueue("REPLY"));
        m.setStringProperty("nothing", null);
        m.setIntProperty("n", 5);
        m.setBoolean("bool", true);
        m.setByte("byte", (byte) -3);
        m.setShort("short", (short) 300);
        m.setChar("char", '\u00e9');
        m.setInt("int", 70_000);
        m.setLong("long", 1L << 40);
        m.setFloat("float", 1.5f);
        m.setDouble("double", -2.25);
        m.setString("string", "gr\u00fc\u00dfe");
        m.setString("null", null);
        m.setBytes("bytes", new byte[]{1, 2, 3});
        return m;
    }

    /** A StreamMessage with one value of each tagged type. */
    static WharfStreamMessage stream() throws JMSException {
        WharfStreamMessage m = new WharfStreamMessage();
        m.writeBoolean(false);
        m.writeByte((byte) 1);
        m.writeShort((short) -2);
        m.writeChar('x');
        m.writeInt(3);
        m.writeLong(-4);
        m.writeFloat(5.5f);
        m.writeDouble(6.25);
        m.writeString("seven");
        m.writeString(null);
        m.writeBytes(new byte[]{8, 9});
        return m;
    }

    @Test
    void theClientWritesWhatItsOldEncoderWrote() throws JMSException {
        assertEquals(ByteBufUtil.hexDump(MAP), ByteBufUtil.hexDump(encode(map())));
        assertEquals(ByteBufUtil.hexDump(STREAM), ByteBufUtil.hexDump(encode(stream())));
    }

    @Test
    void theClientReadsWhatItsOldEncoderWrote() throws JMSException {
        WharfMapMessage m = assertInstanceOf(WharfMapMessage.class,
                MessageCodec.decode(Unpooled.wrappedBuffer(MAP), 1));
        assertEquals(DeliveryMode.NON_PERSISTENT, m.getJMSDeliveryMode());
        assertEquals(9, m.getJMSPriority());
        assertArrayEquals(new byte[]{(byte) 0xca, (byte) 0xfe}, m.getJMSCorrelationIDAsBytes());
        assertEquals(new WharfQueue("REPLY"), m.getJMSReplyTo());
        assertTrue(m.propertyExists("nothing"));
        assertNull(m.getStringProperty("nothing"));
        assertEquals(5, m.getIntProperty("n"));
        assertEquals(-3, m.getByte("byte"));
        assertEquals('\u00e9', m.getChar("char"));
        assertEquals(1L << 40, m.getLong("long"));
        assertEquals(-2.25, m.getDouble("double"));
        assertEquals("gr\u00fc\u00dfe", m.getString("string"));
        assertTrue(m.itemExists("null"));
        assertArrayEquals(new byte[]{1, 2, 3}, m.getBytes("bytes"));

        WharfStreamMessage s = assertInstanceOf(WharfStreamMessage.class,
                MessageCodec.decode(Unpooled.wrappedBuffer(STREAM), 1));
        assertEquals(false, s.readBoolean());
        assertEquals(1, s.readByte());
        assertEquals(-2, s.readShort());
        assertEquals('x', s.readChar());
        assertEquals(3, s.readInt());
        assertEquals(-4, s.readLong());
        assertEquals(5.5f, s.readFloat());
        assertEquals(6.25, s.readDouble());
        assertEquals("seven", s.readString());
        assertNull(s.readString());
        assertArrayEquals(new byte[]{8, 9}, (byte[]) s.readObject());
    }

    private static byte[] encode(WharfMessage m) throws JMSException {
        ByteBuf buf = Unpooled.buffer();
        MessageCodec.encode(m, WireDestination.queue("Q"), buf);
        return ByteBufUtil.getBytes(buf);
    }

    private static byte[] hex(String... fields) {
        return ByteBufUtil.decodeHexDump(String.join("", fields));
    }
}
