package org.wharfmq.protocol.message;

import io.netty.buffer.ByteBuf;
import org.wharfmq.protocol.frame.MalformedFrameException;
import org.wharfmq.protocol.frame.WireStrings;

import java.util.Map;

/**
 * The part of an encoded message the server needs to route and select it: header fields, where the properties
 * start, and how long the body is. Reading it validates the whole layout, the property section included (so a
 * malformed message is refused at SEND, not at some later delivery), but decodes neither the properties nor the
 * body.
 */
public final class MessageHeaders {
    private final BodyType bodyType;
    private final int flags;
    private final int priority;
    private final long timestamp;
    private final long expiration;
    private final long deliveryTime;
    private final String messageId;
    private final String correlationId;
    private final WireDestination destination;
    private final String type;
    private final int propertiesOffset;
    private final int bodyLength;

    private MessageHeaders(BodyType bodyType, int flags, int priority, long timestamp, long expiration, long deliveryTime,
                           String messageId, String correlationId, WireDestination destination, String type,
                           int propertiesOffset, int bodyLength) {
        this.bodyType = bodyType;
        this.flags = flags;
        this.priority = priority;
        this.timestamp = timestamp;
        this.expiration = expiration;
        this.deliveryTime = deliveryTime;
        this.messageId = messageId;
        this.correlationId = correlationId;
        this.destination = destination;
        this.type = type;
        this.propertiesOffset = propertiesOffset;
        this.bodyLength = bodyLength;
    }

    /**
     * Reads the headers of the message occupying all readable bytes of {@code message}; the buffer's indexes are
     * not changed.
     *
     * @throws MalformedFrameException when the layout is broken
     */
    public static MessageHeaders read(ByteBuf message) {
        ByteBuf in = message.duplicate();
        try {
            BodyType bodyType = BodyType.of(in.readByte());
            int flags = in.readByte();
            int priority = in.readByte();
            if (priority < 0 || priority > 9) {
                throw new MalformedFrameException("priority " + priority + " is outside 0-9");
            }
            long timestamp = in.readLong();
            long expiration = in.readLong();
            long deliveryTime = in.readLong();
            String messageId = WireStrings.read(in);
            String correlationId;
            if ((flags & MessageEncoding.FLAG_CORRELATION_ID_BYTES) != 0) {
                // once per message with a byte id, so selectors and the correlation index see a string
                int length = in.readInt();
                if (length < 0 || length > in.readableBytes()) {
                    throw new MalformedFrameException("correlation id length " + length + " does not fit the message");
                }
                correlationId = CorrelationIds.ofBytes(in, in.readerIndex(), length);
                in.skipBytes(length);
            } else {
                correlationId = WireStrings.read(in);
            }
            WireDestination destination = WireDestination.read(in);
            WireDestination.skip(in);
            String type = WireStrings.read(in);
            int propertiesOffset = in.readerIndex() - message.readerIndex();
            MessageEncoding.skipProperties(in, message.readerIndex());
            int bodyLength = in.readInt();
            boolean bodyFits = bodyLength == -1 ? !in.isReadable() : bodyLength == in.readableBytes();
            if (!bodyFits) {
                throw new MalformedFrameException("body length " + bodyLength + " does not match the " + in.readableBytes() + " bytes left");
            }
            return new MessageHeaders(bodyType, flags, priority, timestamp, expiration, deliveryTime, messageId,
                    correlationId, destination, type, propertiesOffset, bodyLength);
        } catch (IndexOutOfBoundsException e) {
            throw new MalformedFrameException("message is truncated: " + e.getMessage());
        }
    }

    /** Decodes the properties of {@code message} (the same buffer these headers were read from). */
    public Map<String, Object> readProperties(ByteBuf message) {
        ByteBuf in = message.duplicate();
        in.readerIndex(message.readerIndex() + propertiesOffset);
        return MessageEncoding.readProperties(in);
    }

    /** Whether {@code message} (the buffer these headers were read from) has any property, without decoding them. */
    public boolean hasProperties(ByteBuf message) {
        return message.getShort(message.readerIndex() + propertiesOffset + 4) != 0;
    }

    /** The JMS message type. */
    public BodyType bodyType() {
        return bodyType;
    }

    /** JMSDeliveryMode is PERSISTENT. */
    public boolean persistent() {
        return (flags & MessageEncoding.FLAG_PERSISTENT) != 0;
    }

    /** JMSPriority 0-9. */
    public int priority() {
        return priority;
    }

    /** JMSTimestamp, 0 when disabled. */
    public long timestamp() {
        return timestamp;
    }

    /** Absolute expiry time in epoch millis, 0 = never. */
    public long expiration() {
        return expiration;
    }

    /** Absolute earliest delivery time in epoch millis, 0 = at once. */
    public long deliveryTime() {
        return deliveryTime;
    }

    /** JMSMessageID or null. */
    public String messageId() {
        return messageId;
    }

    /**
     * JMSCorrelationID as selectors and the correlation index see it: the string the sender set, or for an id set
     * as bytes its {@link CorrelationIds string form} ({@code "ID:"} and lowercase hex); null when there is none.
     */
    public String correlationId() {
        return correlationId;
    }

    /** JMSDestination: where the producer sent it. */
    public WireDestination destination() {
        return destination;
    }

    /** JMSType or null. */
    public String type() {
        return type;
    }

    /** Body length in bytes; -1 for no body. */
    public int bodyLength() {
        return bodyLength;
    }
}
