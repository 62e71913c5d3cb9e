package org.wharfmq.jms;

import org.wharfmq.client.core.ClientException;
import org.wharfmq.client.core.TemporaryDestinations;

import javax.jms.IllegalStateException;
import javax.jms.JMSException;

/**
 * A connection's temporary queues and topics in JMS terms: the JMS objects over the core's
 * {@link TemporaryDestinations}, which names, creates, deletes and re-creates them after a reconnection. Thread-safe.
 */
final class TemporaryDestinationOwner {
    private final WharfConnection connection;
    private final TemporaryDestinations core;

    TemporaryDestinationOwner(WharfConnection connection, TemporaryDestinations core) {
        this.connection = connection;
        this.core = core;
    }

    /** The owner of a temporary destination, for {@code delete()}; refuses one this connection did not create. */
    static TemporaryDestinationOwner requireOwner(TemporaryDestinationOwner owner, WharfDestination destination)
            throws IllegalStateException {
        if (owner == null) {
            throw new IllegalStateException(destination + " can be deleted only through the object its connection's "
                    + "createTemporaryQueue/createTemporaryTopic returned, not a copy received in a message");
        }
        return owner;
    }

    WharfTemporaryQueue createQueue() throws JMSException {
        WharfTemporaryQueue queue = new WharfTemporaryQueue(core.nextName(), this);
        create(queue);
        return queue;
    }

    WharfTemporaryTopic createTopic() throws JMSException {
        WharfTemporaryTopic topic = new WharfTemporaryTopic(core.nextName(), this);
        create(topic);
        return topic;
    }

    private void create(WharfDestination destination) throws JMSException {
        try {
            core.create(destination.toWire());
        } catch (ClientException e) {
            throw connection.toJms(e);
        }
    }

    void delete(WharfDestination destination) throws JMSException {
        connection.checkOpen();
        try {
            core.delete(destination.toWire());
        } catch (ClientException e) {
            throw connection.toJms(e);
        }
    }
}
