package org.wharfmq.server.management;

import java.util.Map;

/**
 * A message as {@code browse queue} shows it, left on its queue.
 *
 * @param position       its place in delivery order among those shown, from 1
 * @param messageId      JMSMessageID, or null
 * @param correlationId  JMSCorrelationID (a byte id in its {@code ID:} hex form), or null
 * @param timestamp      JMSTimestamp, epoch ms; 0 when the producer disabled it
 * @param expiration     JMSExpiration, epoch ms; 0 = never
 * @param deliveryTime   JMSDeliveryTime, epoch ms; 0 = at once
 * @param priority       JMSPriority
 * @param persistent     JMSDeliveryMode is PERSISTENT
 * @param type           JMSType, or null
 * @param destination    JMSDestination as sent ({@code queue://NAME})
 * @param replyTo        JMSReplyTo, or null
 * @param deliveryCount  what JMSXDeliveryCount its next delivery carries
 * @param bodyType       the JMS message type: MESSAGE, BYTES, TEXT, MAP, STREAM or OBJECT
 * @param bodyLength     the body's length in bytes; -1 for no body
 * @param body           the body's first bytes (all of them unless longer than the browse asked for)
 * @param properties     the message's properties, JMSX ones included
 */
public record BrowsedMessage(int position, String messageId, String correlationId, long timestamp, long expiration,
                             long deliveryTime, int priority, boolean persistent, String type, String destination,
                             String replyTo, int deliveryCount, String bodyType, int bodyLength, byte[] body,
                             Map<String, Object> properties) {
}
