package org.wharfmq.protocol.message;

import io.netty.buffer.ByteBuf;
import org.wharfmq.protocol.frame.WireStrings;

import java.util.Map;

/**
 * The one writer of the message layout ({@link MessageEncoding}): it writes a message straight into a buffer, in
 * three sections, in this order, and refuses what {@link MessageReader} would refuse:
 *
 * <pre>{@code
 * MessageWriter.writeHeaders(out, BodyType.TEXT, persistent, priority, timestamp, expiration, deliveryTime,
 *         messageId, correlationId, null, destination, replyTo, type);
 * MessageWriter.writeProperties(out, properties);
 * MessageWriter.writeBody(out, bytes); // or writeNoBody, or beginBody ... endBody for a body written in place
 * }</pre>
 *
 * The client encodes every send with it, from its own message object into a pooled buffer: it keeps no state
 * between the sections (the buffer's writer index is where it is), so a send creates no object and copies
 * nothing but the bytes it writes.
 */
public final class MessageWriter {

    private MessageWriter() {
    }

    /**
     * Writes the header section: the fixed-size fields, then the message id, correlation id, destination,
     * reply-to and type. Nulls are written as absent.
     *
     * @param correlationId      JMSCorrelationID set as a string; ignored when {@code correlationIdBytes} is set
     * @param correlationIdBytes JMSCorrelationID set as bytes ({@code setJMSCorrelationIDAsBytes}), or null
     * @throws IllegalArgumentException for a priority outside 0-9, in the words the reader refuses it with
     */
    public static void writeHeaders(ByteBuf out, BodyType bodyType, boolean persistent, int priority,
                                    long timestamp, long expiration, long deliveryTime, String messageId,
                                    String correlationId, byte[] correlationIdBytes, WireDestination destination,
                                    WireDestination replyTo, String type) {
        if (!MessageEncoding.isValidPriority(priority)) {
            throw new IllegalArgumentException(MessageEncoding.invalidPriority(priority));
        }
        out.writeByte(bodyType.code());
        out.writeByte((persistent ? MessageEncoding.FLAG_PERSISTENT : 0)
                | (correlationIdBytes != null ? MessageEncoding.FLAG_CORRELATION_ID_BYTES : 0));
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
    }

    /**
     * Writes the property section, after the headers: the properties in the map's iteration order, null for none.
     * Values: Boolean, Byte, Short, Integer, Long, Float, Double, String, or null (read back as a String property
     * whose value is null).
     *
     * @throws IllegalArgumentException for a null name, a value of another type, or more than
     *                                  {@link PropertySection#MAX_PROPERTIES}
     */
    public static void writeProperties(ByteBuf out, Map<String, Object> properties) {
        PropertySection.write(out, properties);
    }

    /** Writes the body, after the properties: its bytes, or null for none. The message is then complete. */
    public static void writeBody(ByteBuf out, byte[] body) {
        if (body == null) {
            writeNoBody(out);
        } else {
            out.writeInt(body.length);
            out.writeBytes(body);
        }
    }

    /** Writes that there is no body (a plain Message, a null text or object). The message is then complete. */
    public static void writeNoBody(ByteBuf out) {
        out.writeInt(-1);
    }

    /**
     * Starts a body the caller writes in place, after the properties: the bytes it writes next are the body,
     * until {@link #endBody}.
     *
     * @return where the body starts, for {@link #endBody}
     */
    public static int beginBody(ByteBuf out) {
        int body = out.writerIndex();
        out.writeInt(0);
        return body;
    }

    /** Ends the body {@link #beginBody} started at {@code body}. The message is then complete. */
    public static void endBody(ByteBuf out, int body) {
        out.setInt(body, out.writerIndex() - body - 4);
    }

    /**
     * Sets the resent flag ({@link MessageEncoding#FLAG_RESENT}) of the encoded message that starts at {@code message}'s
     * reader index: the client's second SEND of a message whose first SEND the connection lost before its answer.
     */
    public static void markResent(ByteBuf message) {
        int at = message.readerIndex() + MessageEncoding.FLAGS_OFFSET;
        message.setByte(at, message.getByte(at) | MessageEncoding.FLAG_RESENT);
    }
}
