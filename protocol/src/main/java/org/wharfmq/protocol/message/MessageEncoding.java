package org.wharfmq.protocol.message;

import io.netty.buffer.ByteBuf;
import org.wharfmq.protocol.frame.WireStrings;

/**
 * The layout of a message inside SEND and DELIVER frames. Fixed-size fields come first so the server can read
 * them at known offsets; properties are length-prefixed so the server can skip them until a selector needs them;
 * the body comes last and is never read by the server. {@link MessageWriter} is the one writer of this layout and
 * {@link MessageReader} its one reader ({@link PropertySection} for the properties); this class holds the constants
 * and the rules of single fields they share.
 *
 * <pre>
 * byte   bodyType            {@link BodyType}
 * byte   flags               bit 0 persistent, bit 1 correlation id is raw bytes, bit 2 resent
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
    /**
     * Flag bit: the client sent this message again after a reconnection, because the connection was lost before the
     * server answered the first SEND, which may or may not have stored it. A receiver marks such a message
     * JMSRedelivered, so a copy stored twice is never delivered twice without the mark. The server does not read it.
     */
    public static final int FLAG_RESENT = 4;

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

    /** The lowest JMS priority. */
    public static final int MIN_PRIORITY = 0;
    /** The highest JMS priority. */
    public static final int MAX_PRIORITY = 9;

    private MessageEncoding() {
    }

    /** Whether {@code priority} is a JMS priority, 0-9: the one rule of the writer, the reader and the client's setters. */
    public static boolean isValidPriority(int priority) {
        return priority >= MIN_PRIORITY && priority <= MAX_PRIORITY;
    }

    /** The refusal of a priority outside 0-9, in the same words wherever it is refused. */
    public static String invalidPriority(int priority) {
        return "priority " + priority + " is outside 0-9 (JMS priorities run from 0, the lowest, to 9)";
    }

    /**
     * Writes a value of one of the eight property types as a tagged value (its {@code PROPERTY_*} tag, then the
     * value), as properties carry them and the client's MapMessage and StreamMessage bodies carry theirs.
     *
     * @return false, writing nothing, for any other value (null included), which the caller writes its own way
     */
    public static boolean writeValue(ByteBuf out, Object value) {
        if (value instanceof String s) {
            out.writeByte(PROPERTY_STRING);
            WireStrings.write(out, s);
        } else if (value instanceof Integer i) {
            out.writeByte(PROPERTY_INT);
            out.writeInt(i);
        } else if (value instanceof Long l) {
            out.writeByte(PROPERTY_LONG);
            out.writeLong(l);
        } else if (value instanceof Boolean b) {
            out.writeByte(PROPERTY_BOOLEAN);
            out.writeBoolean(b);
        } else if (value instanceof Double d) {
            out.writeByte(PROPERTY_DOUBLE);
            out.writeDouble(d);
        } else if (value instanceof Float f) {
            out.writeByte(PROPERTY_FLOAT);
            out.writeFloat(f);
        } else if (value instanceof Short s) {
            out.writeByte(PROPERTY_SHORT);
            out.writeShort(s);
        } else if (value instanceof Byte b) {
            out.writeByte(PROPERTY_BYTE);
            out.writeByte(b);
        } else {
            return false;
        }
        return true;
    }
}
