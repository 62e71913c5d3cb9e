package org.wharfmq.jms.message;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import org.wharfmq.jms.WharfDestination;
import org.wharfmq.protocol.frame.MalformedFrameException;
import org.wharfmq.protocol.message.BodyType;
import org.wharfmq.protocol.message.MessageReader;
import org.wharfmq.protocol.message.MessageWriter;
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
 * Encodes {@link WharfMessage}s into, and decodes them from, the message layout of {@code docs/protocol.md}: a
 * mapping of a message's headers, properties and body onto the protocol's one writer ({@link MessageWriter}) and
 * one reader ({@link MessageReader}), straight between the message object and a {@link ByteBuf}, with no
 * intermediate object or copy of the body. The bodies encode themselves ({@link WharfMessage#writeBody}).
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
     * The encoding of {@code m} in a buffer from {@code alloc}, which the caller owns: a BytesMessage body of
     * {@value #SHARED_BODY_BYTES} bytes or more is not copied into it but follows the headers from the message's own
     * array ({@link WharfMessage#sharedBody}; the encoding is a composite buffer): a 100 MB send was a copy of 100 MB
     * into a new buffer of 100 MB.
     *
     * @param destination the JMSDestination in wire form (the sender has already resolved it)
     */
    public static ByteBuf encode(WharfMessage m, WireDestination destination, ByteBufAllocator alloc) throws JMSException {
        ByteBuf shared = m.sharedBody();
        ByteBuf out = alloc.ioBuffer(shared == null ? sizeHint(m) : sizeHint(m) - shared.readableBytes());
        try {
            if (shared == null) {
                encode(m, destination, out);
                return out;
            }
            writeHeadersAndProperties(m, destination, out);
            out.writeInt(shared.readableBytes());
            return alloc.compositeBuffer(2).addComponents(true, out, shared);
        } catch (JMSException | RuntimeException e) {
            out.release();
            throw e;
        }
    }

    /** BytesMessage bodies this long or longer are sent from their own array, not copied ({@link #encode}): {@value}. */
    static final int SHARED_BODY_BYTES = 512 * 1024;

    /**
     * Appends {@code m} to {@code out} ({@link MessageWriter}).
     *
     * @param destination the JMSDestination in wire form (the sender has already resolved it)
     */
    public static void encode(WharfMessage m, WireDestination destination, ByteBuf out) throws JMSException {
        writeHeadersAndProperties(m, destination, out);
        if (m.hasBody()) {
            int body = MessageWriter.beginBody(out);
            m.writeBody(out);
            MessageWriter.endBody(out, body);
        } else {
            MessageWriter.writeNoBody(out);
        }
    }

    private static void writeHeadersAndProperties(WharfMessage m, WireDestination destination, ByteBuf out) throws JMSException {
        MessageWriter.writeHeaders(out, m.bodyType(), m.getJMSDeliveryMode() == DeliveryMode.PERSISTENT,
                m.getJMSPriority(), m.getJMSTimestamp(), m.getJMSExpiration(), m.getJMSDeliveryTime(),
                m.getJMSMessageID(), m.correlationIdRaw(), m.correlationIdBytesRaw(), destination,
                WharfDestination.toWire(m.getJMSReplyTo()), m.getJMSType());
        MessageWriter.writeProperties(out, m.propertiesRaw());
    }

    /**
     * Decodes a delivered message occupying {@code in}'s readable bytes ({@link MessageReader}), advancing the
     * reader index past it; the result has read-only properties and body. An ObjectMessage's body stays serialised
     * until the application asks for it.
     *
     * @throws MalformedFrameException when the bytes do not follow the layout
     */
    public static WharfMessage decode(ByteBuf in, int deliveryCount) {
        return decode(in, deliveryCount, null);
    }

    /**
     * {@link #decode(ByteBuf, int)}, what the consumer's message before had the same (destinations, property names and
     * string values) taken from {@code recent} rather than decoded again; null: everything decoded.
     */
    public static WharfMessage decode(ByteBuf in, int deliveryCount, RecentValues recent) {
        int start = in.readerIndex();
        BodyType bodyType = MessageReader.readBodyType(in);
        WharfMessage m = switch (bodyType) {
            case TEXT -> new WharfTextMessage();
            case BYTES -> new WharfBytesMessage();
            case MAP -> new WharfMapMessage();
            case STREAM -> new WharfStreamMessage();
            case OBJECT -> new WharfObjectMessage();
            case MESSAGE -> new WharfMessage();
        };
        int flags = MessageReader.readFlags(in);
        m.setDeliveryRaw(MessageReader.persistent(flags), MessageReader.readPriority(in));
        m.setJMSTimestamp(MessageReader.readTimestamp(in));
        m.setJMSExpiration(MessageReader.readExpiration(in));
        m.setJMSDeliveryTime(MessageReader.readDeliveryTime(in));
        m.setJMSMessageID(MessageReader.readMessageId(in));
        if (MessageReader.correlationIdIsBytes(flags)) {
            m.setCorrelationIdRaw(null, MessageReader.readCorrelationIdBytes(in));
        } else {
            m.setCorrelationIdRaw(MessageReader.readCorrelationId(in, false), null);
        }
        if (recent == null) {
            m.setJMSDestination(WharfDestination.fromWire(MessageReader.readDestination(in)));
            m.setJMSReplyTo(WharfDestination.fromWire(MessageReader.readReplyTo(in)));
        } else {
            m.setJMSDestination(recent.readDestination(in));
            m.setJMSReplyTo(recent.readReplyTo(in));
        }
        m.setJMSType(MessageReader.readType(in));
        Map<String, Object> properties = recent == null ? MessageReader.readProperties(in, start)
                : recent.readProperties(in, start);
        m.setPropertiesRaw(properties.isEmpty() ? null : properties);
        int bodyLength = MessageReader.readBodyLength(in);
        try {
            m.readBody(in, bodyLength);
        } catch (IndexOutOfBoundsException e) {
            throw new MalformedFrameException("the " + bodyType + " body is truncated: " + e.getMessage());
        }
        // a copy a client sent again after its connection was lost may have been stored twice: marked, never unmarked twice
        m.setDeliveryCount(MessageReader.resent(flags) ? Math.max(2, deliveryCount) : deliveryCount);
        m.markReceived();
        return m;
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
