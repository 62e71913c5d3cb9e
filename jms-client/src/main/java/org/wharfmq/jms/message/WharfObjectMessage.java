package org.wharfmq.jms.message;

import io.netty.buffer.ByteBuf;
import org.wharfmq.protocol.message.BodyType;

import javax.jms.JMSException;
import javax.jms.MessageFormatException;
import javax.jms.ObjectMessage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectOutputStream;
import java.io.Serializable;

/**
 * A message whose body is one serialisable object. {@link #setObject} serialises the object at once (so later
 * changes to it do not reach the message); {@link #getObject} deserialises a fresh copy each time, resolving only
 * the classes its {@link DeserializationPolicy} allows. A received message's body is read-only until
 * {@link #clearBody()}.
 *
 * <p>Body encoding: the Java serialisation stream of the object; no body (length -1) for a null object.
 */
public final class WharfObjectMessage extends WharfMessage implements ObjectMessage {
    private byte[] serialized;
    private DeserializationPolicy policy;

    /**
     * An empty object message that deserialises by the system properties' (or the default) allow list and limits,
     * unless a policy is set before {@link #getObject()}.
     */
    public WharfObjectMessage() {
    }

    /** An empty object message that deserialises by {@code policy}. */
    public WharfObjectMessage(DeserializationPolicy policy) {
        this.policy = policy;
    }

    /** Sets the allow list and limits (the receiving connection's). */
    public void setDeserializationPolicy(DeserializationPolicy policy) {
        this.policy = policy;
    }

    // ---- body plumbing ----

    @Override
    BodyType bodyType() {
        return BodyType.OBJECT;
    }

    @Override
    long bodyLength() {
        return serialized == null ? 0 : serialized.length;
    }

    @Override
    int bodySizeHint() {
        return (int) bodyLength();
    }

    @Override
    boolean hasBody() {
        return serialized != null;
    }

    @Override
    void writeBody(ByteBuf out) {
        out.writeBytes(serialized);
    }

    @Override
    void readBody(ByteBuf in, int length) {
        if (length < 0) {
            serialized = null;
            return;
        }
        serialized = new byte[length];
        in.readBytes(serialized);
    }

    @Override
    Object bodyValue() throws JMSException {
        return getObject();
    }

    @Override
    public void clearBody() throws JMSException {
        super.clearBody();
        serialized = null;
    }

    // ---- javax.jms.ObjectMessage ----

    @Override
    public void setObject(Serializable object) throws JMSException {
        checkBodyWritable();
        if (object == null) {
            serialized = null;
            return;
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(object);
        } catch (IOException e) {
            MessageFormatException failed = new MessageFormatException("Cannot serialise the " + object.getClass().getName()
                    + " for an ObjectMessage: " + e);
            failed.initCause(e);
            failed.setLinkedException(e);
            throw failed;
        }
        serialized = bytes.toByteArray();
    }

    /**
     * A fresh copy of the object.
     *
     * @throws MessageFormatException when the body holds a class outside the allow list or goes past a
     *                                {@link DeserializationLimit} (the message names the class or the limit and the
     *                                setting), or cannot be deserialised for another reason
     */
    @Override
    public Serializable getObject() throws JMSException {
        if (serialized == null) {
            return null;
        }
        DeserializationPolicy p = policy;
        if (p == null) {
            p = DeserializationPolicy.fromSystemProperties();
            policy = p;
        }
        return p.deserialize(serialized);
    }
}
