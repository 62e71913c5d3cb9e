package org.wharfmq.jms.message;

import io.netty.buffer.ByteBuf;
import org.wharfmq.protocol.frame.MalformedFrameException;
import org.wharfmq.protocol.frame.WireStrings;
import org.wharfmq.protocol.message.BodyType;

import javax.jms.JMSException;
import javax.jms.MapMessage;
import java.util.Collections;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A message whose body is a set of name-value pairs (Java primitives, String, byte[]). A new message's body can be
 * read and written; a received one is read-only until {@link #clearBody()}. Values convert on reading as the JMS
 * MapMessage table says ({@link BodyConversions}); a missing name reads like a null value.
 *
 * <p>Body encoding: {@code int count}, then per entry {@code string name} and a tagged value ({@link TypedValues}).
 */
public final class WharfMapMessage extends WharfMessage implements MapMessage {
    private Map<String, Object> map = new LinkedHashMap<>();

    /** An empty, writable map message. */
    public WharfMapMessage() {
    }

    // ---- body plumbing ----

    @Override
    BodyType bodyType() {
        return BodyType.MAP;
    }

    @Override
    int bodySizeHint() {
        int size = 8;
        for (Map.Entry<String, Object> e : map.entrySet()) {
            size += 4 + e.getKey().length() * 3 + TypedValues.size(e.getValue());
        }
        return size;
    }

    @Override
    boolean hasBody() {
        return true;
    }

    @Override
    void writeBody(ByteBuf out) {
        out.writeInt(map.size());
        for (Map.Entry<String, Object> e : map.entrySet()) {
            WireStrings.write(out, e.getKey());
            TypedValues.write(out, e.getValue());
        }
    }

    @Override
    void readBody(ByteBuf in, int length) {
        map = new LinkedHashMap<>();
        if (length < 0) {
            return;
        }
        int end = in.readerIndex() + length;
        int count = in.readInt();
        if (count < 0 || count > length) {
            throw new MalformedFrameException("map entry count " + count + " does not fit a body of " + length + " bytes");
        }
        for (int i = 0; i < count; i++) {
            String name = WireStrings.read(in);
            map.put(name, TypedValues.read(in, end));
        }
        if (in.readerIndex() != end) {
            throw new MalformedFrameException("map body has " + (end - in.readerIndex()) + " bytes after its last entry");
        }
    }

    /** JMS: getBody(Map.class) returns a copy of the entries; byte arrays stay arrays. */
    @Override
    Object bodyValue() {
        if (map.isEmpty()) {
            return null;
        }
        Map<String, Object> copy = new LinkedHashMap<>(map.size() * 2);
        for (Map.Entry<String, Object> e : map.entrySet()) {
            copy.put(e.getKey(), BodyConversions.toObject(e.getValue()));
        }
        return copy;
    }

    @Override
    public void clearBody() throws JMSException {
        super.clearBody();
        map = new LinkedHashMap<>();
    }

    // ---- reading ----

    private Object get(String name) {
        return map.get(name);
    }

    private static String where(String name) {
        return "MapMessage entry '" + name + "'";
    }

    @Override
    public boolean getBoolean(String name) throws JMSException {
        return BodyConversions.toBoolean(get(name), where(name));
    }

    @Override
    public byte getByte(String name) throws JMSException {
        return BodyConversions.toByte(get(name), where(name));
    }

    @Override
    public short getShort(String name) throws JMSException {
        return BodyConversions.toShort(get(name), where(name));
    }

    @Override
    public char getChar(String name) throws JMSException {
        return BodyConversions.toChar(get(name), where(name));
    }

    @Override
    public int getInt(String name) throws JMSException {
        return BodyConversions.toInt(get(name), where(name));
    }

    @Override
    public long getLong(String name) throws JMSException {
        return BodyConversions.toLong(get(name), where(name));
    }

    @Override
    public float getFloat(String name) throws JMSException {
        return BodyConversions.toFloat(get(name), where(name));
    }

    @Override
    public double getDouble(String name) throws JMSException {
        return BodyConversions.toDouble(get(name), where(name));
    }

    @Override
    public String getString(String name) throws JMSException {
        return BodyConversions.toStringValue(get(name), where(name));
    }

    /** A copy of the array, so the message body cannot be changed through it. */
    @Override
    public byte[] getBytes(String name) throws JMSException {
        byte[] b = BodyConversions.toBytes(get(name), where(name));
        return b == null ? null : b.clone();
    }

    @Override
    public Object getObject(String name) {
        return BodyConversions.toObject(get(name));
    }

    @Override
    public Enumeration<String> getMapNames() {
        return Collections.enumeration(map.keySet());
    }

    @Override
    public boolean itemExists(String name) {
        return map.containsKey(name);
    }

    // ---- writing ----

    private void put(String name, Object value) throws JMSException {
        checkBodyWritable();
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("A MapMessage entry name must not be null or empty");
        }
        map.put(name, value);
    }

    @Override
    public void setBoolean(String name, boolean value) throws JMSException {
        put(name, value);
    }

    @Override
    public void setByte(String name, byte value) throws JMSException {
        put(name, value);
    }

    @Override
    public void setShort(String name, short value) throws JMSException {
        put(name, value);
    }

    @Override
    public void setChar(String name, char value) throws JMSException {
        put(name, value);
    }

    @Override
    public void setInt(String name, int value) throws JMSException {
        put(name, value);
    }

    @Override
    public void setLong(String name, long value) throws JMSException {
        put(name, value);
    }

    @Override
    public void setFloat(String name, float value) throws JMSException {
        put(name, value);
    }

    @Override
    public void setDouble(String name, double value) throws JMSException {
        put(name, value);
    }

    @Override
    public void setString(String name, String value) throws JMSException {
        put(name, value);
    }

    /** Stores a copy of the array: later changes to it do not reach the message. */
    @Override
    public void setBytes(String name, byte[] value) throws JMSException {
        put(name, value == null ? null : value.clone());
    }

    @Override
    public void setBytes(String name, byte[] value, int offset, int length) throws JMSException {
        if (offset < 0 || length < 0 || offset + length > value.length) {
            throw new IndexOutOfBoundsException("offset " + offset + " and length " + length + " do not fit an array of " + value.length);
        }
        byte[] copy = new byte[length];
        System.arraycopy(value, offset, copy, 0, length);
        put(name, copy);
    }

    @Override
    public void setObject(String name, Object value) throws JMSException {
        checkBodyWritable();
        TypedValues.checkBodyValue(value, where(name));
        put(name, value instanceof byte[] b ? b.clone() : value);
    }
}
