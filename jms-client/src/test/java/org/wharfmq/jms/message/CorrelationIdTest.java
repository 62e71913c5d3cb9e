package org.wharfmq.jms.message;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;
import org.wharfmq.protocol.message.MessageHeaders;
import org.wharfmq.protocol.message.WireDestination;

import javax.jms.JMSException;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * getJMSCorrelationID and getJMSCorrelationIDAsBytes for ids set either way, before and after the wire: a byte id
 * reads as "ID:" and lowercase hex, the string the server's selectors see; a string id reads back as set.
 */
class CorrelationIdTest {

    @Test
    void aByteIdReadsAsIdAndLowercaseHexAndItsBytesComeBack() throws JMSException {
        WharfMessage m = new WharfTextMessage();
        byte[] id = {(byte) 0xc0, (byte) 0xa8, 0, 0x7f, (byte) 0x80, '1'};
        m.setJMSCorrelationIDAsBytes(id);
        id[0] = 0; // the message keeps its own copy
        assertEquals("ID:c0a8007f8031", m.getJMSCorrelationID());
        assertArrayEquals(new byte[]{(byte) 0xc0, (byte) 0xa8, 0, 0x7f, (byte) 0x80, '1'}, m.getJMSCorrelationIDAsBytes());

        WharfMessage received = MessageCodec.decode(encode(m), 1);
        assertEquals("ID:c0a8007f8031", received.getJMSCorrelationID());
        assertArrayEquals(new byte[]{(byte) 0xc0, (byte) 0xa8, 0, 0x7f, (byte) 0x80, '1'}, received.getJMSCorrelationIDAsBytes());
        assertEquals(received.getJMSCorrelationID(), MessageHeaders.read(encode(m)).correlationId(),
                "the server's selectors must see the string the client reports");
    }

    @Test
    void aStringIdReadsBackAsSetAndItsBytesFollowTheSameForm() throws JMSException {
        WharfMessage m = new WharfMessage();
        m.setJMSCorrelationID("ID:0ABC");
        assertEquals("ID:0ABC", m.getJMSCorrelationID());
        assertArrayEquals(new byte[]{0x0a, (byte) 0xbc}, m.getJMSCorrelationIDAsBytes());
        WharfMessage received = MessageCodec.decode(encode(m), 1);
        assertEquals("ID:0ABC", received.getJMSCorrelationID());
        assertEquals("ID:0ABC", MessageHeaders.read(encode(m)).correlationId());

        m.setJMSCorrelationID("ID:wharf-7-1:42"); // a message id: not hex digits
        assertArrayEquals("ID:wharf-7-1:42".getBytes(StandardCharsets.UTF_8), m.getJMSCorrelationIDAsBytes());
        m.setJMSCorrelationIDAsBytes(new byte[0]);
        assertEquals("ID:", m.getJMSCorrelationID());
        assertArrayEquals(new byte[0], m.getJMSCorrelationIDAsBytes());
        m.setJMSCorrelationID(null);
        assertNull(m.getJMSCorrelationID());
        assertNull(m.getJMSCorrelationIDAsBytes());
    }

    private static ByteBuf encode(WharfMessage m) throws JMSException {
        ByteBuf buf = Unpooled.buffer();
        MessageCodec.encode(m, WireDestination.queue("Q"), buf);
        return buf;
    }
}
