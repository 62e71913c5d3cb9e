package org.wharfmq.server.admin;

import org.wharfmq.server.management.BrowsedMessage;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.Map;

/**
 * A browsed message as the answer to {@code browse-queue} shows it: the headers, the properties, and the body as
 * text (a TextMessage) or in hexadecimal (any other, or when asked), cut after
 * {@value ManagementCommands#BROWSE_BODY_BYTES} bytes.
 *
 * @param position      its place in delivery order among those shown, from 1
 * @param messageId     JMSMessageID
 * @param correlationId JMSCorrelationID
 * @param timestamp     JMSTimestamp, epoch ms (0: none)
 * @param expiration    JMSExpiration, epoch ms (0: never)
 * @param deliveryTime  JMSDeliveryTime, epoch ms (0: at once)
 * @param priority      JMSPriority
 * @param persistent    JMSDeliveryMode is PERSISTENT
 * @param type          JMSType
 * @param destination   JMSDestination as sent
 * @param replyTo       JMSReplyTo
 * @param deliveryCount the JMSXDeliveryCount of its next delivery
 * @param properties    its properties
 * @param body          its body
 */
public record ShownMessage(int position, String messageId, String correlationId, long timestamp, long expiration,
                           long deliveryTime, int priority, boolean persistent, String type, String destination,
                           String replyTo, int deliveryCount, Map<String, Object> properties, Body body) {

    /**
     * A message body as shown.
     *
     * @param type      MESSAGE (no body), BYTES, TEXT, MAP, STREAM or OBJECT
     * @param length    its length in bytes (-1: no body)
     * @param text      a TextMessage's text (null when shown in hexadecimal)
     * @param hex       the bytes in hexadecimal (null when shown as text)
     * @param truncated whether only its first bytes are shown
     */
    public record Body(String type, int length, String text, String hex, boolean truncated) {
    }

    /** Shows {@code m}: a text body as text unless {@code hex}. */
    static ShownMessage of(BrowsedMessage m, boolean hex) {
        boolean asText = !hex && m.bodyType().equals("TEXT");
        Body body = new Body(m.bodyType(), m.bodyLength(),
                asText ? new String(m.body(), StandardCharsets.UTF_8) : null,
                asText || m.bodyLength() < 0 ? null : HexFormat.of().formatHex(m.body()),
                m.body().length < Math.max(0, m.bodyLength()));
        return new ShownMessage(m.position(), m.messageId(), m.correlationId(), m.timestamp(), m.expiration(),
                m.deliveryTime(), m.priority(), m.persistent(), m.type(), m.destination(), m.replyTo(),
                m.deliveryCount(), m.properties(), body);
    }
}
