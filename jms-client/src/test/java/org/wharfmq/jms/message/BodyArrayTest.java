package org.wharfmq.jms.message;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;
import org.wharfmq.protocol.frame.FrameArray;
import org.wharfmq.protocol.message.WireDestination;

import javax.jms.JMSException;
import javax.jms.MessageNotReadableException;
import javax.jms.MessageNotWriteableException;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.*;

/**
 * A BytesMessage's body handed over as an array, not copied, for code inside the server that passes bodies on
 * unchanged (a message flow: {@link WharfBytesMessage#bodyArray}, {@link WharfBytesMessage#writeBodyArray}): the
 * array is never written by the message afterwards, and a body that is not a whole array of its own is copied.
 */
class BodyArrayTest {

    @Test
    void aReceivedBodyIsHandedOverAsTheMessagesOwnArray() throws JMSException {
        byte[] body = bytes(4052, 1);
        WharfBytesMessage m = (WharfBytesMessage) MessageCodec.decode(LargeBodiesTest.encoded(body), 1);
        byte[] array = m.bodyArray();
        assertArrayEquals(body, array);
        assertSame(array, m.bodyArray(), "the message's own array, not a copy each time");
        assertArrayEquals(body, m.getBody(byte[].class), "the message reads on as before");
    }

    @Test
    void aBodyThatLiesInsideItsFramesArrayIsCopiedOutExactly() throws JMSException {
        byte[] body = bytes(600_000, 2);
        ByteBuf message = LargeBodiesTest.encoded(body);
        ByteBuf frame = FrameArray.allocate(message.readableBytes() + 9);
        frame.writeZero(9).writeBytes(message).skipBytes(9);
        message.release();
        WharfBytesMessage m = (WharfBytesMessage) MessageCodec.decode(frame, 1);
        byte[] array = m.bodyArray();
        assertArrayEquals(body, array, "the body alone, not the frame's whole array");
        assertNotSame(frame.array(), array);
    }

    @Test
    void aBodyWrittenAsAnArrayIsSentAsItIsAndNeverWrittenByTheMessage() throws JMSException {
        byte[] body = bytes(4052, 3);
        byte[] kept = body.clone();
        WharfBytesMessage m = new WharfBytesMessage();
        m.writeBodyArray(body);
        ByteBuf sent = Unpooled.buffer();
        MessageCodec.encode(m, WireDestination.queue("Q"), sent);
        assertArrayEquals(kept, ((WharfBytesMessage) MessageCodec.decode(sent, 1)).getBody(byte[].class));

        m.writeInt(7); // grows the body into an array of its own
        assertArrayEquals(kept, body, "a later write never changes the array it was given");
        m.reset();
        assertEquals(body.length + 4, m.getBodyLength());
    }

    @Test
    void theArrayCallsRefuseAMessageInTheWrongState() throws JMSException {
        WharfBytesMessage written = new WharfBytesMessage();
        written.writeByte((byte) 1);
        IllegalStateException notEmpty = assertThrows(IllegalStateException.class,
                () -> written.writeBodyArray(new byte[]{2}));
        assertTrue(notEmpty.getMessage().contains("has 1 bytes already"), notEmpty.getMessage());
        assertThrows(MessageNotReadableException.class, written::bodyArray);

        WharfBytesMessage received = (WharfBytesMessage) MessageCodec.decode(LargeBodiesTest.encoded(bytes(10, 4)), 1);
        assertThrows(MessageNotWriteableException.class, () -> received.writeBodyArray(new byte[]{2}));
    }

    private static byte[] bytes(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (i * 31 + seed);
        }
        Arrays.fill(b, 0, Math.min(4, n), (byte) seed);
        return b;
    }
}
