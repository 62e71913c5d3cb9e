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
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BodyTest {
    @Test
    void bytesMessageWritesLikeDataOutputStream() throws Exception {
        WharfBytesMessage m = new WharfBytesMessage();
        m.writeBoolean(true);
        m.writeByte((byte) -2);
        m.writeShort((short) -300);
        m.writeChar('é');
        m.writeInt(0x12345678);
        m.writeLong(-1234567890123L);
        m.writeFloat(1.25f);
        m.writeDouble(-2.5);
        m.writeUTF("héllo \u0000 €");
        m.writeBytes(new byte[]{9, 8, 7}, 1, 2);
        m.writeObject(42);

        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(expected);
        out.writeBoolean(true);
        out.writeByte(-2);
        out.writeShort(-300);
        out.writeChar('é');
        out.writeInt(0x12345678);
        out.writeLong(-1234567890123L);
        out.writeFloat(1.25f);
        out.writeDouble(-2.5);
        out.writeUTF("héllo \u0000 €");
        out.write(new byte[]{8, 7});
        out.writeInt(42);
        m.reset();
        assertEquals(expected.size(), m.getBodyLength());
        assertArrayEquals(expected.toByteArray(), m.getBody(byte[].class));

        assertTrue(m.readBoolean());
        assertEquals(-2, m.readByte());
        assertEquals(-300, m.readShort());
        assertEquals('é', m.readChar());
        assertEquals(0x12345678, m.readInt());
        assertEquals(-1234567890123L, m.readLong());
        assertEquals(1.25f, m.readFloat());
        assertEquals(-2.5, m.readDouble());
        assertEquals("héllo \u0000 €", m.readUTF());
        assertEquals(8, m.readUnsignedByte());
        assertEquals(7, m.readByte());
        byte[] rest = new byte[10];
        assertEquals(4, m.readBytes(rest));
        assertEquals(-1, m.readBytes(rest));
        assertThrows(MessageEOFException.class, m::readByte);
    }

    @Test
    void readPastEndConsumesNothing() throws JMSException {
        WharfBytesMessage m = new WharfBytesMessage();
        m.writeShort((short) 0x0102);
        m.reset();
        assertThrows(MessageEOFException.class, m::readInt);
        assertEquals(0x0102, m.readUnsignedShort());
    }

    @Test
    void bytesMessageModes() throws JMSException {
        WharfBytesMessage m = new WharfBytesMessage();
        assertThrows(MessageNotReadableException.class, m::readByte);
        assertThrows(MessageNotReadableException.class, m::getBodyLength);
        m.writeInt(1);
        m.reset();
        assertThrows(MessageNotWriteableException.class, () -> m.writeInt(2));
        m.clearBody();
        assertThrows(MessageNotReadableException.class, m::readInt);
        m.writeByte((byte) 5);
        m.reset();
        assertEquals(1, m.getBodyLength());
        assertEquals(5, m.readByte());
        m.reset();
        assertEquals(5, m.readByte()); // reset rewinds
    }

    @Test
    void readBytesWithLength() throws JMSException {
        WharfBytesMessage m = new WharfBytesMessage();
        m.writeBytes(new byte[]{1, 2, 3, 4, 5});
        m.reset();
        byte[] b = new byte[4];
        assertEquals(2, m.readBytes(b, 2));
        assertArrayEquals(new byte[]{1, 2, 0, 0}, b);
        assertEquals(3, m.readBytes(b, 4));
        assertEquals(-1, m.readBytes(b, 4));
        assertThrows(IndexOutOfBoundsException.class, () -> m.readBytes(new byte[1], 2));
    }

    @Test
    void writeObjectRejectsOtherTypes() {
        WharfBytesMessage m = new WharfBytesMessage();
        assertThrows(NullPointerException.class, () -> m.writeObject(null));
        assertThrows(MessageFormatException.class, () -> m.writeObject(new Object()));
    }

    @Test
    void malformedUtfIsAFormatError() throws JMSException {
        WharfBytesMessage m = new WharfBytesMessage();
        m.writeShort((short) 2);
        m.writeByte((byte) 0xC0);
        m.writeByte((byte) 0x00);
        m.reset();
        assertThrows(MessageFormatException.class, m::readUTF);
    }

    @Test
    void textMessageReadOnlyAfterReceipt() throws JMSException {
        WharfTextMessage m = roundTrip(new WharfTextMessage("hi"));
        assertEquals("hi", m.getText());
        assertThrows(MessageNotWriteableException.class, () -> m.setText("x"));
        m.clearBody();
        assertNull(m.getText());
        m.setText("again");
        assertEquals("again", m.getBody(String.class));
        assertTrue(m.isBodyAssignableTo(String.class));
        assertFalse(m.isBodyAssignableTo(byte[].class));
        assertThrows(MessageFormatException.class, () -> m.getBody(byte[].class));
    }

    @Test
    void receivedBytesMessageIsReadable() throws JMSException, IOException {
        WharfBytesMessage sent = new WharfBytesMessage();
        sent.writeUTF("abc");
        WharfBytesMessage m = roundTrip(sent);
        assertEquals("abc", m.readUTF());
        assertThrows(MessageNotWriteableException.class, () -> m.writeInt(1));
    }

    @SuppressWarnings("unchecked")
    private static <T extends WharfMessage> T roundTrip(T m) throws JMSException {
        ByteBuf buf = Unpooled.buffer();
        MessageCodec.encode(m, WireDestination.queue("Q"), buf);
        return (T) MessageCodec.decode(buf, 1);
    }
}
