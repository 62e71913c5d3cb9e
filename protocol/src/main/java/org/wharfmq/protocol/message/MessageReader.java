package org.wharfmq.protocol.message;

import io.netty.buffer.ByteBuf;
import org.wharfmq.protocol.frame.MalformedFrameException;
import org.wharfmq.protocol.frame.WireStrings;

import java.util.Map;

/**
 * The one reader of the message layout ({@link MessageEncoding}), and so the one place its rules are checked:
 * the server's header read ({@link MessageHeaders}), the client's decoding of a delivery and {@link WireMessage}
 * all read through it. It reads in place, field by field, checking each field as it reads it; the two a reader
 * may not need, the reply-to and the properties, it can check without decoding ({@link #skipReplyTo},
 * {@link #skipProperties}: the server's check of every SEND, which creates nothing for them). A message whose
 * {@link #bodyLength} has been read has been checked whole (bodies excepted: their encodings are the client's).
 *
 * <p>The fixed-size fields are read at their offsets, in any order; the body type and the priority are checked
 * when the reader is created. The others are read (or skipped) once each, in layout order: message id, correlation
 * id, destination, reply-to, type, properties, body; reading one out of order is an {@link IllegalStateException}.
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
    /** The fixed-size fields that are checked, read once. */
    private final BodyType bodyType;
    private final byte flags;
    private final byte priority;
    private int next = MESSAGE_ID;
    /** Index of field {@link #next}; at the {@link #END}, of the body's first byte. */
    private int at;

    private MessageReader(ByteBuf message, BodyType bodyType, byte flags, byte priority) {
        this.buf = message;
        this.start = message.readerIndex();
        this.end = message.writerIndex();
        this.bodyType = bodyType;
        this.flags = flags;
        this.priority = priority;
        this.at = start + MessageEncoding.MESSAGE_ID_OFFSET;
    }

    /**
     * A reader of the message occupying all readable bytes of {@code message}.
     *
     * @throws MalformedFrameException when its fixed-size fields are cut short, or its body type or priority is
     *                                 not one there is
     */
    public static MessageReader of(ByteBuf message) {
        int start = message.readerIndex();
        if (message.readableBytes() < MessageEncoding.MESSAGE_ID_OFFSET) {
            throw truncatedFixedFields(message.readableBytes());
        }
        byte priority = message.getByte(start + MessageEncoding.PRIORITY_OFFSET);
        if (!MessageEncoding.isValidPriority(priority)) {
            throw new MalformedFrameException(MessageEncoding.invalidPriority(priority));
        }
        return new MessageReader(message, BodyType.of(message.getByte(start)),
                message.getByte(start + MessageEncoding.FLAGS_OFFSET), priority);
    }

    private static MalformedFrameException truncatedFixedFields(int length) {
        return new MalformedFrameException("the message is truncated: its " + length + " bytes do not hold the "
                + MessageEncoding.MESSAGE_ID_OFFSET + " bytes of its fixed-size fields");
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
        return bodyType;
    }

    /** JMSDeliveryMode is PERSISTENT. */
    public boolean persistent() {
        return (flags & MessageEncoding.FLAG_PERSISTENT) != 0;
    }

    /** JMSPriority, 0-9. */
    public int priority() {
        return priority;
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
        return (flags & MessageEncoding.FLAG_CORRELATION_ID_BYTES) != 0;
    }

    /** JMSMessageID, or null. */
    public String messageId() {
        int from = field(MESSAGE_ID);
        passed(stringEnd(from));
        return WireStrings.at(buf, from);
    }

    /**
     * JMSCorrelationID as selectors and the correlation index see it: the string the sender set, or for an id set
     * as bytes its {@link CorrelationIds string form}; null when there is none.
     */
    public String correlationId() {
        int from = field(CORRELATION_ID);
        int to = passed(correlationIdEnd(from));
        if (correlationIdIsBytes()) {
            return CorrelationIds.ofBytes(buf, from + 4, to - from - 4);
        }
        return WireStrings.at(buf, from);
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
        byte[] bytes = new byte[passed(correlationIdEnd(from)) - from - 4];
        buf.getBytes(from + 4, bytes);
        return bytes;
    }

    /** JMSDestination, or null. */
    public WireDestination destination() {
        int from = field(DESTINATION);
        return WireDestination.at(buf, from, passed(WireDestination.skip(buf, from, end)));
    }

    /** JMSReplyTo, or null. */
    public WireDestination replyTo() {
        int from = field(REPLY_TO);
        return WireDestination.at(buf, from, passed(WireDestination.skip(buf, from, end)));
    }

    /** Checks JMSReplyTo, without decoding it. */
    public void skipReplyTo() {
        passed(WireDestination.skip(buf, field(REPLY_TO), end));
    }

    /** JMSType, or null. */
    public String type() {
        int from = field(TYPE);
        passed(stringEnd(from));
        return WireStrings.at(buf, from);
    }

    /**
     * Checks the properties without decoding them or creating any object ({@link PropertySection#skip}).
     *
     * @return where the property section starts, as an offset from the message's first byte, for decoding it
     *         later ({@link PropertySection#read})
     */
    public int skipProperties() {
        int from = field(PROPERTIES);
        passed(PropertySection.skip(buf, from, start, end));
        return from - start;
    }

    /** The properties, decoded: a mutable map in wire order. */
    public Map<String, Object> properties() {
        int from = field(PROPERTIES);
        Map<String, Object> properties = PropertySection.read(buf, from, start, end);
        passed(from + 4 + buf.getInt(from)); // the section read has checked its length
        return properties;
    }

    /**
     * The body's length, -1 for none; the body fills the rest of the message exactly, from {@link #bodyIndex}. The
     * message has then been checked whole.
     */
    public int bodyLength() {
        int from = field(BODY);
        int length = checkedBodyLength(from);
        passed(from + 4);
        return length;
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


    /** The index of {@code field}, which must be the next one. */
    private int field(int field) {
        if (next != field) {
            throw outOfOrder(field, next);
        }
        return at;
    }

    /** Field {@link #next} has been read, up to {@code to}: moves on to the next one. */
    private int passed(int to) {
        at = to;
        next++;
        return to;
    }

    private static IllegalStateException outOfOrder(int field, int next) {
        return new IllegalStateException("the " + FIELDS[field] + " is read out of order (the next field is "
                + (next == END ? "none: the message has been read" : "the " + FIELDS[next]) + "): a message's fields"
                + " are read once each, in the order message id, correlation id, destination, reply-to, type,"
                + " properties, body (skipReplyTo and skipProperties check the two a reader may leave undecoded)");
    }

    /** The index after the string at {@code from}, checked. */
    private int stringEnd(int from) {
        need(from);
        return from + 4 + Math.max(0, WireStrings.checkLength(buf.getInt(from), end - from - 4));
    }

    /** The index after the correlation id at {@code from}, a string or, by the flag, bytes; checked. */
    private int correlationIdEnd(int from) {
        if (!correlationIdIsBytes()) {
            return stringEnd(from);
        }
        need(from);
        int length = buf.getInt(from);
        if (length < 0 || length > end - from - 4) {
            throw new MalformedFrameException("correlation id length " + length + " does not fit the message");
        }
        return from + 4 + length;
    }

    /** The length of the body at {@code from}, checked to fill the rest of the message. */
    private int checkedBodyLength(int from) {
        need(from);
        int length = buf.getInt(from);
        int left = end - from - 4;
        if (length == -1 ? left != 0 : length != left) {
            throw new MalformedFrameException("body length " + length + " does not match the " + left + " bytes left");
        }
        return length;
    }

    /** Checks that the int that starts field {@link #next} at {@code from} is inside the message. */
    private void need(int from) {
        if (end - from < 4) {
            throw new MalformedFrameException("the message is truncated: it ends at offset " + (end - start)
                    + ", inside its " + FIELDS[next] + " at offset " + (from - start));
        }
    }
}
