package org.wharfmq.flow.runtime;

import org.wharfmq.flow.Domain;
import org.wharfmq.flow.Folder;
import org.wharfmq.flow.FlowMessage;

import javax.jms.BytesMessage;
import javax.jms.Destination;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.Session;
import javax.jms.TextMessage;
import java.util.Enumeration;
import java.util.Map;

/** Converts between JMS messages and {@link FlowMessage}s: headers, properties and the body, which is not parsed. */
final class JmsMessages {

    private JmsMessages() {
    }

    /** The flow's view of a received message; the body is kept as it arrived, taken from it as {@code bodies} say. */
    static FlowMessage read(Message message, Domain domain, JmsBodies bodies) throws JMSException {
        FlowMessage flowMessage;
        if (message instanceof TextMessage text) {
            flowMessage = FlowMessage.ofText(domain, text.getText());
        } else if (message instanceof BytesMessage bytes) {
            flowMessage = FlowMessage.ofBytes(domain, bodies.read(bytes));
        } else {
            throw new JMSException("Flows read TextMessages and BytesMessages only; got " + message.getClass().getSimpleName() + ".");
        }
        Folder headers = flowMessage.headers();
        headers.set(FlowMessage.JMS_MESSAGE_ID, message.getJMSMessageID());
        headers.set(FlowMessage.JMS_CORRELATION_ID, message.getJMSCorrelationID());
        headers.set(FlowMessage.JMS_TYPE, message.getJMSType());
        headers.set(FlowMessage.JMS_PRIORITY, message.getJMSPriority());
        headers.set(FlowMessage.JMS_DELIVERY_MODE, message.getJMSDeliveryMode());
        headers.set(FlowMessage.JMS_EXPIRATION, message.getJMSExpiration());
        headers.set(FlowMessage.JMS_TIMESTAMP, message.getJMSTimestamp());
        headers.set(FlowMessage.JMS_REPLY_TO, message.getJMSReplyTo());
        headers.set(FlowMessage.JMSX_DELIVERY_COUNT, deliveryCount(message));
        if (message.getJMSDestination() instanceof javax.jms.Topic topic) {
            // as in the message broker's Properties folder: the topic a publication arrived on
            flowMessage.properties().set(FlowMessage.TOPIC, topic.getTopicName());
        }
        Folder user = flowMessage.userProperties();
        for (Enumeration<?> names = message.getPropertyNames(); names.hasMoreElements(); ) {
            String name = (String) names.nextElement();
            if (!name.startsWith("JMSX")) {
                user.set(name, message.getObjectProperty(name));
            }
        }
        return flowMessage;
    }

    /** JMSXDeliveryCount, 1 when the provider does not set it. */
    static int deliveryCount(Message message) throws JMSException {
        return message.propertyExists("JMSXDeliveryCount") ? message.getIntProperty("JMSXDeliveryCount") : 1;
    }

    /**
     * A JMS message with the flow message's body (put in as {@code bodies} say), correlation id, type, reply-to and
     * user properties.
     */
    static Message write(Session session, FlowMessage flowMessage, JmsBodies bodies) throws JMSException {
        return write(session, flowMessage, true, bodies);
    }

    /**
     * As {@link #write(Session, FlowMessage, JmsBodies)}, with or without the reply-to: a destination of one provider
     * means nothing to another, so a message for another provider goes without it.
     */
    static Message write(Session session, FlowMessage flowMessage, boolean withReplyTo, JmsBodies bodies)
            throws JMSException {
        Message message;
        if (flowMessage.isTextBody()) {
            message = session.createTextMessage(flowMessage.bodyText());
        } else {
            BytesMessage bytes = session.createBytesMessage();
            bodies.write(bytes, flowMessage.bodyBytes());
            message = bytes;
        }
        Folder headers = flowMessage.headers();
        String correlationId = headers.getString(FlowMessage.JMS_CORRELATION_ID);
        if (correlationId != null) {
            message.setJMSCorrelationID(correlationId);
        }
        String type = headers.getString(FlowMessage.JMS_TYPE);
        if (type != null) {
            message.setJMSType(type);
        }
        if (withReplyTo && headers.get(FlowMessage.JMS_REPLY_TO) instanceof Destination replyTo) {
            message.setJMSReplyTo(replyTo);
        }
        for (Map.Entry<String, Object> property : flowMessage.userProperties().asMap().entrySet()) {
            message.setObjectProperty(property.getKey(), property.getValue());
        }
        return message;
    }

    /** Priority for the send: the header, else the JMS default 4. */
    static int priority(FlowMessage message) {
        Object priority = message.headers().get(FlowMessage.JMS_PRIORITY);
        return priority instanceof Number n ? n.intValue() : Message.DEFAULT_PRIORITY;
    }

    /** Time to live for the send: what is left of the input's expiration, 0 (never) when it has none. */
    static long timeToLive(FlowMessage message) {
        Object expiration = message.headers().get(FlowMessage.JMS_EXPIRATION);
        if (!(expiration instanceof Number n) || n.longValue() == 0) {
            return Message.DEFAULT_TIME_TO_LIVE;
        }
        return Math.max(1, n.longValue() - System.currentTimeMillis());
    }
}
