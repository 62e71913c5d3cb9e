package org.wharfmq.jms.message;

import io.netty.buffer.ByteBuf;
import org.wharfmq.protocol.message.BodyType;

import javax.jms.JMSException;
import javax.jms.MessageEOFException;
import javax.jms.MessageFormatException;
import javax.jms.MessageNotReadableException;
import javax.jms.StreamMessage;
import java.util.ArrayList;
import java.util.List;

/**
 * A message whose body is a sequence of typed values (Java primitives, String, byte[]). New messages are
 * write-only; {@link #reset()} or receipt makes the body read-only and positions it at the first value;
 * {@link #clearBody()} makes it write-only and empty.
 *
 * <p>Reads convert as the JMS StreamMessage table says ({@link BodyConversions}). A read that fails (a
 * MessageFormatException, NumberFormatException or NullPointerException of the conversion) does not move the
 * position, so the value can be read again as another type. {@link #readBytes} reads a byte[] value in chunks: it
 * returns the bytes copied, less than the buffer's length for the last chunk, and -1 once the value is exhausted
 * (at once for a null value); until then no other read is allowed.
 *
 * <p>Body encoding: the values one after another, each tagged ({@link TypedValues}), up to the body length.
 */
public final class WharfStreamMessage extends WharfMessage implements StreamMessage {
    private List<Object> values = new ArrayList<>();
    /** Index of the next value to read. */
    private int position;
    /** Bytes of the current byte[] value already returned by readBytes; -1 when no readBytes is under way. */
    private int bytesOffset = -1;

    /** An empty, write-only stream message. */
    public WharfStreamMessage() {
    }

    // ---- body plumbing ----

    @Override
    BodyType bodyType() {
        return BodyType.STREAM;
    }

    @Override
    int bodySizeHint() {
        int size = 4;
        for (Object v : values) {
            size += TypedValues.size(v);
        }
        return size;
    }

    @Override
    boolean hasBody() {
        return true;
    }

    @Override
    void writeBody(ByteBuf out) {
        for (Object v : values) {
            TypedValues.write(out, v);
        }
    }

    @Override
    void readBody(ByteBuf in, int length) {
        values = new ArrayList<>();
        if (length > 0) {
            int end = in.readerIndex() + length;
            while (in.readerIndex() < end) {
                values.add(TypedValues.read(in, end));
            }
        }
        position = 0;
        bytesOffset = -1;
    }

    @Override
    public <T> T getBody(Class<T> c) throws JMSException {
        throw new MessageFormatException("A StreamMessage body cannot be returned by getBody (JMS 2.0); read it value by value");
    }

    /** JMS: a StreamMessage body is never assignable. */
    @Override
    @SuppressWarnings("rawtypes")
    public boolean isBodyAssignableTo(Class c) {
        return false;
    }

    @Override
    public void clearBody() throws JMSException {
        super.clearBody();
        values = new ArrayList<>();
        position = 0;
        bytesOffset = -1;
    }

    @Override
    public void reset() {
        bodyReadOnly = true;
        position = 0;
        bytesOffset = -1;
    }

    // ---- reading ----

    /** The next value, not consumed: the caller consumes it only once the conversion succeeded. */
    private Object peek() throws JMSException {
        if (!bodyReadOnly) {
            throw new MessageNotReadableException("The StreamMessage body is write-only; call reset() before reading it");
        }
        if (bytesOffset >= 0) {
            throw new MessageFormatException("readBytes has not finished the current byte[] value; call it until it returns -1"
                    + " or fewer bytes than the buffer holds");
        }
        if (position >= values.size()) {
            throw new MessageEOFException("The StreamMessage has no more values (" + values.size() + " in all)");
        }
        return values.get(position);
    }

    private String where() {
        return "StreamMessage value " + position;
    }

    @Override
    public boolean readBoolean() throws JMSException {
        boolean v = BodyConversions.toBoolean(peek(), where());
        position++;
        return v;
    }

    @Override
    public byte readByte() throws JMSException {
        byte v = BodyConversions.toByte(peek(), where());
        position++;
        return v;
    }

    @Override
    public short readShort() throws JMSException {
        short v = BodyConversions.toShort(peek(), where());
        position++;
        return v;
    }

    @Override
    public char readChar() throws JMSException {
        char v = BodyConversions.toChar(peek(), where());
        position++;
        return v;
    }

    @Override
    public int readInt() throws JMSException {
        int v = BodyConversions.toInt(peek(), where());
        position++;
        return v;
    }

    @Override
    public long readLong() throws JMSException {
        long v = BodyConversions.toLong(peek(), where());
        position++;
        return v;
    }

    @Override
    public float readFloat() throws JMSException {
        float v = BodyConversions.toFloat(peek(), where());
        position++;
        return v;
    }

    @Override
    public double readDouble() throws JMSException {
        double v = BodyConversions.toDouble(peek(), where());
        position++;
        return v;
    }

    @Override
    public String readString() throws JMSException {
        String v = BodyConversions.toStringValue(peek(), where());
        position++;
        return v;
    }

    @Override
    public Object readObject() throws JMSException {
        Object v = BodyConversions.toObject(peek());
        position++;
        return v;
    }

    @Override
    public int readBytes(byte[] value) throws JMSException {
        byte[] field;
        if (bytesOffset < 0) {
            Object v = peek();
            field = BodyConversions.toBytes(v, where());
            if (field == null) {
                position++;
                return -1;
            }
            if (field.length == 0) {
                position++;
                return 0;
            }
            bytesOffset = 0;
        } else {
            field = (byte[]) values.get(position);
        }
        int left = field.length - bytesOffset;
        if (left == 0) {
            endBytes();
            return -1;
        }
        int n = Math.min(left, value.length);
        System.arraycopy(field, bytesOffset, value, 0, n);
        bytesOffset += n;
        if (n < value.length) {
            endBytes();
        }
        return n;
    }

    private void endBytes() {
        bytesOffset = -1;
        position++;
    }

    // ---- writing ----

    private void add(Object value) throws JMSException {
        checkBodyWritable();
        values.add(value);
    }

    @Override
    public void writeBoolean(boolean value) throws JMSException {
        add(value);
    }

    @Override
    public void writeByte(byte value) throws JMSException {
        add(value);
    }

    @Override
    public void writeShort(short value) throws JMSException {
        add(value);
    }

    @Override
    public void writeChar(char value) throws JMSException {
        add(value);
    }

    @Override
    public void writeInt(int value) throws JMSException {
        add(value);
    }

    @Override
    public void writeLong(long value) throws JMSException {
        add(value);
    }

    @Override
    public void writeFloat(float value) throws JMSException {
        add(value);
    }

    @Override
    public void writeDouble(double value) throws JMSException {
        add(value);
    }

    @Override
    public void writeString(String value) throws JMSException {
        add(value);
    }

    /** Writes a copy of the array as one value. */
    @Override
    public void writeBytes(byte[] value) throws JMSException {
        add(value == null ? null : value.clone());
    }

    @Override
    public void writeBytes(byte[] value, int offset, int length) throws JMSException {
        if (offset < 0 || length < 0 || offset + length > value.length) {
            throw new IndexOutOfBoundsException("offset " + offset + " and length " + length + " do not fit an array of " + value.length);
        }
        byte[] copy = new byte[length];
        System.arraycopy(value, offset, copy, 0, length);
        add(copy);
    }

    @Override
    public void writeObject(Object value) throws JMSException {
        checkBodyWritable();
        TypedValues.checkBodyValue(value, "A StreamMessage");
        add(value instanceof byte[] b ? b.clone() : value);
    }
}
