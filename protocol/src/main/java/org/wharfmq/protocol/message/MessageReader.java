package org.wharfmq.protocol.message;

import io.netty.buffer.ByteBuf;
import org.wharfmq.protocol.frame.MalformedFrameException;
import org.wharfmq.protocol.frame.WireStrings;

import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * The one reader of the message layout ({@link MessageEncoding}), and so the one place its rules are checked:
 * the server's header read ({@link MessageHeaders}), the client's decoding of a delivery and {@link WireMessage}
 * all read through it. It reads in place, field by field, and decodes only the fields asked for: the fields it
 * passes on the way to one are checked, not decoded, so whatever is read, a message that breaks a rule anywhere
 * before it is refused, and one whose {@link #bodyLength} has been read has been checked whole (bodies excepted:
 * their encodings are the client's).
 *
 * <p>The fixed-size fields are read at their offsets, in any order; the body type and the priority are checked
 * when the reader is created. The others are read in layout order: message id, correlation id, destination,
 * reply-to, type, properties, body; asking for one after a later one is an {@link IllegalStateException}.
 *
 * <p>The message is all the readable bytes of the buffer, whose indexes the reader never moves (so the server needs
 * no duplicate of the buffer to read it). A reader is a small object that lives for one read; it is not
 * thread-safe.
 */
public final class MessageReader {
    /** The variable-length fields, in layout order, then the end: {@link #next} is the next one to read. */
    private static final int MESSAGE_ID = 0, CORRELATION_ID = 1, DESTINATION = 2, REPLY_TO = 3, TYPE = 4,
            PROPERTIES = 5, BODY = 6, END = 7;
    private static final String[] FIELDS = {"message id", "correlation id", "destination", "reply-to", "type",
            "properties", "body length"};

    private final ByteBuf buf;
    /** Index of the message's first byte. */
    private final int start;
    /** Index after its last byte. */
    private final int end;
    private int next = MESSAGE_ID;
    /** Index of field {@link #next}; at the {@link #END}, of the body's first byte. */
    private int at;

    private MessageReader(ByteBuf message) {
        this.buf = message;
        this.start = message.readerIndex();
        this.end = message.writerIndex();
        this.at = start + MessageEncoding.MESSAGE_ID_OFFSET;
    }

    /**
     * A reader of the message occupying all readable bytes of {@code message}.
     *
     * @throws MalformedFrameException when its fixed-size fields are cut short, or its body type or priority is
     *                                 not one there is
     */
    public static MessageReader of(ByteBuf message) {
        checkFixedFields(message);
        return new MessageReader(message);
    }

    private static void checkFixedFields(ByteBuf message) {
        if (message.readableBytes() < MessageEncoding.MESSAGE_ID_OFFSET) {
            throw new MalformedFrameException("the message is truncated: its " + message.readableBytes() + " bytes"
                    + " do not hold the " + MessageEncoding.MESSAGE_ID_OFFSET + " bytes of its fixed-size fields");
        }
        BodyType.of(message.getByte(message.readerIndex()));
        int priority = message.getByte(message.readerIndex() + MessageEncoding.PRIORITY_OFFSET);
        if (!MessageEncoding.isValidPriority(priority)) {
            throw new MalformedFrameException(MessageEncoding.invalidPriority(priority));
        }
    }

    /**
     * JMSExpiration of the message occupying {@code message}'s readable bytes, read in place without checking the
     * rest: lets a consumer drop an expired message undecoded.
     *
     * @throws IndexOutOfBoundsException when the message is too short to hold it
     */
    public static long expirationOf(ByteBuf message) {
        return message.getLong(message.readerIndex() + MessageEncoding.EXPIRATION_OFFSET);
    }

    /** The JMS message type. */
    public BodyType bodyType() {
        return BodyType.of(buf.getByte(start));
    }

    /** JMSDeliveryMode is PERSISTENT. */
    public boolean persistent() {
        return (flags() & MessageEncoding.FLAG_PERSISTENT) != 0;
    }

    /** JMSPriority, 0-9. */
    public int priority() {
        return buf.getByte(start + MessageEncoding.PRIORITY_OFFSET);
    }

    /** JMSTimestamp, 0 when disabled. */
    public long timestamp() {
        return buf.getLong(start + MessageEncoding.TIMESTAMP_OFFSET);
    }

    /** JMSExpiration: absolute epoch millis, 0 = never. */
    public long expiration() {
        return buf.getLong(start + MessageEncoding.EXPIRATION_OFFSET);
    }

    /** JMSDeliveryTime: absolute epoch millis, 0 = at once. */
    public long deliveryTime() {
        return buf.getLong(start + MessageEncoding.DELIVERY_TIME_OFFSET);
    }

    /** Whether the correlation id was set as bytes: then {@link #correlationIdBytes} reads it as set. */
    public boolean correlationIdIsBytes() {
        return (flags() & MessageEncoding.FLAG_CORRELATION_ID_BYTES) != 0;
    }

    /** JMSMessageID, or null. */
    public String messageId() {
        return string(field(MESSAGE_ID), pass());
    }

    /**
     * JMSCorrelationID as selectors and the correlation index see it: the string the sender set, or for an id set
     * as bytes its {@link CorrelationIds string form}; null when there is none.
     */
    public String correlationId() {
        int from = field(CORRELATION_ID);
        int to = pass();
        return correlationIdIsBytes() ? CorrelationIds.ofBytes(buf, from + 4, to - from - 4) : string(from, to);
    }

    /**
     * JMSCorrelationID as the bytes it was set as; only when {@link #correlationIdIsBytes} (read a string one with
     * {@link #correlationId}).
     */
    public byte[] correlationIdBytes() {
        if (!correlationIdIsBytes()) {
            throw new IllegalStateException("the correlation id was set as a string: read it with correlationId()");
        }
        int from = field(CORRELATION_ID);
        byte[] bytes = new byte[pass() - from - 4];
        buf.getBytes(from + 4, bytes);
        return bytes;
    }

    /** JMSDestination, or null. */
    public WireDestination destination() {
        return WireDestination.at(buf, field(DESTINATION), pass());
    }

    /** JMSReplyTo, or null. */
    public WireDestination replyTo() {
        return WireDestination.at(buf, field(REPLY_TO), pass());
    }

    /** JMSType, or null. */
    public String type() {
        return string(field(TYPE), pass());
    }

    /**
     * Where the property section starts, as an offset from the message's first byte, for decoding it later
     * ({@link PropertySection#read}); the section is not read here (reading a later field checks it).
     */
    public int propertiesOffset() {
        return field(PROPERTIES) - start;
    }

    /** The properties, decoded: a mutable map in wire order. */
    public Map<String, Object> properties() {
        Map<String, Object> properties = PropertySection.read(buf, field(PROPERTIES), start, end);
        pass();
        return properties;
    }

    /**
     * The body's length, -1 for none; the body fills the rest of the message exactly, from {@link #bodyIndex}. The
     * message has then been checked whole.
     */
    public int bodyLength() {
        int from = field(BODY);
        pass();
        return buf.getInt(from);
    }

    /** The index in the buffer of the body's first byte, once {@link #bodyLength} has been read. */
    public int bodyIndex() {
        if (next != END) {
            throw new IllegalStateException("the body starts after its length: read bodyLength() first");
        }
        return at;
    }

    /** A copy of the body's bytes, or null for none. */
    public byte[] body() {
        int length = bodyLength();
        if (length == -1) {
            return null;
        }
        byte[] body = new byte[length];
        buf.getBytes(bodyIndex(), body);
        return body;
    }

    private int flags() {
        return buf.getByte(start + MessageEncoding.FLAGS_OFFSET);
    }

    /** The string from {@code from} to {@code to}, which {@link #pass} has checked. */
    private String string(int from, int to) {
        int length = to - from - 4;
        return length == 0 && buf.getInt(from) == -1 ? null : buf.toString(from + 4, length, StandardCharsets.UTF_8);
    }

    /** Moves to {@code field}, checking the fields on the way, or refuses to go back to it; returns its index. */
    private int field(int field) {
        if (next > field) {
            throw new IllegalStateException("the " + FIELDS[field] + " comes too late: a message's fields are read"
                    + " once each, in the order message id, correlation id, destination, reply-to, type, properties,"
                    + " body");
        }
        while (next < field) {
            pass();
        }
        return at;
    }

    /**
     * Checks field {@link #next} at {@link #at} and moves past it; returns the index after it (after the body's
     * length: the body's first byte).
     */
    private int pass() {
        if (next == END) {
            throw new IllegalStateException("the message has been read to its end");
        }
        int from = at;
        // a string, a byte correlation id and the body start with an int; destinations and the property section
        // check their own beginnings
        if (next != DESTINATION && next != REPLY_TO && next != PROPERTIES && end - from < 4) {
            throw new MalformedFrameException("the message is truncated: it ends at offset " + (end - start)
                    + ", inside its " + FIELDS[next] + " at offset " + (from - start));
        }
        at = switch (next) {
            case MESSAGE_ID, TYPE -> stringEnd(from);
            case CORRELATION_ID -> correlationIdIsBytes() ? correlationIdBytesEnd(from) : stringEnd(from);
            case DESTINATION, REPLY_TO -> WireDestination.skip(buf, from, end);
            case PROPERTIES -> PropertySection.skip(buf, from, start, end);
            default -> bodyStart(from);
        };
        next++;
        return at;
    }

    private int stringEnd(int from) {
        return from + 4 + Math.max(0, WireStrings.checkLength(buf.getInt(from), end - from - 4));
    }

    private int correlationIdBytesEnd(int from) {
        int length = buf.getInt(from);
        if (length < 0 || length > end - from - 4) {
            throw new MalformedFrameException("correlation id length " + length + " does not fit the message");
        }
        return from + 4 + length;
    }

    /** The body's first byte, after checking that the body whose length is at {@code from} fills the message. */
    private int bodyStart(int from) {
        int length = buf.getInt(from);
        int left = end - from - 4;
        if (length == -1 ? left != 0 : length != left) {
            throw new MalformedFrameException("body length " + length + " does not match the " + left + " bytes left");
        }
        return from + 4;
    }
}
