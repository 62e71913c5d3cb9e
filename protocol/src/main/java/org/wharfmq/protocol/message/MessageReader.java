package org.wharfmq.protocol.message;

import io.netty.buffer.ByteBuf;
import org.wharfmq.protocol.frame.MalformedFrameException;
import org.wharfmq.protocol.frame.WireStrings;

import java.util.Map;

/**
 * The one reader of the message layout ({@link MessageEncoding}), and so the one place its rules are checked:
 * the server's header read ({@link MessageHeaders}), the client's decoding of a delivery and
 * {@link WireMessage#decode} all read through it, and refuse a broken message in the same words.
 *
 * <p>It reads from a buffer's reader index, one call a field, each checking its field and moving the index past
 * it. It keeps nothing between calls, so reading creates no object but the values asked for (the server reads the
 * headers of every SEND with it, the client every delivery; a reader object would be one more allocation on both
 * paths, and absolute reads through a slice cost more than relative ones). The fields are read in layout order
 * (the three readers above do; the golden and drift tests hold them to it):
 *
 * <pre>
 * readBodyType(in)                               checks that the fixed-size fields are all there
 * readFlags(in)                                  then persistent(flags), correlationIdIsBytes(flags)
 * readPriority(in)
 * readTimestamp(in), readExpiration(in), readDeliveryTime(in)
 * readMessageId(in)
 * readCorrelationId(in, correlationIdIsBytes(flags)) or readCorrelationIdBytes(in)
 * readDestination(in)
 * readReplyTo(in) or skipReplyTo(in)            skip: checked, not decoded
 * readType(in)
 * readProperties(in, start) or skipProperties(in, start)
 * readBodyLength(in)                             the body's bytes follow, to the end
 * </pre>
 *
 * A message whose body length has been read has been checked whole (bodies excepted: their encodings are the
 * client's). Every refusal is a {@link MalformedFrameException}, a message cut short included.
 */
public final class MessageReader {

    private MessageReader() {
    }

    /**
     * The body type, the message's first field: the JMS message type. Checks that the fixed-size fields that follow
     * it are all there, so that they are read without another check.
     *
     * @throws MalformedFrameException when they are not, or the body type is not one there is
     */
    public static BodyType readBodyType(ByteBuf in) {
        if (in.readableBytes() < MessageEncoding.MESSAGE_ID_OFFSET) {
            throw new MalformedFrameException("the message is truncated: its " + in.readableBytes() + " bytes"
                    + " do not hold the " + MessageEncoding.MESSAGE_ID_OFFSET + " bytes of its fixed-size fields");
        }
        return BodyType.of(in.readByte());
    }

    /** The flags, for {@link #persistent} and {@link #correlationIdIsBytes}. */
    public static int readFlags(ByteBuf in) {
        return in.readByte();
    }

    /** Whether {@code flags} say JMSDeliveryMode is PERSISTENT. */
    public static boolean persistent(int flags) {
        return (flags & MessageEncoding.FLAG_PERSISTENT) != 0;
    }

    /** Whether {@code flags} say the client resent the message after a reconnection (it may be stored twice). */
    public static boolean resent(int flags) {
        return (flags & MessageEncoding.FLAG_RESENT) != 0;
    }

    /**
     * Whether {@code flags} say the correlation id was set as bytes: it is then read by
     * {@link #readCorrelationIdBytes}.
     */
    public static boolean correlationIdIsBytes(int flags) {
        return (flags & MessageEncoding.FLAG_CORRELATION_ID_BYTES) != 0;
    }

    /**
     * JMSPriority, 0-9.
     *
     * @throws MalformedFrameException outside 0-9, in the words the writer refuses it with
     */
    public static int readPriority(ByteBuf in) {
        int priority = in.readByte();
        if (!MessageEncoding.isValidPriority(priority)) {
            throw new MalformedFrameException(MessageEncoding.invalidPriority(priority));
        }
        return priority;
    }

    /** JMSTimestamp, 0 when disabled. */
    public static long readTimestamp(ByteBuf in) {
        return in.readLong();
    }

    /** JMSExpiration: absolute epoch millis, 0 = never. */
    public static long readExpiration(ByteBuf in) {
        return in.readLong();
    }

    /** JMSDeliveryTime: absolute epoch millis, 0 = at once. */
    public static long readDeliveryTime(ByteBuf in) {
        return in.readLong();
    }

    /**
     * Whether the message occupying {@code message}'s readable bytes is persistent: its flags read in place and alone
     * (nothing is checked, the indexes do not move); false for a message too short to have flags, which whoever reads
     * it next refuses.
     */
    public static boolean persistentOf(ByteBuf message) {
        return message.readableBytes() > MessageEncoding.FLAGS_OFFSET
                && persistent(message.getByte(message.readerIndex() + MessageEncoding.FLAGS_OFFSET));
    }

    /**
     * JMSExpiration of the message occupying {@code message}'s readable bytes, read in place and alone (nothing is
     * checked, the indexes do not move): lets a consumer drop an expired message undecoded.
     *
     * @throws IndexOutOfBoundsException when the message is too short to hold it
     */
    public static long expirationOf(ByteBuf message) {
        return message.getLong(message.readerIndex() + MessageEncoding.EXPIRATION_OFFSET);
    }

    /** JMSMessageID, or null. */
    public static String readMessageId(ByteBuf in) {
        need(in, "message id");
        return WireStrings.read(in);
    }

    /**
     * JMSCorrelationID as selectors and the correlation index see it: the string the sender set, or for an id set
     * as bytes ({@code bytes}: {@link #correlationIdIsBytes}) its {@link CorrelationIds string form}; null when
     * there is none.
     */
    public static String readCorrelationId(ByteBuf in, boolean bytes) {
        need(in, "correlation id");
        if (!bytes) {
            return WireStrings.read(in);
        }
        int length = correlationIdBytesLength(in);
        String id = CorrelationIds.ofBytes(in, in.readerIndex(), length);
        in.skipBytes(length);
        return id;
    }

    /** JMSCorrelationID set as bytes, as it was set; only when {@link #correlationIdIsBytes}. */
    public static byte[] readCorrelationIdBytes(ByteBuf in) {
        need(in, "correlation id");
        byte[] id = new byte[correlationIdBytesLength(in)];
        in.readBytes(id);
        return id;
    }

    private static int correlationIdBytesLength(ByteBuf in) {
        int length = in.readInt();
        if (length < 0 || length > in.readableBytes()) {
            throw new MalformedFrameException("correlation id length " + length + " does not fit the message");
        }
        return length;
    }

    /** JMSDestination, or null. */
    public static WireDestination readDestination(ByteBuf in) {
        return WireDestination.read(in);
    }

    /** JMSDestination, or null: {@code recent} itself when it is the same ({@link WireDestination#read(ByteBuf, WireDestination)}). */
    public static WireDestination readDestination(ByteBuf in, WireDestination recent) {
        return WireDestination.read(in, recent);
    }

    /** JMSDestination, or null: one of {@code recent} when it names it ({@link WireDestination#read(ByteBuf, WireDestination[])}). */
    public static WireDestination readDestination(ByteBuf in, WireDestination[] recent) {
        return WireDestination.read(in, recent);
    }

    /** JMSReplyTo, or null. */
    public static WireDestination readReplyTo(ByteBuf in) {
        return WireDestination.read(in);
    }

    /** JMSReplyTo, or null: {@code recent} itself when it is the same ({@link WireDestination#read(ByteBuf, WireDestination)}). */
    public static WireDestination readReplyTo(ByteBuf in, WireDestination recent) {
        return WireDestination.read(in, recent);
    }

    /** Checks JMSReplyTo without decoding it. */
    public static void skipReplyTo(ByteBuf in) {
        WireDestination.skip(in);
    }

    /** JMSType, or null. */
    public static String readType(ByteBuf in) {
        need(in, "type");
        return WireStrings.read(in);
    }

    /**
     * The properties, decoded ({@link PropertySection#read}): a mutable map in wire order.
     *
     * @param start the index of the message's first byte: offsets in errors count from there
     */
    public static Map<String, Object> readProperties(ByteBuf in, int start) {
        return readProperties(in, start, null);
    }

    /**
     * {@link #readProperties(ByteBuf, int)}, the names and string values the message before had in the same places
     * taken from {@code recent} rather than decoded again ({@link PropertySection#read(ByteBuf, int, int, int, RecentStrings)}).
     */
    public static Map<String, Object> readProperties(ByteBuf in, int start, RecentStrings recent) {
        int section = in.readerIndex();
        Map<String, Object> properties = PropertySection.read(in, section, start, in.writerIndex(), recent);
        in.readerIndex(section + 4 + in.getInt(section));
        return properties;
    }

    /**
     * Checks the properties without decoding them or creating any object ({@link PropertySection#skip}).
     *
     * @param start the index of the message's first byte: offsets in errors count from there
     */
    public static void skipProperties(ByteBuf in, int start) {
        in.readerIndex(PropertySection.skip(in, in.readerIndex(), start, in.writerIndex()));
    }

    /**
     * The body's length, -1 for none, checked to fill the rest of the message exactly: the body's bytes follow, up
     * to the end of {@code in}'s readable bytes.
     */
    public static int readBodyLength(ByteBuf in) {
        need(in, "body length");
        int length = in.readInt();
        int left = in.readableBytes();
        if (length == -1 ? left != 0 : length != left) {
            throw new MalformedFrameException("body length " + length + " does not match the " + left + " bytes left");
        }
        return length;
    }

    /** Checks that the int that starts {@code field} is there. */
    private static void need(ByteBuf in, String field) {
        if (in.readableBytes() < 4) {
            throw new MalformedFrameException("the message is truncated: " + in.readableBytes() + " bytes are left"
                    + " for its " + field + ", which takes at least 4");
        }
    }
}
