package org.wharfmq.protocol.message;

import io.netty.buffer.ByteBuf;
import org.wharfmq.protocol.frame.MalformedFrameException;
import org.wharfmq.protocol.frame.WireStrings;

import java.nio.charset.StandardCharsets;
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

    /** {@link #valueLength} of a tag that names no type. */
    private static final long UNKNOWN_TAG = -1;
    /** {@link #valueLength} of a string whose length is below -1 (null). */
    private static final long NEGATIVE_STRING_LENGTH = -2;
    /** Bytes of a property name quoted in an error; a longer name is cut (its length is in the error). */
    private static final int NAME_IN_ERROR = 64;

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
     * Checks the property section starting at {@code in}'s reader index (at the length prefix) and advances past
     * it, decoding nothing: the count, every name's and string value's length, every type tag, and that the
     * properties fill exactly the declared length. It accepts exactly the sections {@link #readProperties} can
     * decode. The server runs it on every SEND, so it allocates nothing unless the section is broken.
     *
     * @param messageStart the index in {@code in} of the message's first byte: offsets in errors count from there
     * @throws MalformedFrameException naming the property, what is wrong with it and its offset in the message
     */
    public static void skipProperties(ByteBuf in, int messageStart) {
        int lengthAt = in.readerIndex();
        int length = in.readInt();
        if (length < 2 || length > in.readableBytes()) {
            throw new MalformedFrameException("property section length " + length + " at offset "
                    + (lengthAt - messageStart) + " does not fit the message");
        }
        int end = in.readerIndex() + length;
        int count = in.getUnsignedShort(in.readerIndex());
        int at = in.readerIndex() + 2;
        for (int i = 1; i <= count; i++) {
            if (end - at < 4) {
                throw new MalformedFrameException("the property section ends at offset " + (end - messageStart)
                        + " after " + (i - 1) + " of its " + count + " properties (it declares " + length + " bytes)");
            }
            int nameLength = in.getInt(at);
            int nameAt = at + 4;
            if (nameLength == -1) {
                throw new MalformedFrameException("property " + i + " of " + count + " has a null name at offset "
                        + (at - messageStart));
            }
            if (nameLength < 0 || nameLength >= end - nameAt) { // the tag follows the name
                throw new MalformedFrameException("property " + i + " of " + count + " has a name of " + nameLength
                        + " bytes at offset " + (at - messageStart) + ", which with its type tag runs past the end"
                        + " of the property section at offset " + (end - messageStart));
            }
            int tagAt = nameAt + nameLength;
            byte tag = in.getByte(tagAt);
            int valueAt = tagAt + 1;
            long valueLength = valueLength(in, tag, valueAt, end);
            if (valueLength == UNKNOWN_TAG) {
                throw new MalformedFrameException("property " + i + " of " + count + " ("
                        + quotedName(in, nameAt, nameLength) + ") has unknown type tag 0x"
                        + Integer.toHexString(tag & 0xff) + " at offset " + (tagAt - messageStart));
            }
            if (valueLength == NEGATIVE_STRING_LENGTH) {
                throw new MalformedFrameException("property " + i + " of " + count + " ("
                        + quotedName(in, nameAt, nameLength) + ") has a string value of length "
                        + in.getInt(valueAt) + " at offset " + (valueAt - messageStart) + " (-1 is null, else >= 0)");
            }
            if (valueLength > end - valueAt) {
                throw new MalformedFrameException("property " + i + " of " + count + " ("
                        + quotedName(in, nameAt, nameLength) + "): its value at offset " + (valueAt - messageStart)
                        + " runs past the end of the property section at offset " + (end - messageStart));
            }
            at = valueAt + (int) valueLength;
        }
        if (at != end) {
            throw new MalformedFrameException("the property section declares " + length + " bytes but its " + count
                    + " properties end at offset " + (at - messageStart) + ", " + (end - at) + " bytes before its end");
        }
        in.readerIndex(end);
    }

    /**
     * Bytes taken by a value of type {@code tag} at {@code valueAt}: its fixed size, or for a string its length
     * prefix plus its bytes (4 when even the prefix does not fit before {@code end}, for the caller to refuse);
     * {@link #UNKNOWN_TAG} or {@link #NEGATIVE_STRING_LENGTH} when the value cannot be sized.
     */
    private static long valueLength(ByteBuf in, byte tag, int valueAt, int end) {
        return switch (tag) {
            case PROPERTY_BOOLEAN, PROPERTY_BYTE -> 1;
            case PROPERTY_SHORT -> 2;
            case PROPERTY_INT, PROPERTY_FLOAT -> 4;
            case PROPERTY_LONG, PROPERTY_DOUBLE -> 8;
            case PROPERTY_STRING -> {
                if (end - valueAt < 4) {
                    yield 4;
                }
                int stringLength = in.getInt(valueAt);
                yield stringLength < -1 ? NEGATIVE_STRING_LENGTH : 4L + Math.max(0, stringLength);
            }
            default -> UNKNOWN_TAG;
        };
    }

    /** A property name for an error message, decoded only then. */
    private static String quotedName(ByteBuf in, int at, int length) {
        String name = in.toString(at, Math.min(length, NAME_IN_ERROR), StandardCharsets.UTF_8);
        return "'" + name + (length > NAME_IN_ERROR ? "...' (" + length + " bytes)" : "'");
    }

    /**
     * Reads the property section starting at {@code in}'s reader index (at the length prefix), advancing past it.
     * Returns a mutable map in wire order.
     *
     * @throws MalformedFrameException when the section is broken (never for one {@link #skipProperties} accepted)
     */
    public static Map<String, Object> readProperties(ByteBuf in) {
        try {
            return decodeProperties(in);
        } catch (IndexOutOfBoundsException e) {
            throw new MalformedFrameException("the property section is truncated: " + e.getMessage());
        }
    }

    private static Map<String, Object> decodeProperties(ByteBuf in) {
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
                throw new MalformedFrameException("property " + (i + 1) + " of " + count + " has a null name");
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
                default -> throw new MalformedFrameException("property " + (i + 1) + " of " + count + " ('" + name
                        + "') has unknown type tag 0x" + Integer.toHexString(tag & 0xff));
            };
            properties.put(name, value);
        }
        if (in.readerIndex() != end) {
            throw new MalformedFrameException("property section declared " + length + " bytes but used " + (in.readerIndex() - end + length));
        }
        return properties;
    }
}
