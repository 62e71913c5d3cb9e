package org.wharfmq.protocol.message;

import io.netty.buffer.ByteBuf;
import org.wharfmq.protocol.frame.MalformedFrameException;

import java.util.Map;

/**
 * The part of an encoded message the server needs to route and select it: header fields, where the properties
 * start, and how long the body is. Reading it validates the whole layout, the property section included (so a
 * malformed message is refused at SEND, not at some later delivery), but decodes neither the properties nor the
 * body.
 */
public final class MessageHeaders {
    /** The name of the JMSXUserID property, UTF-8: the server checks it on every SEND. */
    private static final byte[] USER_ID = "JMSXUserID".getBytes(java.nio.charset.StandardCharsets.UTF_8);

    private final BodyType bodyType;
    private final boolean persistent;
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

    private MessageHeaders(BodyType bodyType, boolean persistent, int priority, long timestamp, long expiration, long deliveryTime,
                           String messageId, String correlationId, WireDestination destination, String type,
                           int propertiesOffset, int bodyLength) {
        this.bodyType = bodyType;
        this.persistent = persistent;
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
     * Reads the headers of the message occupying all readable bytes of {@code message}, checking the whole
     * message but its body ({@link MessageReader}) and decoding neither its reply-to nor its properties; the
     * buffer's indexes are not changed.
     *
     * @throws MalformedFrameException when the layout is broken
     */
    public static MessageHeaders read(ByteBuf message) {
        return read(message, null);
    }

    /**
     * {@link #read(ByteBuf)}, JMSDestination taken from {@code recent} when it names one of them, else decoded and
     * put there ({@link WireDestination#read(ByteBuf, WireDestination[])}): for a reader of many messages, on one
     * thread, that go to a few destinations (a connection's SENDs, a receiver channel's messages), so that a message
     * costs no name decoded, no destination made and no name's hash computed again for its look-ups.
     *
     * @param recent the reader's recent destinations; null to decode JMSDestination anew
     */
    public static MessageHeaders read(ByteBuf message, WireDestination[] recent) {
        ByteBuf in = message.duplicate();
        // offsets count from the duplicate's own reader index: on older Netty 4.1 releases (4.1.101, Spring Boot
        // 3.0's) the duplicate of a pooled slice (a decoded frame) counts in its parent's indexes, not the slice's; a
        // server embedded in an application runs on the application's Netty
        int start = in.readerIndex();
        BodyType bodyType = MessageReader.readBodyType(in);
        int flags = MessageReader.readFlags(in);
        int priority = MessageReader.readPriority(in);
        long timestamp = MessageReader.readTimestamp(in);
        long expiration = MessageReader.readExpiration(in);
        long deliveryTime = MessageReader.readDeliveryTime(in);
        String messageId = MessageReader.readMessageId(in);
        // a byte id's string form, once per message, for selectors and the correlation index
        String correlationId = MessageReader.readCorrelationId(in, MessageReader.correlationIdIsBytes(flags));
        WireDestination destination = recent == null ? MessageReader.readDestination(in)
                : MessageReader.readDestination(in, recent);
        MessageReader.skipReplyTo(in);
        String type = MessageReader.readType(in);
        int propertiesOffset = in.readerIndex() - start;
        MessageReader.skipProperties(in, start); // decoded later, and only if a selector asks
        int bodyLength = MessageReader.readBodyLength(in);
        return new MessageHeaders(bodyType, MessageReader.persistent(flags), priority, timestamp, expiration,
                deliveryTime, messageId, correlationId, destination, type, propertiesOffset, bodyLength);
    }

    /**
     * These headers for the same message written anew with JMSDestination {@code destination} and its property section
     * at {@code propertiesOffset} ({@link TransmissionHeader.Addressed#headers}).
     */
    MessageHeaders readdressed(WireDestination destination, int propertiesOffset) {
        return new MessageHeaders(bodyType, persistent, priority, timestamp, expiration, deliveryTime, messageId,
                correlationId, destination, type, propertiesOffset, bodyLength);
    }

    /** Decodes the properties of {@code message} (the same buffer these headers were read from). */
    public Map<String, Object> readProperties(ByteBuf message) {
        int start = message.readerIndex();
        return PropertySection.read(message, start + propertiesOffset, start, message.writerIndex());
    }

    /** Whether {@code message} (the buffer these headers were read from) has any property, without decoding them. */
    public boolean hasProperties(ByteBuf message) {
        return !PropertySection.isEmpty(message, message.readerIndex() + propertiesOffset);
    }

    /**
     * The property {@code name} of {@code message} (the buffer these headers were read from), {@code nameUtf8} its
     * UTF-8 bytes: read in place, the other properties left undecoded; null when it has none. Of a name the section
     * holds more than once, the last, as {@link #readProperties} has it.
     */
    public Object property(ByteBuf message, String name, byte[] nameUtf8) {
        int properties = message.readerIndex() + propertiesOffset;
        if (PropertySection.isEmpty(message, properties)) {
            return null;
        }
        int tag = PropertySection.tagOf(message, properties, nameUtf8);
        return tag == -1 ? null
                : tag == PropertySection.DUPLICATE ? readProperties(message).get(name)
                : PropertySection.valueOf(message, tag);
    }

    /**
     * Where the JMSXUserID property of {@code message} (the buffer these headers were read from) is: the index of its
     * type tag ({@link PropertySection#isString}, {@link PropertySection#valueOf}), -1 when it has none, or
     * {@link PropertySection#DUPLICATE} when it has more than one. A walk over the checked properties, on demand (the
     * server's SEND check), that allocates nothing.
     */
    public int userIdTag(ByteBuf message) {
        int properties = message.readerIndex() + propertiesOffset;
        return PropertySection.isEmpty(message, properties) ? -1 : PropertySection.tagOf(message, properties, USER_ID);
    }

    /** The JMS message type. */
    public BodyType bodyType() {
        return bodyType;
    }

    /** JMSDeliveryMode is PERSISTENT. */
    public boolean persistent() {
        return persistent;
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

    /** Where the property section starts, as an offset from the message's first byte ({@link PropertySection}). */
    public int propertiesOffset() {
        return propertiesOffset;
    }

    /** Body length in bytes; -1 for no body. */
    public int bodyLength() {
        return bodyLength;
    }
}
