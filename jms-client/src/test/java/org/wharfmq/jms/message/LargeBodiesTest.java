package org.wharfmq.jms.message;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;
import org.wharfmq.protocol.frame.FrameArray;
import org.wharfmq.protocol.message.WireDestination;

import javax.jms.JMSException;
import javax.jms.MessageNotWriteableException;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.*;

/**
 * A large BytesMessage body is not copied into its encoding, and not out of a frame the link read into an array of
 * its own ({@link FrameArray}): a 100 MB message was two arrays of 100 MB on each side. From any other buffer it is
 * copied, as a buffer that is used again would change the body under the application.
 */
class LargeBodiesTest {

    private static final int BODY = 600_000;

    @Test
    void aLargeBodyInAFrameArrayIsReadWhereItLiesAndItsArrayIsNeverGivenBackForReuse() throws JMSException {
        byte[] body = randomBytes(BODY, 1);
        ByteBuf frame = frameArrayWith(encoded(body));
        ByteBuf delivered = frame.retainedSlice(); // as a DELIVER holds its message
        frame.release(); // the link lets go of the frame

        WharfBytesMessage m = (WharfBytesMessage) MessageCodec.decode(delivered, 1);
        delivered.release(); // the consumer is done with the delivery
        assertEquals(1, frame.refCnt(), "the message keeps the array from being reused");
        assertEquals(BODY, m.getBodyLength());
        assertEquals(readInt(body, 0), m.readInt(), "read at the body's place in the frame, not the array's start");
        byte[] rest = new byte[BODY - 4];
        assertEquals(BODY - 4, m.readBytes(rest));
        assertArrayEquals(java.util.Arrays.copyOfRange(body, 4, BODY), rest);
        assertEquals(-1, m.readBytes(rest));
        m.reset();
        assertArrayEquals(body, m.getBody(byte[].class));

        int at = indexOf(frame.array(), body);
        frame.array()[at] ^= 1; // nobody writes a FrameArray again; here to show that the body was not copied
        m.reset();
        assertEquals(readInt(body, 0) ^ (1 << 24), m.readInt());

        assertThrows(MessageNotWriteableException.class, () -> m.writeByte((byte) 1));
        m.clearBody();
        m.writeBytes(new byte[]{1, 2, 3});
        assertEquals((byte) (body[0] ^ 1), frame.array()[at], "a body written after clearBody goes to an array of its own");
        m.reset();
        assertEquals(3, m.getBodyLength());
    }

    @Test
    void aLargeBodyInAnyOtherBufferIsCopied() throws JMSException {
        byte[] body = randomBytes(BODY, 2);
        ByteBuf buffer = Unpooled.buffer().writeBytes(encoded(body));
        WharfBytesMessage m = (WharfBytesMessage) MessageCodec.decode(buffer, 1);
        buffer.setZero(0, buffer.capacity()); // a pooled or kept buffer is used again for the next frames
        assertArrayEquals(body, m.getBody(byte[].class));
        assertEquals(1, buffer.refCnt());
    }

    @Test
    void aLargeBodyGoesOutFromTheMessagesOwnArrayAsItWasWhenSent() throws JMSException {
        byte[] body = randomBytes(BODY, 3);
        WharfBytesMessage m = new WharfBytesMessage();
        m.setStringProperty("p", "v");
        m.writeBytes(body, 0, BODY / 2 + 1);
        m.writeBytes(body, BODY / 2 + 1, BODY - (BODY / 2 + 1)); // its array grown past the body: room behind it
        ByteBuf encoding = MessageCodec.encode(m, WireDestination.queue("Q"), UnpooledByteBufAllocator.DEFAULT);
        ByteBuf copied = Unpooled.buffer();
        MessageCodec.encode(m, WireDestination.queue("Q"), copied);
        assertEquals(copied, encoding, "the same bytes as the encoding that copies the body");
        assertInstanceOf(CompositeByteBuf.class, encoding);
        assertTrue(((CompositeByteBuf) encoding).internalComponent(1).readableBytes() == BODY
                && ((CompositeByteBuf) encoding).internalComponent(0).capacity() < 1024, "the headers, then the body");

        m.writeByte((byte) 9); // written after the send, into the same array: past the bytes sent
        m.clearBody();
        m.writeBytes(new byte[BODY]);
        assertEquals(copied, encoding, "what was sent does not change with the message");
        WharfBytesMessage received = (WharfBytesMessage) MessageCodec.decode(encoding, 1);
        assertArrayEquals(body, received.getBody(byte[].class));
        assertEquals("v", received.getStringProperty("p"));
        encoding.release();
        copied.release();

        WharfBytesMessage small = new WharfBytesMessage();
        small.writeBytes(new byte[1000]);
        ByteBuf smallEncoding = MessageCodec.encode(small, WireDestination.queue("Q"), UnpooledByteBufAllocator.DEFAULT);
        assertFalse(smallEncoding instanceof CompositeByteBuf, "a small body is copied: one buffer, one write");
        smallEncoding.release();
    }

    @Test
    void aBodyWrittenInOneGoIsACopyOfTheCallersBytesThatLaterWritesExtend() throws JMSException {
        byte[] body = randomBytes(BODY, 4);
        WharfBytesMessage m = new WharfBytesMessage();
        m.writeBytes(body, 7, BODY - 7);
        byte[] callers = body.clone();
        java.util.Arrays.fill(body, (byte) 0); // the caller's array used again: the body is the bytes as written
        m.writeInt(0x01020304);
        m.writeBytes(callers, 0, 7);
        m.reset();
        byte[] expected = new byte[BODY + 4];
        System.arraycopy(callers, 7, expected, 0, BODY - 7);
        System.arraycopy(new byte[]{1, 2, 3, 4}, 0, expected, BODY - 7, 4);
        System.arraycopy(callers, 0, expected, BODY - 3, 7);
        assertArrayEquals(expected, m.getBody(byte[].class));
        assertThrows(IndexOutOfBoundsException.class, () -> new WharfBytesMessage().writeBytes(callers, 1, BODY));
    }

    /** {@code body} as a delivered message with one property (also for {@link BodyArrayTest}). */
    static ByteBuf encoded(byte[] body) throws JMSException {
        WharfBytesMessage m = new WharfBytesMessage();
        m.setStringProperty("p", "v");
        m.writeBytes(body);
        ByteBuf out = Unpooled.buffer();
        MessageCodec.encode(m, WireDestination.queue("Q"), out);
        return out;
    }

    /** {@code message} behind a few bytes of a frame's own header, in a FrameArray, as a link reads it. */
    private static ByteBuf frameArrayWith(ByteBuf message) {
        ByteBuf frame = FrameArray.allocate(message.readableBytes() + 9);
        frame.writeZero(9).writeBytes(message);
        message.release();
        return frame.skipBytes(9);
    }

    private static int readInt(byte[] b, int at) {
        return (b[at] << 24) | ((b[at + 1] & 0xff) << 16) | ((b[at + 2] & 0xff) << 8) | (b[at + 3] & 0xff);
    }

    private static int indexOf(byte[] array, byte[] part) {
        outer:
        for (int i = 0; i + part.length <= array.length; i++) {
            for (int j = 0; j < 64; j++) {
                if (array[i + j] != part[j]) {
                    continue outer;
                }
            }
            return i;
        }
        throw new AssertionError("the body is not in the frame's array");
    }

    private static byte[] randomBytes(int n, long seed) {
        byte[] bytes = new byte[n];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }
}
