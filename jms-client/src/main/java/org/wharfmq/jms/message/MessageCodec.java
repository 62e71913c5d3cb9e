package org.wharfmq.jms.message;

import io.netty.buffer.ByteBuf;
import org.wharfmq.jms.WharfDestination;
import org.wharfmq.protocol.frame.MalformedFrameException;
import org.wharfmq.protocol.frame.WireStrings;
import org.wharfmq.protocol.message.BodyType;
import org.wharfmq.protocol.message.MessageEncoding;
import org.wharfmq.protocol.message.WireDestination;

import javax.jms.BytesMessage;
import javax.jms.DeliveryMode;
import javax.jms.JMSException;
import javax.jms.MapMessage;
import javax.jms.MessageEOFException;
import javax.jms.Message;
import javax.jms.ObjectMessage;
import javax.jms.StreamMessage;
import javax.jms.TextMessage;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Encodes {@link WharfMessage}s into, and decodes them from, the {@link MessageEncoding} layout: straight between
 * the message object and a {@link ByteBuf}, with no intermediate copy of the body.
 *
 * <p>One extension of the shared property writer: a String property may be null (written as a null string), so
 * {@code setStringProperty(name, null)} survives the trip as an existing property with a null value.
 */
public final class MessageCodec {
    private MessageCodec() {
    }

    /**
     * Encoded size estimate, for sizing the send buffer: exact for the body, generous for the headers.
     */
    public static int sizeHint(WharfMessage m) {
        Map<String, Object> properties = m.propertiesRaw();
        return 160 + m.bodySizeHint() + (properties == null ? 0 : properties.size() * 48);
    }

    /** Body length in bytes, known before encoding; the encoded message is at least this long. */
    public static long bodyLength(WharfMessage m) {
        return Math.max(m.bodyLength(), 0);
    }

    /**
     * Appends {@code m} to {@code out}.
     *
     * @param destination the JMSDestination in wire form (the sender has already resolved it)
     */
    public static void encode(WharfMessage m, WireDestination destination, ByteBuf out) throws JMSException {
        out.writeByte(m.bodyType().code());
        byte[] correlationBytes = m.correlationIdBytesRaw();
        int flags = (m.getJMSDeliveryMode() == DeliveryMode.PERSISTENT ? MessageEncoding.FLAG_PERSISTENT : 0)
                | (correlationBytes != null ? MessageEncoding.FLAG_CORRELATION_ID_BYTES : 0);
        out.writeByte(flags);
        out.writeByte(m.getJMSPriority());
        out.writeLong(m.getJMSTimestamp());
        out.writeLong(m.getJMSExpiration());
        out.writeLong(m.getJMSDeliveryTime());
        WireStrings.write(out, m.getJMSMessageID());
        if (correlationBytes != null) {
            out.writeInt(correlationBytes.length);
            out.writeBytes(correlationBytes);
        } else {
            WireStrings.write(out, m.getJMSCorrelationID());
        }
        WireDestination.write(out, destination);
        WireDestination.write(out, WharfDestination.toWire(m.getJMSReplyTo()));
        WireStrings.write(out, m.getJMSType());
        writeProperties(out, m.propertiesRaw());
        m.writeBody(out);
    }

    private static void writeProperties(ByteBuf out, Map<String, Object> properties) {
        int lengthIndex = out.writerIndex();
        out.writeInt(0);
        if (properties == null) {
            out.writeShort(0);
        } else {
            out.writeShort(properties.size());
            for (Map.Entry<String, Object> e : properties.entrySet()) {
                WireStrings.write(out, e.getKey());
                writeValue(out, e.getValue());
            }
        }
        out.setInt(lengthIndex, out.writerIndex() - lengthIndex - 4);
    }

    /**
     * A property value: a tagged value as bodies write them, except that a null String property is written as a
     * string tag with a null string, since properties have no null tag.
     */
    private static void writeValue(ByteBuf out, Object v) {
        if (v == null) {
            out.writeByte(MessageEncoding.PROPERTY_STRING);
            WireStrings.write(out, null);
        } else {
            TypedValues.write(out, v); // the setters admit only the property types, which share their tags
        }
    }

    /** JMSExpiration of an encoded message, read in place: lets the consumer drop an expired message undecoded. */
    public static long expirationOf(ByteBuf message) {
        return message.getLong(message.readerIndex() + MessageEncoding.EXPIRATION_OFFSET);
    }

    /**
     * Decodes a delivered message; the result has read-only properties and body. An ObjectMessage's body stays
     * serialised until the application asks for it.
     *
     * @throws MalformedFrameException when the bytes do not follow the layout
     */
    public static WharfMessage decode(ByteBuf in, int deliveryCount) {
        try {
            BodyType bodyType = BodyType.of(in.readByte());
            WharfMessage m = switch (bodyType) {
                case TEXT -> new WharfTextMessage();
                case BYTES -> new WharfBytesMessage();
                case MAP -> new WharfMapMessage();
                case STREAM -> new WharfStreamMessage();
                case OBJECT -> new WharfObjectMessage();
                case MESSAGE -> new WharfMessage();
            };
            int flags = in.readByte();
            int priority = in.readByte();
            if (priority < 0 || priority > 9) {
                throw new MalformedFrameException("priority " + priority + " is outside 0-9");
            }
            m.setJMSDeliveryMode((flags & MessageEncoding.FLAG_PERSISTENT) != 0 ? DeliveryMode.PERSISTENT : DeliveryMode.NON_PERSISTENT);
            m.setJMSPriority(priority);
            m.setJMSTimestamp(in.readLong());
            m.setJMSExpiration(in.readLong());
            m.setJMSDeliveryTime(in.readLong());
            m.setJMSMessageID(WireStrings.read(in));
            if ((flags & MessageEncoding.FLAG_CORRELATION_ID_BYTES) != 0) {
                int n = in.readInt();
                if (n < 0 || n > in.readableBytes()) {
                    throw new MalformedFrameException("correlation id length " + n + " does not fit the message");
                }
                byte[] bytes = new byte[n];
                in.readBytes(bytes);
                m.setCorrelationIdRaw(null, bytes);
            } else {
                m.setCorrelationIdRaw(WireStrings.read(in), null);
            }
            m.setJMSDestination(WharfDestination.fromWire(WireDestination.read(in)));
            m.setJMSReplyTo(WharfDestination.fromWire(WireDestination.read(in)));
            m.setJMSType(WireStrings.read(in));
            Map<String, Object> properties = MessageEncoding.readProperties(in);
            m.setPropertiesRaw(properties.isEmpty() ? null : properties);
            int bodyLength = in.readInt();
            if (bodyLength < -1 || bodyLength > in.readableBytes()) {
                throw new MalformedFrameException("body length " + bodyLength + " does not fit the " + in.readableBytes() + " bytes left");
            }
            m.readBody(in, bodyLength);
            m.setDeliveryCount(deliveryCount);
            m.markReceived();
            return m;
        } catch (IndexOutOfBoundsException e) {
            throw new MalformedFrameException("message is truncated: " + e.getMessage());
        } catch (JMSException e) {
            throw new MalformedFrameException("invalid header: " + e.getMessage());
        }
    }

    /**
     * A Wharf copy of another provider's message (JMS requires a provider to send foreign messages): headers the
     * application sets, properties and body.
     */
    public static WharfMessage copyOf(Message foreign) throws JMSException {
        WharfMessage copy;
        if (foreign instanceof TextMessage t) {
            copy = new WharfTextMessage(t.getText());
        } else if (foreign instanceof BytesMessage b) {
            WharfBytesMessage bytes = new WharfBytesMessage();
            b.reset();
            byte[] body = new byte[(int) b.getBodyLength()];
            b.readBytes(body);
            bytes.writeBytes(body);
            b.reset();
            copy = bytes;
        } else if (foreign instanceof MapMessage m) {
            WharfMapMessage map = new WharfMapMessage();
            for (Enumeration<?> names = m.getMapNames(); names.hasMoreElements(); ) {
                String name = (String) names.nextElement();
                map.setObject(name, m.getObject(name));
            }
            copy = map;
        } else if (foreign instanceof StreamMessage m) {
            WharfStreamMessage stream = new WharfStreamMessage();
            m.reset();
            try {
                while (true) {
                    stream.writeObject(m.readObject());
                }
            } catch (MessageEOFException end) {
                // every value copied
            }
            m.reset();
            copy = stream;
        } else if (foreign instanceof ObjectMessage o) {
            WharfObjectMessage object = new WharfObjectMessage();
            object.setObject(o.getObject());
            copy = object;
        } else {
            copy = new WharfMessage();
        }
        byte[] correlationBytes = null;
        try {
            correlationBytes = foreign.getJMSCorrelationIDAsBytes();
        } catch (UnsupportedOperationException | JMSException e) {
            // providers may refuse the byte form; the string form below still applies
        }
        String correlation = foreign.getJMSCorrelationID();
        if (correlation != null) {
            copy.setJMSCorrelationID(correlation);
        } else if (correlationBytes != null) {
            copy.setJMSCorrelationIDAsBytes(correlationBytes);
        }
        copy.setJMSReplyTo(foreign.getJMSReplyTo());
        copy.setJMSType(foreign.getJMSType());
        Map<String, Object> properties = new LinkedHashMap<>();
        for (Enumeration<?> names = foreign.getPropertyNames(); names.hasMoreElements(); ) {
            String name = (String) names.nextElement();
            Object value = foreign.getObjectProperty(name);
            PropertyValues.checkValue(name, value);
            properties.put(name, value);
        }
        copy.setPropertiesRaw(properties.isEmpty() ? null : properties);
        return copy;
    }
}
