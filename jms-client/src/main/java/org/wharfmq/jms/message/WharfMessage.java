package org.wharfmq.jms.message;

import io.netty.buffer.ByteBuf;
import org.wharfmq.protocol.message.BodyType;
import org.wharfmq.protocol.message.CorrelationIds;
import org.wharfmq.protocol.message.MessageEncoding;

import javax.jms.DeliveryMode;
import javax.jms.Destination;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageFormatException;
import javax.jms.MessageNotWriteableException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A JMS message without a body, and the headers and properties every Wharf message has. Not thread-safe, like
 * any JMS message.
 *
 * <p>A received message's properties and body are read-only until {@link #clearProperties()} or
 * {@link #clearBody()}; its headers stay settable, as JMS requires.
 */
public sealed class WharfMessage implements Message permits WharfTextMessage, WharfBytesMessage, WharfMapMessage,
        WharfStreamMessage, WharfObjectMessage {
    /** Provider-set property carrying the delivery count of a received message. */
    public static final String JMSX_DELIVERY_COUNT = "JMSXDeliveryCount";
    /** Provider-set property: the user name the sending connection was created with. */
    public static final String JMSX_USER_ID = "JMSXUserID";
    /** Application-set property naming a message group; must be a String. */
    public static final String JMSX_GROUP_ID = "JMSXGroupID";
    /** Application-set property numbering a message within its group; must be an int. */
    public static final String JMSX_GROUP_SEQ = "JMSXGroupSeq";

    private String messageId;
    private long timestamp;
    private String correlationId;
    private byte[] correlationIdBytes;
    private Destination replyTo;
    private Destination destination;
    private int deliveryMode = DeliveryMode.PERSISTENT;
    private boolean redelivered;
    private String type;
    private long expiration;
    private long deliveryTime;
    private int priority = Message.DEFAULT_PRIORITY;
    private int deliveryCount;
    /** Created on first put: most messages carry no properties. */
    private Map<String, Object> properties;
    private boolean propertiesReadOnly;
    /** True after receipt (and, for BytesMessage, after reset()) until clearBody(). */
    boolean bodyReadOnly;
    private MessageAcknowledger acknowledger;

    /** An empty message. */
    public WharfMessage() {
    }

    // ---- hooks for the body types ----

    /** The wire body type. */
    BodyType bodyType() {
        return BodyType.MESSAGE;
    }

    /** Whether there is a body to write: false for a plain Message and a null text or object. */
    boolean hasBody() {
        return false;
    }

    /** Writes the body's bytes (its length is the message writer's), when {@link #hasBody}. */
    void writeBody(ByteBuf out) {
        throw new IllegalStateException("a " + bodyType() + " message has no body to write");
    }

    /** Reads a body of {@code length} bytes (-1 = none) from {@code in}. */
    void readBody(ByteBuf in, int length) {
        in.skipBytes(Math.max(length, 0));
    }

    /** Upper bound guess of the body's encoded size, to size the send buffer. */
    int bodySizeHint() {
        return 0;
    }

    /**
     * The body's bytes as they are sent, to go out as they lie rather than be copied into the encoding, or null (the
     * body encodes itself, {@link #writeBody}). Only for a body whose bytes do not change once sent.
     */
    ByteBuf sharedBody() {
        return null;
    }

    /** Exact encoded body length when cheap to know, for refusing an oversize message before encoding it; else -1. */
    long bodyLength() {
        return -1;
    }

    final void checkBodyWritable() throws MessageNotWriteableException {
        if (bodyReadOnly) {
            throw new MessageNotWriteableException("The message body is read-only; call clearBody() to write a new body");
        }
    }

    /** Called after receipt: body and properties become read-only. */
    void markReceived() {
        bodyReadOnly = true;
        propertiesReadOnly = true;
    }

    // ---- provider internals ----

    /** Set by the receiving session; {@link #acknowledge()} calls it. */
    public void setAcknowledger(MessageAcknowledger acknowledger) {
        this.acknowledger = acknowledger;
    }

    /** JMSXDeliveryCount of a received message, 0 for one created by the application. */
    public int getDeliveryCount() {
        return deliveryCount;
    }

    /** Sets the delivery count from the DELIVER frame; JMSRedelivered follows from it. */
    public void setDeliveryCount(int deliveryCount) {
        this.deliveryCount = deliveryCount;
        this.redelivered = deliveryCount > 1;
    }

    /** The correlation id set as a string, or null (none, or set as bytes). */
    String correlationIdRaw() {
        return correlationId;
    }

    /** The correlation id set as bytes, or null; not copied. */
    byte[] correlationIdBytesRaw() {
        return correlationIdBytes;
    }

    /**
     * Sets a provider-set property (JMSXUserID on send), even on a message whose properties are read-only: the
     * provider, not the application, writes it. A null value removes the property, so an application cannot
     * pass off a value of its own as the provider's.
     */
    public void setProviderProperty(String name, Object value) {
        if (value == null) {
            if (properties != null) {
                properties.remove(name);
            }
            return;
        }
        if (properties == null) {
            properties = new LinkedHashMap<>(8);
        }
        properties.put(name, value);
    }

    /** The property map, possibly null when there are none; not copied. */
    Map<String, Object> propertiesRaw() {
        return properties;
    }

    void setPropertiesRaw(Map<String, Object> properties) {
        this.properties = properties;
    }

    /** Sets the delivery mode and priority of a received message, which the message reader has checked. */
    void setDeliveryRaw(boolean persistent, int priority) {
        this.deliveryMode = persistent ? DeliveryMode.PERSISTENT : DeliveryMode.NON_PERSISTENT;
        this.priority = priority;
    }

    void setCorrelationIdRaw(String id, byte[] bytes) {
        this.correlationId = id;
        this.correlationIdBytes = bytes;
    }

    // ---- headers ----

    @Override
    public String getJMSMessageID() {
        return messageId;
    }

    @Override
    public void setJMSMessageID(String id) {
        this.messageId = id;
    }

    @Override
    public long getJMSTimestamp() {
        return timestamp;
    }

    @Override
    public void setJMSTimestamp(long timestamp) {
        this.timestamp = timestamp;
    }

    /**
     * The correlation id as bytes: the bytes set by {@link #setJMSCorrelationIDAsBytes}; for an id set as a string,
     * the bytes its hex digits spell when it is {@code "ID:"} and hex digits (either case), else its UTF-8 bytes
     * ({@link CorrelationIds#toBytes}).
     */
    @Override
    public byte[] getJMSCorrelationIDAsBytes() {
        if (correlationIdBytes != null) {
            return correlationIdBytes.clone();
        }
        return correlationId == null ? null : CorrelationIds.toBytes(correlationId);
    }

    @Override
    public void setJMSCorrelationIDAsBytes(byte[] correlationID) {
        this.correlationIdBytes = correlationID == null ? null : correlationID.clone();
        this.correlationId = null;
    }

    @Override
    public void setJMSCorrelationID(String correlationID) {
        this.correlationId = correlationID;
        this.correlationIdBytes = null;
    }

    /**
     * The correlation id as a string, which is also what selectors compare: the string set by
     * {@link #setJMSCorrelationID}, or for an id set as bytes {@code "ID:"} followed by two lowercase hex digits per
     * byte, as IBM MQ reports it ({@link CorrelationIds#ofBytes}).
     */
    @Override
    public String getJMSCorrelationID() {
        if (correlationIdBytes != null) {
            return CorrelationIds.ofBytes(correlationIdBytes);
        }
        return correlationId;
    }

    @Override
    public Destination getJMSReplyTo() {
        return replyTo;
    }

    @Override
    public void setJMSReplyTo(Destination replyTo) {
        this.replyTo = replyTo;
    }

    @Override
    public Destination getJMSDestination() {
        return destination;
    }

    @Override
    public void setJMSDestination(Destination destination) {
        this.destination = destination;
    }

    @Override
    public int getJMSDeliveryMode() {
        return deliveryMode;
    }

    @Override
    public void setJMSDeliveryMode(int deliveryMode) throws JMSException {
        this.deliveryMode = checkDeliveryMode(deliveryMode);
    }

    @Override
    public boolean getJMSRedelivered() {
        return redelivered;
    }

    @Override
    public void setJMSRedelivered(boolean redelivered) {
        this.redelivered = redelivered;
    }

    @Override
    public String getJMSType() {
        return type;
    }

    @Override
    public void setJMSType(String type) {
        this.type = type;
    }

    @Override
    public long getJMSExpiration() {
        return expiration;
    }

    @Override
    public void setJMSExpiration(long expiration) {
        this.expiration = expiration;
    }

    @Override
    public long getJMSDeliveryTime() {
        return deliveryTime;
    }

    @Override
    public void setJMSDeliveryTime(long deliveryTime) {
        this.deliveryTime = deliveryTime;
    }

    @Override
    public int getJMSPriority() {
        return priority;
    }

    @Override
    public void setJMSPriority(int priority) throws JMSException {
        this.priority = checkPriority(priority);
    }

    /**
     * Checks a delivery mode given to a message or a producer: PERSISTENT or NON_PERSISTENT, the one rule of the
     * client's setters (the encoding has one flag for it).
     *
     * @return {@code deliveryMode}
     */
    public static int checkDeliveryMode(int deliveryMode) throws JMSException {
        if (deliveryMode != DeliveryMode.PERSISTENT && deliveryMode != DeliveryMode.NON_PERSISTENT) {
            throw new JMSException("Delivery mode " + deliveryMode + " is neither PERSISTENT (2) nor NON_PERSISTENT (1)");
        }
        return deliveryMode;
    }

    /**
     * Checks a priority given to a message or a producer by the encoding's rule, in its words
     * ({@link MessageEncoding#isValidPriority}).
     *
     * @return {@code priority}
     */
    public static int checkPriority(int priority) throws JMSException {
        if (!MessageEncoding.isValidPriority(priority)) {
            throw new JMSException(MessageEncoding.invalidPriority(priority));
        }
        return priority;
    }

    // ---- properties ----

    @Override
    public void clearProperties() {
        properties = null;
        propertiesReadOnly = false;
    }

    @Override
    public boolean propertyExists(String name) {
        if (deliveryCount > 0 && JMSX_DELIVERY_COUNT.equals(name)) {
            return true;
        }
        return properties != null && properties.containsKey(name);
    }

    @Override
    public Object getObjectProperty(String name) {
        if (deliveryCount > 0 && JMSX_DELIVERY_COUNT.equals(name)) {
            return deliveryCount;
        }
        return properties == null ? null : properties.get(name);
    }

    @Override
    public boolean getBooleanProperty(String name) throws JMSException {
        return PropertyValues.toBoolean(name, getObjectProperty(name));
    }

    @Override
    public byte getByteProperty(String name) throws JMSException {
        return PropertyValues.toByte(name, getObjectProperty(name));
    }

    @Override
    public short getShortProperty(String name) throws JMSException {
        return PropertyValues.toShort(name, getObjectProperty(name));
    }

    @Override
    public int getIntProperty(String name) throws JMSException {
        return PropertyValues.toInt(name, getObjectProperty(name));
    }

    @Override
    public long getLongProperty(String name) throws JMSException {
        return PropertyValues.toLong(name, getObjectProperty(name));
    }

    @Override
    public float getFloatProperty(String name) throws JMSException {
        return PropertyValues.toFloat(name, getObjectProperty(name));
    }

    @Override
    public double getDoubleProperty(String name) throws JMSException {
        return PropertyValues.toDouble(name, getObjectProperty(name));
    }

    @Override
    public String getStringProperty(String name) {
        return PropertyValues.toStringValue(getObjectProperty(name));
    }

    @Override
    public Enumeration<String> getPropertyNames() {
        List<String> names = new ArrayList<>(properties == null ? 1 : properties.size() + 1);
        if (properties != null) {
            names.addAll(properties.keySet());
        }
        if (deliveryCount > 0 && !names.contains(JMSX_DELIVERY_COUNT)) {
            names.add(JMSX_DELIVERY_COUNT);
        }
        return Collections.enumeration(names);
    }

    private void put(String name, Object value) throws JMSException {
        if (propertiesReadOnly) {
            throw new MessageNotWriteableException("The properties of a received message are read-only; call clearProperties() first");
        }
        PropertyValues.checkName(name);
        PropertyValues.checkJmsxValue(name, value);
        if (properties == null) {
            properties = new LinkedHashMap<>(8);
        }
        properties.put(name, value);
    }

    @Override
    public void setBooleanProperty(String name, boolean value) throws JMSException {
        put(name, value);
    }

    @Override
    public void setByteProperty(String name, byte value) throws JMSException {
        put(name, value);
    }

    @Override
    public void setShortProperty(String name, short value) throws JMSException {
        put(name, value);
    }

    @Override
    public void setIntProperty(String name, int value) throws JMSException {
        put(name, value);
    }

    @Override
    public void setLongProperty(String name, long value) throws JMSException {
        put(name, value);
    }

    @Override
    public void setFloatProperty(String name, float value) throws JMSException {
        put(name, value);
    }

    @Override
    public void setDoubleProperty(String name, double value) throws JMSException {
        put(name, value);
    }

    @Override
    public void setStringProperty(String name, String value) throws JMSException {
        put(name, value);
    }

    @Override
    public void setObjectProperty(String name, Object value) throws JMSException {
        PropertyValues.checkValue(name, value);
        put(name, value);
    }

    // ---- acknowledgement and body ----

    /** With CLIENT_ACKNOWLEDGE, acknowledges every message the session consumed; otherwise does nothing. */
    @Override
    public void acknowledge() throws JMSException {
        if (acknowledger != null) {
            acknowledger.acknowledge();
        }
    }

    /** A plain message has no body; this only makes it writable again. */
    @Override
    public void clearBody() throws JMSException {
        bodyReadOnly = false;
    }

    @Override
    public <T> T getBody(Class<T> c) throws JMSException {
        Object body = bodyValue();
        if (body == null) {
            return null;
        }
        if (!c.isInstance(body)) {
            throw new MessageFormatException("The body of this " + getClass().getSimpleName() + " is a "
                    + body.getClass().getSimpleName() + ", not assignable to " + c.getName());
        }
        return c.cast(body);
    }

    @Override
    @SuppressWarnings("rawtypes")
    public boolean isBodyAssignableTo(Class c) throws JMSException {
        Object body = bodyValue();
        return body == null || c.isInstance(body);
    }

    /** The body as {@link #getBody} returns it; null when there is none. */
    Object bodyValue() throws JMSException {
        return null;
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[id=" + messageId + ", destination=" + destination
                + (correlationId != null || correlationIdBytes != null ? ", correlationId=" + getJMSCorrelationID() : "")
                + (deliveryCount > 0 ? ", deliveryCount=" + deliveryCount : "") + "]";
    }
}
