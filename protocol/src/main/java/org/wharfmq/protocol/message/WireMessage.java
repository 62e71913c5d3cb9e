package org.wharfmq.protocol.message;

import io.netty.buffer.ByteBuf;
import org.wharfmq.protocol.frame.MalformedFrameException;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A whole message as plain data, encoded by {@link MessageWriter} and decoded by {@link MessageReader}: what tests,
 * benchmarks and the server's dead letters build a message from. The JMS client encodes and decodes its own
 * message objects with the same writer and reader, with no intermediate copy; the server reads only
 * {@link MessageHeaders}. Mutable and not thread-safe, like a JMS message.
 */
public final class WireMessage {
    /** The JMS message type. */
    public BodyType bodyType = BodyType.MESSAGE;
    /** JMSDeliveryMode is PERSISTENT. */
    public boolean persistent = true;
    /** JMSPriority, 0-9. */
    public int priority = 4;
    /** JMSTimestamp; 0 when the producer disabled timestamps. */
    public long timestamp;
    /** JMSExpiration, epoch millis; 0 = never. */
    public long expiration;
    /** JMSDeliveryTime, epoch millis; 0 = at once. */
    public long deliveryTime;
    /** JMSMessageID, e.g. {@code ID:...}; null when the producer disabled message ids. */
    public String messageId;
    /** JMSCorrelationID as a string, or null. */
    public String correlationId;
    /** JMSCorrelationID set as bytes, or null; when set it wins over {@link #correlationId}. */
    public byte[] correlationIdBytes;
    /** JMSDestination. */
    public WireDestination destination;
    /** JMSReplyTo, or null. */
    public WireDestination replyTo;
    /** JMSType, or null. */
    public String type;
    /**
     * Application and JMSX properties, in insertion order. Values: Boolean, Byte, Short, Integer, Long, Float,
     * Double, String, or null (a String property whose value is null).
     */
    public Map<String, Object> properties = new LinkedHashMap<>();
    /** The body bytes, or null for no body. */
    public byte[] body;

    /**
     * Appends this message in the {@link MessageEncoding} layout ({@link MessageWriter}).
     *
     * @throws IllegalArgumentException for a priority outside 0-9 or a property value of no property type
     */
    public void encode(ByteBuf out) {
        encodeHeaders(out);
        MessageWriter.writeBody(out, body);
    }

    /** Appends this message's header and property sections: all of {@link #encode} but the body section. */
    public void encodeHeaders(ByteBuf out) {
        MessageWriter.writeHeaders(out, bodyType, persistent, priority, timestamp, expiration, deliveryTime, messageId,
                correlationId, correlationIdBytes, destination, replyTo, type);
        MessageWriter.writeProperties(out, properties);
    }

    /**
     * Decodes the whole message occupying {@code in}'s readable bytes ({@link MessageReader}), advancing the reader
     * index past it.
     *
     * @throws MalformedFrameException when the bytes do not follow the layout
     */
    public static WireMessage decode(ByteBuf in) {
        WireMessage m = decodeHeaders(in);
        int bodyLength = MessageReader.readBodyLength(in);
        if (bodyLength >= 0) {
            m.body = new byte[bodyLength];
            in.readBytes(m.body);
        }
        return m;
    }

    /**
     * Decodes the header and property sections of the message occupying {@code in}'s readable bytes, leaving the
     * reader index at its body section (the body length), which is neither read nor copied; {@link #body} stays null.
     *
     * @throws MalformedFrameException when the bytes do not follow the layout
     */
    public static WireMessage decodeHeaders(ByteBuf in) {
        int start = in.readerIndex();
        WireMessage m = new WireMessage();
        m.bodyType = MessageReader.readBodyType(in);
        int flags = MessageReader.readFlags(in);
        m.persistent = MessageReader.persistent(flags);
        m.priority = MessageReader.readPriority(in);
        m.timestamp = MessageReader.readTimestamp(in);
        m.expiration = MessageReader.readExpiration(in);
        m.deliveryTime = MessageReader.readDeliveryTime(in);
        m.messageId = MessageReader.readMessageId(in);
        if (MessageReader.correlationIdIsBytes(flags)) {
            m.correlationIdBytes = MessageReader.readCorrelationIdBytes(in);
        } else {
            m.correlationId = MessageReader.readCorrelationId(in, false);
        }
        m.destination = MessageReader.readDestination(in);
        m.replyTo = MessageReader.readReplyTo(in);
        m.type = MessageReader.readType(in);
        m.properties = MessageReader.readProperties(in, start);
        return m;
    }
}
