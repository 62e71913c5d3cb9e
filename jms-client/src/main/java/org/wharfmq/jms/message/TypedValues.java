package org.wharfmq.jms.message;

import io.netty.buffer.ByteBuf;
import org.wharfmq.protocol.frame.MalformedFrameException;
import org.wharfmq.protocol.frame.WireStrings;
import org.wharfmq.protocol.message.MessageEncoding;

import javax.jms.MessageFormatException;

/**
 * The tagged values inside MapMessage and StreamMessage bodies ({@code docs/protocol.md}, "Message encoding"):
 * one tag byte, then the value. Tags 1-8 are the property tags of {@link MessageEncoding}; bodies add
 * {@link #NULL}, {@link #CHAR} and {@link #BYTES}.
 */
final class TypedValues {
    /** A null value (a null String, byte array or object). */
    static final byte NULL = 0;
    /** A char: two bytes, big-endian. */
    static final byte CHAR = 9;
    /** A byte array: int length, then the bytes. */
    static final byte BYTES = 10;

    private TypedValues() {
    }

    /** Whether {@code value} may be stored in a MapMessage or StreamMessage body. */
    static boolean isBodyValue(Object value) {
        return value == null || value instanceof String || value instanceof Integer || value instanceof Long
                || value instanceof Boolean || value instanceof Double || value instanceof Float || value instanceof Short
                || value instanceof Byte || value instanceof Character || value instanceof byte[];
    }

    /** Throws MessageFormatException unless {@link #isBodyValue}. */
    static void checkBodyValue(Object value, String where) throws MessageFormatException {
        if (!isBodyValue(value)) {
            throw new MessageFormatException(where + " cannot hold a " + value.getClass().getName()
                    + ": only Boolean, Byte, Short, Character, Integer, Long, Float, Double, String and byte[] are allowed");
        }
    }

    /** Encoded size of one value including its tag. */
    static int size(Object v) {
        if (v == null) {
            return 1;
        }
        if (v instanceof String s) {
            return 5 + s.length() * 3;
        }
        if (v instanceof byte[] b) {
            return 5 + b.length;
        }
        return 9;
    }

    /** Writes one tagged value: the property types as properties are written ({@link MessageEncoding#writeValue}). */
    static void write(ByteBuf out, Object v) {
        if (v == null) {
            out.writeByte(NULL);
        } else if (v instanceof Character c) {
            out.writeByte(CHAR);
            out.writeChar(c);
        } else if (v instanceof byte[] b) {
            out.writeByte(BYTES);
            out.writeInt(b.length);
            out.writeBytes(b);
        } else if (!MessageEncoding.writeValue(out, v)) {
            // the setters admit only the types above
            throw new IllegalStateException("unexpected body value type " + v.getClass().getName());
        }
    }

    /** Reads one tagged value; never reads past {@code end}. */
    static Object read(ByteBuf in, int end) {
        byte tag = in.readByte();
        Object v = switch (tag) {
            case NULL -> null;
            case MessageEncoding.PROPERTY_BOOLEAN -> in.readBoolean();
            case MessageEncoding.PROPERTY_BYTE -> in.readByte();
            case MessageEncoding.PROPERTY_SHORT -> in.readShort();
            case MessageEncoding.PROPERTY_INT -> in.readInt();
            case MessageEncoding.PROPERTY_LONG -> in.readLong();
            case MessageEncoding.PROPERTY_FLOAT -> in.readFloat();
            case MessageEncoding.PROPERTY_DOUBLE -> in.readDouble();
            case MessageEncoding.PROPERTY_STRING -> WireStrings.read(in);
            case CHAR -> in.readChar();
            case BYTES -> {
                int n = in.readInt();
                if (n < 0 || n > end - in.readerIndex()) {
                    throw new MalformedFrameException("byte array of " + n + " bytes does not fit the body");
                }
                byte[] b = new byte[n];
                in.readBytes(b);
                yield b;
            }
            default -> throw new MalformedFrameException("unknown body value tag " + tag);
        };
        if (in.readerIndex() > end) {
            throw new MalformedFrameException("body value runs past the end of the body");
        }
        return v;
    }
}
