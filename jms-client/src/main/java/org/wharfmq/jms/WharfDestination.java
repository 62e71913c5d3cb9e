package org.wharfmq.jms;

import org.wharfmq.protocol.message.WireDestination;

import javax.jms.Destination;
import javax.jms.InvalidDestinationException;
import javax.jms.JMSException;
import javax.jms.Queue;
import javax.jms.TemporaryQueue;
import javax.jms.TemporaryTopic;
import javax.jms.Topic;
import java.io.Serializable;
import java.util.Objects;

/**
 * A Wharf destination: a physical name and what kind of destination it names. Two destinations are equal when
 * kind and name are equal, so a queue looked up in JNDI equals the one {@code Session.createQueue} returns.
 */
public abstract sealed class WharfDestination implements Destination, Serializable permits WharfQueue, WharfTopic {
    private static final long serialVersionUID = 1L;

    private final WireDestination.Kind kind;
    private final String name;

    WharfDestination(WireDestination.Kind kind, String name) {
        Objects.requireNonNull(name, "destination name");
        this.kind = kind;
        this.name = name;
    }

    /** The physical name, e.g. {@code ORDERS.IN}. */
    public String getPhysicalName() {
        return name;
    }

    /** The form used on the wire. */
    public WireDestination toWire() {
        return new WireDestination(kind, name);
    }

    /** The client-side object for a destination received from the server; null for none. */
    public static WharfDestination fromWire(WireDestination wire) {
        if (wire == null) {
            return null;
        }
        return switch (wire.kind()) {
            case QUEUE -> new WharfQueue(wire.name());
            case TOPIC -> new WharfTopic(wire.name());
            case TEMPORARY_QUEUE -> new WharfTemporaryQueue(wire.name(), null);
            case TEMPORARY_TOPIC -> new WharfTemporaryTopic(wire.name(), null);
        };
    }

    /**
     * The wire form of any JMS destination, including another provider's (identified by its queue or topic name).
     *
     * @return null for null
     * @throws InvalidDestinationException for a destination that is neither queue nor topic
     */
    public static WireDestination toWire(Destination destination) throws JMSException {
        if (destination == null) {
            return null;
        }
        if (destination instanceof WharfDestination d) {
            return d.toWire();
        }
        if (destination instanceof TemporaryQueue q) {
            return new WireDestination(WireDestination.Kind.TEMPORARY_QUEUE, q.getQueueName());
        }
        if (destination instanceof TemporaryTopic t) {
            return new WireDestination(WireDestination.Kind.TEMPORARY_TOPIC, t.getTopicName());
        }
        if (destination instanceof Queue q) {
            return WireDestination.queue(q.getQueueName());
        }
        if (destination instanceof Topic t) {
            return WireDestination.topic(t.getTopicName());
        }
        throw new InvalidDestinationException("Destination " + destination + " (" + destination.getClass().getName()
                + ") is neither a Queue nor a Topic");
    }

    WireDestination.Kind kind() {
        return kind;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof WharfDestination d && d.kind == kind && d.name.equals(name);
    }

    @Override
    public int hashCode() {
        return 31 * kind.hashCode() + name.hashCode();
    }

    /** {@code queue://NAME} or {@code topic://NAME}. */
    @Override
    public String toString() {
        return toWire().toString();
    }
}
