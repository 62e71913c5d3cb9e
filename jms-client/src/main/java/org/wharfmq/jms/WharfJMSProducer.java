package org.wharfmq.jms;

import org.wharfmq.jms.message.PropertyValues;
import org.wharfmq.jms.message.WharfBytesMessage;
import org.wharfmq.jms.message.WharfMapMessage;
import org.wharfmq.jms.message.WharfMessage;
import org.wharfmq.jms.message.WharfObjectMessage;
import org.wharfmq.jms.message.WharfTextMessage;
import org.wharfmq.protocol.message.CorrelationIds;

import javax.jms.CompletionListener;
import javax.jms.DeliveryMode;
import javax.jms.Destination;
import javax.jms.JMSException;
import javax.jms.JMSProducer;
import javax.jms.JMSRuntimeException;
import javax.jms.Message;
import javax.jms.MessageFormatRuntimeException;
import java.io.Serializable;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The simplified API's producer: settings, message properties and headers applied to every message it sends,
 * through its context's session. Lightweight: it holds no server resource. With {@link #setAsync} set, sends
 * return at once and complete through the CompletionListener (in send order, on the session's completion
 * thread).
 */
final class WharfJMSProducer implements JMSProducer {
    private final WharfJMSContext context;
    private int deliveryMode = DeliveryMode.PERSISTENT;
    private int priority = Message.DEFAULT_PRIORITY;
    private long timeToLive = Message.DEFAULT_TIME_TO_LIVE;
    private long deliveryDelay = Message.DEFAULT_DELIVERY_DELAY;
    private boolean disableMessageId;
    private boolean disableTimestamp;
    private CompletionListener completionListener;
    private final Map<String, Object> properties = new LinkedHashMap<>();
    private String correlationId;
    private byte[] correlationIdBytes;
    private String type;
    private Destination replyTo;

    WharfJMSProducer(WharfJMSContext context) {
        this.context = context;
    }

    int deliveryMode() {
        return deliveryMode;
    }

    int priority() {
        return priority;
    }

    long timeToLive() {
        return timeToLive;
    }

    long deliveryDelayMillis() {
        return deliveryDelay;
    }

    boolean disableMessageId() {
        return disableMessageId;
    }

    boolean disableTimestamp() {
        return disableTimestamp;
    }

    CompletionListener completionListener() {
        return completionListener;
    }

    // ---- sending ----

    /** Sends {@code message} with this producer's properties and headers applied to it. */
    @Override
    public JMSProducer send(Destination destination, Message message) {
        if (message == null) {
            throw new MessageFormatRuntimeException("The message must not be null");
        }
        try {
            for (Map.Entry<String, Object> e : properties.entrySet()) {
                message.setObjectProperty(e.getKey(), e.getValue());
            }
            if (correlationIdBytes != null) {
                message.setJMSCorrelationIDAsBytes(correlationIdBytes);
            } else if (correlationId != null) {
                message.setJMSCorrelationID(correlationId);
            }
            if (type != null) {
                message.setJMSType(type);
            }
            if (replyTo != null) {
                message.setJMSReplyTo(replyTo);
            }
        } catch (JMSException e) {
            throw JmsErrors.toRuntime(e);
        }
        context.send(this, destination, message);
        return this;
    }

    /** Sends a TextMessage; a null body is a TextMessage without text. */
    @Override
    public JMSProducer send(Destination destination, String body) {
        return send(destination, new WharfTextMessage(body));
    }

    /** Sends a MapMessage holding the entries of {@code body} (none when null). */
    @Override
    public JMSProducer send(Destination destination, Map<String, Object> body) {
        WharfMapMessage message = new WharfMapMessage();
        if (body != null) {
            try {
                for (Map.Entry<String, Object> e : body.entrySet()) {
                    message.setObject(e.getKey(), e.getValue());
                }
            } catch (JMSException e) {
                throw JmsErrors.toRuntime(e);
            }
        }
        return send(destination, message);
    }

    /** Sends a BytesMessage holding {@code body} (empty when null). */
    @Override
    public JMSProducer send(Destination destination, byte[] body) {
        WharfBytesMessage message = new WharfBytesMessage();
        if (body != null) {
            try {
                message.writeBytes(body);
            } catch (JMSException e) {
                throw JmsErrors.toRuntime(e);
            }
        }
        return send(destination, message);
    }

    /** Sends an ObjectMessage holding {@code body}. */
    @Override
    public JMSProducer send(Destination destination, Serializable body) {
        WharfObjectMessage message = (WharfObjectMessage) context.createObjectMessage();
        try {
            message.setObject(body);
        } catch (JMSException e) {
            throw JmsErrors.toRuntime(e);
        }
        return send(destination, message);
    }

    // ---- settings ----

    @Override
    public JMSProducer setDisableMessageID(boolean value) {
        disableMessageId = value;
        return this;
    }

    @Override
    public boolean getDisableMessageID() {
        return disableMessageId;
    }

    @Override
    public JMSProducer setDisableMessageTimestamp(boolean value) {
        disableTimestamp = value;
        return this;
    }

    @Override
    public boolean getDisableMessageTimestamp() {
        return disableTimestamp;
    }

    @Override
    public JMSProducer setDeliveryMode(int deliveryMode) {
        try {
            this.deliveryMode = WharfMessage.checkDeliveryMode(deliveryMode);
        } catch (JMSException e) {
            throw JmsErrors.toRuntime(e);
        }
        return this;
    }

    @Override
    public int getDeliveryMode() {
        return deliveryMode;
    }

    @Override
    public JMSProducer setPriority(int priority) {
        try {
            this.priority = WharfMessage.checkPriority(priority);
        } catch (JMSException e) {
            throw JmsErrors.toRuntime(e);
        }
        return this;
    }

    @Override
    public int getPriority() {
        return priority;
    }

    @Override
    public JMSProducer setTimeToLive(long timeToLive) {
        this.timeToLive = timeToLive;
        return this;
    }

    @Override
    public long getTimeToLive() {
        return timeToLive;
    }

    @Override
    public JMSProducer setDeliveryDelay(long deliveryDelay) {
        this.deliveryDelay = deliveryDelay;
        return this;
    }

    @Override
    public long getDeliveryDelay() {
        return deliveryDelay;
    }

    /** Null makes sends synchronous again. */
    @Override
    public JMSProducer setAsync(CompletionListener completionListener) {
        this.completionListener = completionListener;
        return this;
    }

    @Override
    public CompletionListener getAsync() {
        return completionListener;
    }

    // ---- properties ----

    private JMSProducer put(String name, Object value) {
        PropertyValues.checkName(name);
        try {
            PropertyValues.checkValue(name, value);
            PropertyValues.checkJmsxValue(name, value);
        } catch (JMSException e) {
            throw JmsErrors.toRuntime(e);
        }
        properties.put(name, value);
        return this;
    }

    @Override
    public JMSProducer setProperty(String name, boolean value) {
        return put(name, value);
    }

    @Override
    public JMSProducer setProperty(String name, byte value) {
        return put(name, value);
    }

    @Override
    public JMSProducer setProperty(String name, short value) {
        return put(name, value);
    }

    @Override
    public JMSProducer setProperty(String name, int value) {
        return put(name, value);
    }

    @Override
    public JMSProducer setProperty(String name, long value) {
        return put(name, value);
    }

    @Override
    public JMSProducer setProperty(String name, float value) {
        return put(name, value);
    }

    @Override
    public JMSProducer setProperty(String name, double value) {
        return put(name, value);
    }

    @Override
    public JMSProducer setProperty(String name, String value) {
        return put(name, value);
    }

    @Override
    public JMSProducer setProperty(String name, Object value) {
        return put(name, value);
    }

    @Override
    public JMSProducer clearProperties() {
        properties.clear();
        return this;
    }

    @Override
    public boolean propertyExists(String name) {
        return properties.containsKey(name);
    }

    @Override
    public boolean getBooleanProperty(String name) {
        try {
            return PropertyValues.toBoolean(name, properties.get(name));
        } catch (JMSException e) {
            throw JmsErrors.toRuntime(e);
        }
    }

    @Override
    public byte getByteProperty(String name) {
        try {
            return PropertyValues.toByte(name, properties.get(name));
        } catch (JMSException e) {
            throw JmsErrors.toRuntime(e);
        }
    }

    @Override
    public short getShortProperty(String name) {
        try {
            return PropertyValues.toShort(name, properties.get(name));
        } catch (JMSException e) {
            throw JmsErrors.toRuntime(e);
        }
    }

    @Override
    public int getIntProperty(String name) {
        try {
            return PropertyValues.toInt(name, properties.get(name));
        } catch (JMSException e) {
            throw JmsErrors.toRuntime(e);
        }
    }

    @Override
    public long getLongProperty(String name) {
        try {
            return PropertyValues.toLong(name, properties.get(name));
        } catch (JMSException e) {
            throw JmsErrors.toRuntime(e);
        }
    }

    @Override
    public float getFloatProperty(String name) {
        try {
            return PropertyValues.toFloat(name, properties.get(name));
        } catch (JMSException e) {
            throw JmsErrors.toRuntime(e);
        }
    }

    @Override
    public double getDoubleProperty(String name) {
        try {
            return PropertyValues.toDouble(name, properties.get(name));
        } catch (JMSException e) {
            throw JmsErrors.toRuntime(e);
        }
    }

    @Override
    public String getStringProperty(String name) {
        return PropertyValues.toStringValue(properties.get(name));
    }

    @Override
    public Object getObjectProperty(String name) {
        return properties.get(name);
    }

    /** An unmodifiable copy of the names (JMS: changes to it must not affect the producer). */
    @Override
    public Set<String> getPropertyNames() {
        return Collections.unmodifiableSet(new java.util.LinkedHashSet<>(properties.keySet()));
    }

    // ---- headers ----

    @Override
    public JMSProducer setJMSCorrelationIDAsBytes(byte[] correlationID) {
        this.correlationIdBytes = correlationID == null ? null : correlationID.clone();
        this.correlationId = null;
        return this;
    }

    @Override
    public byte[] getJMSCorrelationIDAsBytes() {
        if (correlationIdBytes != null) {
            return correlationIdBytes.clone();
        }
        return correlationId == null ? null : CorrelationIds.toBytes(correlationId);
    }

    @Override
    public JMSProducer setJMSCorrelationID(String correlationID) {
        this.correlationId = correlationID;
        this.correlationIdBytes = null;
        return this;
    }

    @Override
    public String getJMSCorrelationID() {
        if (correlationIdBytes != null) {
            return CorrelationIds.ofBytes(correlationIdBytes);
        }
        return correlationId;
    }

    @Override
    public JMSProducer setJMSType(String type) {
        this.type = type;
        return this;
    }

    @Override
    public String getJMSType() {
        return type;
    }

    @Override
    public JMSProducer setJMSReplyTo(Destination replyTo) {
        this.replyTo = replyTo;
        return this;
    }

    @Override
    public Destination getJMSReplyTo() {
        return replyTo;
    }
}
