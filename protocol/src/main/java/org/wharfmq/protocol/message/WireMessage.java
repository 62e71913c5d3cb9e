package org.wharfmq.protocol.message;

import io.netty.buffer.ByteBuf;
import org.wharfmq.protocol.frame.MalformedFrameException;
import org.wharfmq.protocol.frame.WireStrings;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A whole message, decoded: what a client builds before sending and gets after a delivery. The server never
 * creates one; it reads only {@link MessageHeaders}. Mutable and not thread-safe, like a JMS message.
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
    /** Application and JMSX properties, in insertion order. Values: Boolean, Byte, Short, Integer, Long, Float, Double, String. */
    public Map<String, Object> properties = new LinkedHashMap<>();
    /** The body bytes, or null for no body. */
    public byte[] body;

    /** Appends this message in the {@link MessageEncoding} layout. */
    public void encode(ByteBuf out) {
        out.writeByte(bodyType.code());
        int flags = (persistent ? MessageEncoding.FLAG_PERSISTENT : 0)
                | (correlationIdBytes != null ? MessageEncoding.FLAG_CORRELATION_ID_BYTES : 0);
        out.writeByte(flags);
        out.writeByte(priority);
        out.writeLong(timestamp);
        out.writeLong(expiration);
        out.writeLong(deliveryTime);
        WireStrings.write(out, messageId);
        if (correlationIdBytes != null) {
            out.writeInt(correlationIdBytes.length);
            out.writeBytes(correlationIdBytes);
        } else {
            WireStrings.write(out, correlationId);
        }
        WireDestination.write(out, destination);
        WireDestination.write(out, replyTo);
        WireStrings.write(out, type);
        MessageEncoding.writeProperties(out, properties);
        if (body == null) {
            out.writeInt(-1);
        } else {
            out.writeInt(body.length);
            out.writeBytes(body);
        }
    }

    /** Decodes a whole message from {@code in}'s readable bytes, advancing the reader index past it. */
    public static WireMessage decode(ByteBuf in) {
        WireMessage m = new WireMessage();
        m.bodyType = BodyType.of(in.readByte());
        int flags = in.readByte();
        m.persistent = (flags & MessageEncoding.FLAG_PERSISTENT) != 0;
        m.priority = in.readByte();
        m.timestamp = in.readLong();
        m.expiration = in.readLong();
        m.deliveryTime = in.readLong();
        m.messageId = WireStrings.read(in);
        if ((flags & MessageEncoding.FLAG_CORRELATION_ID_BYTES) != 0) {
            int n = in.readInt();
            if (n < 0 || n > in.readableBytes()) {
                throw new MalformedFrameException("correlation id length " + n + " does not fit the message");
            }
            m.correlationIdBytes = new byte[n];
            in.readBytes(m.correlationIdBytes);
        } else {
            m.correlationId = WireStrings.read(in);
        }
        m.destination = WireDestination.read(in);
        m.replyTo = WireDestination.read(in);
        m.type = WireStrings.read(in);
        m.properties = MessageEncoding.readProperties(in);
        int bodyLength = in.readInt();
        if (bodyLength >= 0) {
            if (bodyLength > in.readableBytes()) {
                throw new MalformedFrameException("body length " + bodyLength + " exceeds the " + in.readableBytes() + " bytes left");
            }
            m.body = new byte[bodyLength];
            in.readBytes(m.body);
        } else if (bodyLength != -1) {
            throw new MalformedFrameException("negative body length " + bodyLength);
        }
        return m;
    }
}
