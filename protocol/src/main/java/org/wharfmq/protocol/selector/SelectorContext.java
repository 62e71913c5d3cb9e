package org.wharfmq.protocol.selector;

/**
 * Values the selector reads from a message. Implemented by the server's message class and by tests.
 *
 * <p>Implementations are called on the delivery hot path, possibly from several threads at once for the same
 * message, so they should be cheap and must not mutate the message.
 */
public interface SelectorContext {

    /**
     * Returns the value of an identifier: a JMS header field name (JMSDeliveryMode, JMSPriority, JMSMessageID,
     * JMSTimestamp, JMSCorrelationID, JMSType) or a property name (including JMSX* properties).
     * Return null when absent. Values are Boolean, Byte, Short, Integer, Long, Float, Double or String.
     * JMSDeliveryMode must be returned as the String "PERSISTENT" or "NON_PERSISTENT" (the implementer does that).
     *
     * @param identifier the case-sensitive identifier as written in the selector
     * @return the value, or null when the message has no such header or property
     */
    Object getValue(String identifier);
}
