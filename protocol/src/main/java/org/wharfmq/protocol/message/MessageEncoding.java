package org.wharfmq.protocol.message;

import io.netty.buffer.ByteBuf;
import org.wharfmq.protocol.frame.MalformedFrameException;
import org.wharfmq.protocol.frame.WireStrings;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The layout of a message inside SEND and DELIVER frames. Fixed-size fields come first so the server can read
 * them at known offsets; properties are length-prefixed so the server can skip them until a selector needs them;
 * the body comes last and is never read by the server.
 *
 * <pre>
 * byte   bodyType            {@link BodyType}
 * byte   flags               bit 0 persistent, bit 1 correlation id is raw bytes
 * byte   priority            0-9
 * long   timestamp           JMSTimestamp, 0 when disabled
 * long   expiration          absolute epoch millis, 0 = never
 * long   deliveryTime        absolute epoch millis before which it is not delivered, 0 = at once
 * string messageId           nullable
 * string|bytes correlationId nullable; raw bytes when flag bit 1 is set
 * dest   destination         kind byte + name
 * dest   replyTo             kind byte (0 = none) + name
 * string type                JMSType, nullable
 * int    propertiesLength    bytes that follow for properties
 *   short count, then per property: string name, byte tag, value (see PROPERTY_* tags)
 * int    bodyLength          -1 = null body
 * bytes  body
 * </pre>
 */
public final class MessageEncoding {
    /** Flag bit: the message is persistent (JMS DeliveryMode.PERSISTENT). */
    public static final int FLAG_PERSISTENT = 1;
    /** Flag bit: the correlation id was set with {@code setJMSCorrelationIDAsBytes}. */
    public static final int FLAG_CORRELATION_ID_BYTES = 2;

    /** Offset of the flags byte. */
    public static final int FLAGS_OFFSET = 1;
    /** Offset of the priority byte. */
    public static final int PRIORITY_OFFSET = 2;
    /** Offset of the timestamp. */
    public static final int TIMESTAMP_OFFSET = 3;
    /** Offset of the expiration. */
    public static final int EXPIRATION_OFFSET = 11;
    /** Offset of the delivery time. */
    public static final int DELIVERY_TIME_OFFSET = 19;
    /** Offset of the message id, the first variable-length field. */
    public static final int MESSAGE_ID_OFFSET = 27;

    /** Property value tags. */
    public static final byte PROPERTY_BOOLEAN = 1, PROPERTY_BYTE = 2, PROPERTY_SHORT = 3, PROPERTY_INT = 4,
            PROPERTY_LONG = 5, PROPERTY_FLOAT = 6, PROPERTY_DOUBLE = 7, PROPERTY_STRING = 8;

    private MessageEncoding() {
    }

    /** Writes a property map in the encoding above, including its length prefix. */
    public static void writeProperties(ByteBuf out, Map<String, Object> properties) {
        int lengthIndex = out.writerIndex();
        out.writeInt(0);
        out.writeShort(properties.size());
        for (Map.Entry<String, Object> e : properties.entrySet()) {
            WireStrings.write(out, e.getKey());
            Object v = e.getValue();
            if (v instanceof String s) {
                out.writeByte(PROPERTY_STRING);
                WireStrings.write(out, s);
            } else if (v instanceof Integer i) {
                out.writeByte(PROPERTY_INT);
                out.writeInt(i);
            } else if (v instanceof Long l) {
                out.writeByte(PROPERTY_LONG);
                out.writeLong(l);
            } else if (v instanceof Boolean b) {
                out.writeByte(PROPERTY_BOOLEAN);
                out.writeBoolean(b);
            } else if (v instanceof Double d) {
                out.writeByte(PROPERTY_DOUBLE);
                out.writeDouble(d);
            } else if (v instanceof Float f) {
                out.writeByte(PROPERTY_FLOAT);
                out.writeFloat(f);
            } else if (v instanceof Short s) {
                out.writeByte(PROPERTY_SHORT);
                out.writeShort(s);
            } else if (v instanceof Byte b) {
                out.writeByte(PROPERTY_BYTE);
                out.writeByte(b);
            } else {
                throw new IllegalArgumentException("property " + e.getKey() + " has unsupported type "
                        + (v == null ? "null" : v.getClass().getName()));
            }
        }
        out.setInt(lengthIndex, out.writerIndex() - lengthIndex - 4);
    }

    /**
     * Reads the property section starting at {@code in}'s reader index (at the length prefix), advancing past it.
     * Returns a mutable map in wire order.
     */
    public static Map<String, Object> readProperties(ByteBuf in) {
        int length = in.readInt();
        if (length < 2 || length > in.readableBytes()) {
            throw new MalformedFrameException("property section length " + length + " does not fit the message");
        }
        int end = in.readerIndex() + length;
        int count = in.readUnsignedShort();
        Map<String, Object> properties = new LinkedHashMap<>(Math.max(4, count * 2));
        for (int i = 0; i < count; i++) {
            String name = WireStrings.read(in);
            if (name == null) {
                throw new MalformedFrameException("property " + i + " has a null name");
            }
            byte tag = in.readByte();
            Object value = switch (tag) {
                case PROPERTY_BOOLEAN -> in.readBoolean();
                case PROPERTY_BYTE -> in.readByte();
                case PROPERTY_SHORT -> in.readShort();
                case PROPERTY_INT -> in.readInt();
                case PROPERTY_LONG -> in.readLong();
                case PROPERTY_FLOAT -> in.readFloat();
                case PROPERTY_DOUBLE -> in.readDouble();
                case PROPERTY_STRING -> WireStrings.read(in);
                default -> throw new MalformedFrameException("property " + name + " has unknown type tag " + tag);
            };
            properties.put(name, value);
        }
        if (in.readerIndex() != end) {
            throw new MalformedFrameException("property section declared " + length + " bytes but used " + (in.readerIndex() - end + length));
        }
        return properties;
    }
}
