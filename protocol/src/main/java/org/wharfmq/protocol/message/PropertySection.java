package org.wharfmq.protocol.message;

import io.netty.buffer.ByteBuf;
import org.wharfmq.protocol.frame.MalformedFrameException;
import org.wharfmq.protocol.frame.WireStrings;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The property section of an encoded message ({@link MessageEncoding}): its one writer, used by
 * {@link MessageWriter}, and its one reader, which checks it without decoding anything ({@link #skip}, the
 * server's check of every SEND) or decodes it ({@link #read}, a selector's or a consumer's) after the same check,
 * so the check accepts exactly the sections the decoder decodes.
 *
 * <pre>
 * int    length   bytes that follow, at least 2
 * short  count    unsigned
 * per property:
 *   string name   not null
 *   byte   tag    MessageEncoding.PROPERTY_*
 *          value  its type's size; a string is an int length (-1 = null) and UTF-8
 * </pre>
 *
 * The properties fill exactly {@code length} bytes.
 */
public final class PropertySection {
    /** The most properties a message can carry: the count is an unsigned short. */
    public static final int MAX_PROPERTIES = 0xffff;

    /** {@link #tagOf} of a name the section holds more than once. */
    public static final int DUPLICATE = -2;

    /** {@link #valueLength} of a tag that names no type. */
    private static final long UNKNOWN_TAG = -1;
    /** {@link #valueLength} of a string whose length is below -1 (null). */
    private static final long NEGATIVE_STRING_LENGTH = -2;
    /** Bytes of a property name quoted in an error; a longer name is cut (its length is in the error). */
    private static final int NAME_IN_ERROR = 64;
    /** Bytes of the length and the count. */
    private static final int PREFIX = 6;

    private PropertySection() {
    }

    /**
     * Writes a section holding {@code properties} in their iteration order, null for none. A null value is written
     * as a null string: a String property may be null ({@code setStringProperty(name, null)} survives the trip as
     * an existing property with a null value).
     *
     * @throws IllegalArgumentException for a null name, a value of no property type, or more than
     *                                  {@link #MAX_PROPERTIES} properties
     */
    static void write(ByteBuf out, Map<String, Object> properties) {
        int count = properties == null ? 0 : properties.size();
        if (count > MAX_PROPERTIES) {
            throw new IllegalArgumentException(count + " properties: a message carries at most " + MAX_PROPERTIES);
        }
        int section = out.writerIndex();
        out.writeInt(0);
        out.writeShort(count);
        if (count > 0) {
            for (Map.Entry<String, Object> e : properties.entrySet()) {
                writeProperty(out, e.getKey(), e.getValue());
            }
        }
        out.setInt(section, out.writerIndex() - section - 4);
    }

    private static void writeProperty(ByteBuf out, String name, Object value) {
        if (name == null) {
            throw new IllegalArgumentException("a property name must not be null");
        }
        WireStrings.write(out, name);
        if (value == null) {
            out.writeByte(MessageEncoding.PROPERTY_STRING);
            WireStrings.write(out, null);
        } else if (!MessageEncoding.writeValue(out, value)) {
            throw new IllegalArgumentException("property " + name + " has unsupported type "
                    + value.getClass().getName() + ": only Boolean, Byte, Short, Integer, Long, Float, Double and String are allowed");
        }
    }

    /** Whether the (checked) section at {@code index} holds no property. */
    static boolean isEmpty(ByteBuf buf, int index) {
        return buf.getShort(index + 4) == 0;
    }

    /**
     * Checks the section at {@code index}, in place, decoding nothing: the count, every name's and string value's
     * length, every type tag, and that the properties fill exactly the declared length. It accepts exactly the
     * sections {@link #read} decodes. The server runs it on every SEND, so it allocates nothing unless the section
     * is broken.
     *
     * @param messageStart the index of the message's first byte: offsets in errors count from there
     * @param messageEnd   the index after the message's last byte
     * @return the index after the section
     * @throws MalformedFrameException naming the property, what is wrong with it and its offset in the message
     */
    public static int skip(ByteBuf buf, int index, int messageStart, int messageEnd) {
        return check(buf, index, messageStart, messageEnd);
    }

    /**
     * Decodes the section at {@code index}, after checking it as {@link #skip} does.
     *
     * @return a mutable map in wire order
     * @throws MalformedFrameException as {@link #skip} does
     */
    public static Map<String, Object> read(ByteBuf buf, int index, int messageStart, int messageEnd) {
        return read(buf, index, messageStart, messageEnd, null);
    }

    /**
     * {@link #read}, the names and string values taken from {@code recent} where the message before had the same
     * ones in the same places (property {@code i}'s name in slot {@code 2i}, its string value in {@code 2i + 1});
     * null: every string decoded.
     */
    public static Map<String, Object> read(ByteBuf buf, int index, int messageStart, int messageEnd,
                                           RecentStrings recent) {
        int end = check(buf, index, messageStart, messageEnd);
        Map<String, Object> properties = new LinkedHashMap<>(Math.max(4, 2 * buf.getUnsignedShort(index + 4)));
        int slot = 0;
        for (int at = index + PREFIX; at < end; slot += 2) { // checked: every name and value fits, every tag is known
            int nameLength = buf.getInt(at);
            int tagAt = at + 4 + nameLength;
            byte tag = buf.getByte(tagAt);
            String name = recent == null ? buf.toString(at + 4, nameLength, StandardCharsets.UTF_8)
                    : recent.at(buf, at + 4, nameLength, slot);
            Object value = recent != null && tag == MessageEncoding.PROPERTY_STRING
                    ? recent.at(buf, tagAt + 5, buf.getInt(tagAt + 1), slot + 1) : valueAt(buf, tag, tagAt + 1);
            properties.put(name, value);
            at = tagAt + 1 + (int) valueLength(buf, tag, tagAt + 1, end);
        }
        return properties;
    }

    /**
     * Where the property named {@code name} (its UTF-8 bytes) is in a section {@link #skip} has checked: the index of
     * its type tag; -1 when the section has none; {@link #DUPLICATE} when it has more than one (a decoder keeps the
     * last, so a check of one alone would be fooled). Walks the whole section; names are compared by length first, so
     * the walk reads little more than the lengths; allocates nothing.
     */
    public static int tagOf(ByteBuf buf, int index, byte[] name) {
        int count = buf.getUnsignedShort(index + 4);
        int end = index + 4 + buf.getInt(index);
        int at = index + PREFIX;
        int found = -1;
        for (int i = 0; i < count; i++) {
            int nameLength = buf.getInt(at);
            int tagAt = at + 4 + nameLength;
            if (nameLength == name.length && sameBytes(buf, at + 4, name)) {
                if (found >= 0) {
                    return DUPLICATE;
                }
                found = tagAt;
            }
            at = next(buf, tagAt, end);
        }
        return found;
    }

    /**
     * {@link #tagOf} of two names in one walk of the section: {@code first}'s in the high 32 bits, {@code second}'s in
     * the low ones ({@link #firstTag}, {@link #secondTag}). Allocates nothing.
     */
    public static long tagsOf(ByteBuf buf, int index, byte[] first, byte[] second) {
        int count = buf.getUnsignedShort(index + 4);
        int end = index + 4 + buf.getInt(index);
        int at = index + PREFIX;
        int firstAt = -1;
        int secondAt = -1;
        for (int i = 0; i < count; i++) {
            int nameLength = buf.getInt(at);
            int tagAt = at + 4 + nameLength;
            if (nameLength == first.length && sameBytes(buf, at + 4, first)) {
                firstAt = firstAt == -1 ? tagAt : DUPLICATE;
            }
            if (nameLength == second.length && sameBytes(buf, at + 4, second)) {
                secondAt = secondAt == -1 ? tagAt : DUPLICATE;
            }
            at = next(buf, tagAt, end);
        }
        return ((long) firstAt << 32) | (secondAt & 0xffffffffL);
    }

    /** The first name's {@link #tagOf} of what {@link #tagsOf} found. */
    public static int firstTag(long tags) {
        return (int) (tags >> 32);
    }

    /** The second name's {@link #tagOf} of what {@link #tagsOf} found. */
    public static int secondTag(long tags) {
        return (int) tags;
    }

    /**
     * Whether the property whose tag is at {@code tagAt} is a string of exactly the value {@code value}: its UTF-8
     * bytes compared in place, nothing decoded unless {@code value} has a character outside ASCII.
     */
    public static boolean isString(ByteBuf buf, int tagAt, String value) {
        if (buf.getByte(tagAt) != MessageEncoding.PROPERTY_STRING) {
            return false;
        }
        int length = buf.getInt(tagAt + 1);
        if (length < value.length()) {
            return false; // a string has at least as many UTF-8 bytes as chars (and null, -1, fewer still)
        }
        if (length == value.length()) {
            for (int i = 0; i < length; i++) {
                char c = value.charAt(i);
                if (c >= 0x80) {
                    break; // not ASCII: decoded below
                }
                if (buf.getByte(tagAt + 5 + i) != (byte) c) {
                    return false;
                }
                if (i == length - 1) {
                    return true;
                }
            }
        }
        return value.equals(buf.toString(tagAt + 5, length, StandardCharsets.UTF_8));
    }

    /** Whether the string property whose tag is at {@code tagAt} has exactly the value {@code utf8}. */
    public static boolean isString(ByteBuf buf, int tagAt, byte[] utf8) {
        return buf.getByte(tagAt) == MessageEncoding.PROPERTY_STRING && buf.getInt(tagAt + 1) == utf8.length
                && sameBytes(buf, tagAt + 5, utf8);
    }

    /** The value of the property whose tag is at {@code tagAt}, decoded: for error messages. */
    public static Object valueOf(ByteBuf buf, int tagAt) {
        return valueAt(buf, buf.getByte(tagAt), tagAt + 1);
    }

    /**
     * The index after the property whose type tag is at {@code tagAt}, in a section {@link #skip} has checked that
     * ends at {@code end}.
     */
    static int next(ByteBuf buf, int tagAt, int end) {
        return tagAt + 1 + (int) valueLength(buf, buf.getByte(tagAt), tagAt + 1, end);
    }

    /** Whether the bytes at {@code at} are {@code bytes}. */
    static boolean sameBytes(ByteBuf buf, int at, byte[] bytes) {
        for (int i = 0; i < bytes.length; i++) {
            if (buf.getByte(at + i) != bytes[i]) {
                return false;
            }
        }
        return true;
    }

    /** The rules of a section, the one check of both {@link #skip} and {@link #read}: the index after it. */
    private static int check(ByteBuf buf, int index, int messageStart, int messageEnd) {
        if (messageEnd - index < PREFIX) {
            throw new MalformedFrameException("the message is truncated: it ends at offset " + (messageEnd - messageStart)
                    + ", inside the length and count of its property section at offset " + (index - messageStart));
        }
        int length = buf.getInt(index);
        if (length < 2 || length > messageEnd - index - 4) {
            throw new MalformedFrameException("property section length " + length + " at offset "
                    + (index - messageStart) + " does not fit the message");
        }
        int end = index + 4 + length;
        int count = buf.getUnsignedShort(index + 4);
        int at = index + PREFIX;
        for (int i = 1; i <= count; i++) {
            if (end - at < 4) {
                throw new MalformedFrameException("the property section ends at offset " + (end - messageStart)
                        + " after " + (i - 1) + " of its " + count + " properties (it declares " + length + " bytes)");
            }
            int nameLength = buf.getInt(at);
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
            byte tag = buf.getByte(tagAt);
            int valueAt = tagAt + 1;
            long valueLength = valueLength(buf, tag, valueAt, end);
            if (valueLength == UNKNOWN_TAG) {
                throw new MalformedFrameException("property " + i + " of " + count + " ("
                        + quotedName(buf, nameAt, nameLength) + ") has unknown type tag 0x"
                        + Integer.toHexString(tag & 0xff) + " at offset " + (tagAt - messageStart));
            }
            if (valueLength == NEGATIVE_STRING_LENGTH) {
                throw new MalformedFrameException("property " + i + " of " + count + " ("
                        + quotedName(buf, nameAt, nameLength) + ") has a string value of length "
                        + buf.getInt(valueAt) + " at offset " + (valueAt - messageStart) + " (-1 is null, else >= 0)");
            }
            if (valueLength > end - valueAt) {
                throw new MalformedFrameException("property " + i + " of " + count + " ("
                        + quotedName(buf, nameAt, nameLength) + "): its value at offset " + (valueAt - messageStart)
                        + " runs past the end of the property section at offset " + (end - messageStart));
            }
            at = valueAt + (int) valueLength;
        }
        if (at != end) {
            throw new MalformedFrameException("the property section declares " + length + " bytes but its " + count
                    + " properties end at offset " + (at - messageStart) + ", " + (end - at) + " bytes before its end");
        }
        return end;
    }

    /**
     * Bytes taken by a value of type {@code tag} at {@code valueAt}: its fixed size, or for a string its length
     * prefix plus its bytes (4 when even the prefix does not fit before {@code end}, for the caller to refuse);
     * {@link #UNKNOWN_TAG} or {@link #NEGATIVE_STRING_LENGTH} when the value cannot be sized.
     */
    private static long valueLength(ByteBuf buf, byte tag, int valueAt, int end) {
        return switch (tag) {
            case MessageEncoding.PROPERTY_BOOLEAN, MessageEncoding.PROPERTY_BYTE -> 1;
            case MessageEncoding.PROPERTY_SHORT -> 2;
            case MessageEncoding.PROPERTY_INT, MessageEncoding.PROPERTY_FLOAT -> 4;
            case MessageEncoding.PROPERTY_LONG, MessageEncoding.PROPERTY_DOUBLE -> 8;
            case MessageEncoding.PROPERTY_STRING -> {
                if (end - valueAt < 4) {
                    yield 4;
                }
                int stringLength = buf.getInt(valueAt);
                yield stringLength < -1 ? NEGATIVE_STRING_LENGTH : 4L + Math.max(0, stringLength);
            }
            default -> UNKNOWN_TAG;
        };
    }

    /** The value of type {@code tag} at {@code valueAt}, which {@link #check} has checked. */
    private static Object valueAt(ByteBuf buf, byte tag, int valueAt) {
        return switch (tag) {
            case MessageEncoding.PROPERTY_BOOLEAN -> buf.getBoolean(valueAt);
            case MessageEncoding.PROPERTY_BYTE -> buf.getByte(valueAt);
            case MessageEncoding.PROPERTY_SHORT -> buf.getShort(valueAt);
            case MessageEncoding.PROPERTY_INT -> buf.getInt(valueAt);
            case MessageEncoding.PROPERTY_LONG -> buf.getLong(valueAt);
            case MessageEncoding.PROPERTY_FLOAT -> buf.getFloat(valueAt);
            case MessageEncoding.PROPERTY_DOUBLE -> buf.getDouble(valueAt);
            default -> WireStrings.at(buf, valueAt + 4, buf.getInt(valueAt)); // PROPERTY_STRING, the only other tag
        };
    }

    /** A property name for an error message, decoded only then. */
    private static String quotedName(ByteBuf buf, int at, int length) {
        String name = buf.toString(at, Math.min(length, NAME_IN_ERROR), StandardCharsets.UTF_8);
        return "'" + name + (length > NAME_IN_ERROR ? "...' (" + length + " bytes)" : "'");
    }
}
