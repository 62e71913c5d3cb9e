package org.wharfmq.jms.message;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.wharfmq.protocol.frame.FrameArray;
import org.wharfmq.protocol.message.BodyType;

import javax.jms.BytesMessage;
import javax.jms.JMSException;
import javax.jms.MessageEOFException;
import javax.jms.MessageFormatException;
import javax.jms.MessageNotReadableException;
import javax.jms.MessageNotWriteableException;
import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.UTFDataFormatException;
import java.util.Arrays;

/**
 * A message whose body is a stream of bytes written and read with {@code java.io.DataOutput} conventions
 * (big-endian, modified UTF-8 for {@code writeUTF}). New messages are write-only; {@link #reset()} or receipt
 * makes the body read-only and positions it at the start; {@link #clearBody()} makes it write-only and empty.
 * A read that would run past the end throws {@link MessageEOFException} and consumes nothing.
 */
public final class WharfBytesMessage extends WharfMessage implements BytesMessage {
    private static final byte[] EMPTY = new byte[0];

    private byte[] data = EMPTY;
    /** Where the body begins in {@link #data}: 0 but for a body read where it lies in its frame's array. */
    private int start;
    private int length;
    /** The next byte to read, counted from {@link #start}. */
    private int position;

    /** An empty, write-only bytes message. */
    public WharfBytesMessage() {
    }

    // ---- body plumbing ----

    @Override
    BodyType bodyType() {
        return BodyType.BYTES;
    }

    @Override
    long bodyLength() {
        return length;
    }

    @Override
    int bodySizeHint() {
        return length;
    }

    @Override
    boolean hasBody() {
        return true;
    }

    @Override
    void writeBody(ByteBuf out) {
        out.writeBytes(data, start, length);
    }

    /**
     * A large body goes out from its own array: its bytes never change once written (later writes go past them, a
     * grown body into a new array, {@link #clearBody} to an empty one), so a message sent, kept for a resend or sent
     * again carries them as they were.
     */
    @Override
    ByteBuf sharedBody() {
        return length >= MessageCodec.SHARED_BODY_BYTES ? Unpooled.wrappedBuffer(data, start, length) : null;
    }

    /**
     * Takes the body from {@code in}: one that lies in an array nothing else will write (a large frame the link read
     * into an array of its own, {@link FrameArray}) is read where it lies, the buffer kept from being reused;
     * any other is copied, from a heap buffer into an array not zeroed first (a 2 MB body read from the link's kept
     * buffers was zeroed, then copied over). The body is read-only until {@link #clearBody}, which lets go of the array.
     */
    @Override
    void readBody(ByteBuf in, int bodyLength) {
        length = Math.max(bodyLength, 0);
        position = 0;
        start = 0;
        if (length == 0) {
            data = EMPTY;
            return;
        }
        if (in.readableBytes() < length) {
            throw new IndexOutOfBoundsException("a body of " + length + " bytes with " + in.readableBytes() + " left");
        }
        int at = in.readerIndex();
        if (FrameArray.holds(in)) {
            in.retain(); // never released: no one may reuse the array under the body; it goes with the garbage
            data = in.array();
            start = in.arrayOffset() + at;
        } else if (in.hasArray()) {
            data = Arrays.copyOfRange(in.array(), in.arrayOffset() + at, in.arrayOffset() + at + length);
        } else {
            data = new byte[length];
            in.getBytes(at, data);
        }
        in.skipBytes(length);
    }

    /**
     * The body of a received message as one array, for code inside the server that passes it on unchanged (a message
     * flow): the message's own array when the body fills it, not a copy, so the caller must not change it; a copy
     * otherwise (a large body read where it lies in its frame's array).
     *
     * @throws MessageNotReadableException when the body is write-only
     */
    public byte[] bodyArray() throws MessageNotReadableException {
        checkReadable();
        return start == 0 && length == data.length ? data : Arrays.copyOfRange(data, start, start + length);
    }

    /**
     * Makes {@code body} itself, not a copy, the body of this new, empty message: for code inside the server that
     * sends on an array nothing changes (a message flow's unchanged body). The caller must not change the array
     * afterwards; a later write grows the body into a new array, so this one is never written.
     *
     * @throws MessageNotWriteableException when the body is read-only
     * @throws IllegalStateException        when the body is not empty
     */
    public void writeBodyArray(byte[] body) throws MessageNotWriteableException {
        checkBodyWritable();
        if (length != 0) {
            throw new IllegalStateException("writeBodyArray sets the whole body of an empty message; this one has "
                    + length + " bytes already");
        }
        data = body;
        start = 0;
        length = body.length;
    }

    @Override
    Object bodyValue() {
        return length == 0 ? null : Arrays.copyOfRange(data, start, start + length);
    }

    @Override
    public void clearBody() throws JMSException {
        super.clearBody();
        data = EMPTY;
        start = 0;
        length = 0;
        position = 0;
    }

    @Override
    public void reset() {
        bodyReadOnly = true;
        position = 0;
    }

    @Override
    public long getBodyLength() throws JMSException {
        checkReadable();
        return length;
    }

    // ---- reading ----

    private void checkReadable() throws MessageNotReadableException {
        if (!bodyReadOnly) {
            throw new MessageNotReadableException("The BytesMessage body is write-only; call reset() before reading it");
        }
    }

    /** Checks {@code n} bytes are left and returns the position of the first. */
    private int take(int n) throws JMSException {
        checkReadable();
        if (length - position < n) {
            throw new MessageEOFException("Cannot read " + n + " bytes: " + (length - position) + " left in the BytesMessage");
        }
        int at = start + position;
        position += n;
        return at;
    }

    @Override
    public boolean readBoolean() throws JMSException {
        return data[take(1)] != 0;
    }

    @Override
    public byte readByte() throws JMSException {
        return data[take(1)];
    }

    @Override
    public int readUnsignedByte() throws JMSException {
        return data[take(1)] & 0xff;
    }

    @Override
    public short readShort() throws JMSException {
        int at = take(2);
        return (short) ((data[at] << 8) | (data[at + 1] & 0xff));
    }

    @Override
    public int readUnsignedShort() throws JMSException {
        return readShort() & 0xffff;
    }

    @Override
    public char readChar() throws JMSException {
        return (char) readShort();
    }

    @Override
    public int readInt() throws JMSException {
        int at = take(4);
        return intAt(at);
    }

    private int intAt(int at) {
        return (data[at] << 24) | ((data[at + 1] & 0xff) << 16) | ((data[at + 2] & 0xff) << 8) | (data[at + 3] & 0xff);
    }

    @Override
    public long readLong() throws JMSException {
        int at = take(8);
        return ((long) intAt(at) << 32) | (intAt(at + 4) & 0xffffffffL);
    }

    @Override
    public float readFloat() throws JMSException {
        return Float.intBitsToFloat(readInt());
    }

    @Override
    public double readDouble() throws JMSException {
        return Double.longBitsToDouble(readLong());
    }

    @Override
    public String readUTF() throws JMSException {
        checkReadable();
        if (length - position < 2) {
            throw new MessageEOFException("Cannot read a UTF string: " + (length - position) + " bytes left in the BytesMessage");
        }
        int at = start + position;
        int utfLength = ((data[at] & 0xff) << 8) | (data[at + 1] & 0xff);
        if (length - position - 2 < utfLength) {
            throw new MessageEOFException("UTF string of " + utfLength + " bytes runs past the end of the BytesMessage");
        }
        try {
            String s = DataInputStream.readUTF(new DataInputStream(new ByteArrayInputStream(data, at, utfLength + 2)));
            position += utfLength + 2;
            return s;
        } catch (UTFDataFormatException e) {
            MessageFormatException ex = new MessageFormatException("Malformed UTF string in BytesMessage: " + e.getMessage());
            ex.initCause(e);
            throw ex;
        } catch (IOException e) {
            throw new MessageEOFException("UTF string runs past the end of the BytesMessage");
        }
    }

    @Override
    public int readBytes(byte[] value) throws JMSException {
        return readBytes(value, value.length);
    }

    @Override
    public int readBytes(byte[] value, int count) throws JMSException {
        checkReadable();
        if (count < 0 || count > value.length) {
            throw new IndexOutOfBoundsException("length " + count + " is negative or exceeds the array length " + value.length);
        }
        int left = length - position;
        if (left == 0) {
            return -1;
        }
        int n = Math.min(count, left);
        System.arraycopy(data, start + position, value, 0, n);
        position += n;
        return n;
    }

    // ---- writing ----

    /** Makes room for {@code n} more bytes and returns where they go; read {@link #data} only after calling it. */
    private int append(int n) throws JMSException {
        checkBodyWritable();
        int at = length;
        int needed = at + n;
        if (needed < 0) {
            throw new MessageFormatException("BytesMessage body cannot exceed 2 GB");
        }
        if (needed > data.length) {
            data = Arrays.copyOf(data, Math.max(needed, Math.max(64, data.length * 2)));
        }
        length = needed;
        return at;
    }

    @Override
    public void writeBoolean(boolean value) throws JMSException {
        int at = append(1);
        data[at] = (byte) (value ? 1 : 0);
    }

    @Override
    public void writeByte(byte value) throws JMSException {
        int at = append(1);
        data[at] = value;
    }

    @Override
    public void writeShort(short value) throws JMSException {
        int at = append(2);
        data[at] = (byte) (value >> 8);
        data[at + 1] = (byte) value;
    }

    @Override
    public void writeChar(char value) throws JMSException {
        writeShort((short) value);
    }

    @Override
    public void writeInt(int value) throws JMSException {
        putInt(append(4), value);
    }

    private void putInt(int at, int value) {
        data[at] = (byte) (value >> 24);
        data[at + 1] = (byte) (value >> 16);
        data[at + 2] = (byte) (value >> 8);
        data[at + 3] = (byte) value;
    }

    @Override
    public void writeLong(long value) throws JMSException {
        int at = append(8);
        putInt(at, (int) (value >> 32));
        putInt(at + 4, (int) value);
    }

    @Override
    public void writeFloat(float value) throws JMSException {
        writeInt(Float.floatToIntBits(value));
    }

    @Override
    public void writeDouble(double value) throws JMSException {
        writeLong(Double.doubleToLongBits(value));
    }

    /** Writes modified UTF-8 with a two-byte length, exactly as {@code DataOutputStream.writeUTF}. */
    @Override
    public void writeUTF(String value) throws JMSException {
        checkBodyWritable();
        int utfLength = 0;
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            utfLength += c >= 0x0001 && c <= 0x007f ? 1 : c > 0x07ff ? 3 : 2;
        }
        if (utfLength > 65_535) {
            throw new MessageFormatException("writeUTF string encodes to " + utfLength + " bytes; the limit is 65535");
        }
        int at = append(2 + utfLength);
        data[at++] = (byte) (utfLength >> 8);
        data[at++] = (byte) utfLength;
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c >= 0x0001 && c <= 0x007f) {
                data[at++] = (byte) c;
            } else if (c > 0x07ff) {
                data[at++] = (byte) (0xe0 | (c >> 12));
                data[at++] = (byte) (0x80 | ((c >> 6) & 0x3f));
                data[at++] = (byte) (0x80 | (c & 0x3f));
            } else {
                data[at++] = (byte) (0xc0 | (c >> 6));
                data[at++] = (byte) (0x80 | (c & 0x3f));
            }
        }
    }

    @Override
    public void writeBytes(byte[] value) throws JMSException {
        writeBytes(value, 0, value.length);
    }

    @Override
    public void writeBytes(byte[] value, int offset, int count) throws JMSException {
        if (offset < 0 || count < 0 || offset + count > value.length) {
            throw new IndexOutOfBoundsException("offset " + offset + " and length " + count + " do not fit an array of " + value.length);
        }
        if (length == 0 && count > data.length) {
            // the first bytes of a new body: a copy of them is its array, allocated without being zeroed first (a
            // 100 MB body was zeroed and then copied over); later writes grow it into a new array, as any
            checkBodyWritable();
            data = Arrays.copyOfRange(value, offset, offset + count);
            start = 0;
            length = count;
            return;
        }
        int at = append(count);
        System.arraycopy(value, offset, data, at, count);
    }

    @Override
    public void writeObject(Object value) throws JMSException {
        if (value == null) {
            throw new NullPointerException("BytesMessage.writeObject does not accept null");
        }
        if (value instanceof Boolean v) {
            writeBoolean(v);
        } else if (value instanceof Byte v) {
            writeByte(v);
        } else if (value instanceof Short v) {
            writeShort(v);
        } else if (value instanceof Character v) {
            writeChar(v);
        } else if (value instanceof Integer v) {
            writeInt(v);
        } else if (value instanceof Long v) {
            writeLong(v);
        } else if (value instanceof Float v) {
            writeFloat(v);
        } else if (value instanceof Double v) {
            writeDouble(v);
        } else if (value instanceof String v) {
            writeUTF(v);
        } else if (value instanceof byte[] v) {
            writeBytes(v);
        } else {
            throw new MessageFormatException("BytesMessage.writeObject cannot write a " + value.getClass().getName());
        }
    }
}
