package org.wharfmq.jms;

import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.message.WireDestination;

import javax.jms.IllegalStateException;
import javax.jms.JMSException;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A connection's temporary queues and topics on the client side: chooses their names ({@code TMP.<random
 * connection uuid>.<n>}, unique across connections without asking the server), creates them (CREATE_TEMPORARY,
 * answered) and deletes them (DELETE_TEMPORARY, answered). The server deletes whatever is left when the connection
 * ends. Thread-safe.
 */
final class TemporaryDestinationOwner {
    /** Prefix of every temporary destination name; the server needs no convention, this only makes them readable. */
    static final String NAME_PREFIX = "TMP.";

    private final WharfConnection connection;
    private final String prefix = NAME_PREFIX + UUID.randomUUID() + ".";
    private final AtomicLong lastNumber = new AtomicLong();
    /** Names deleted by {@code delete()}: sends to them fail on the client without a round trip. */
    private final Set<String> deleted = ConcurrentHashMap.newKeySet();

    TemporaryDestinationOwner(WharfConnection connection) {
        this.connection = connection;
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
        WharfTemporaryQueue queue = new WharfTemporaryQueue(nextName(), this);
        create(queue.toWire());
        return queue;
    }

    WharfTemporaryTopic createTopic() throws JMSException {
        WharfTemporaryTopic topic = new WharfTemporaryTopic(nextName(), this);
        create(topic.toWire());
        return topic;
    }

    private String nextName() {
        return prefix + lastNumber.incrementAndGet();
    }

    private void create(WireDestination destination) throws JMSException {
        connection.requestOk(rid -> new Frame.CreateTemporary(rid, destination), "CREATE_TEMPORARY");
    }

    void delete(WharfDestination destination) throws JMSException {
        connection.checkUsable();
        WireDestination wire = destination.toWire();
        connection.requestOk(rid -> new Frame.DeleteTemporary(rid, wire), "DELETE_TEMPORARY");
        deleted.add(wire.name());
        connection.queueGone(wire);   // a consumer there must wait for the server's refusal again
    }

    boolean isDeleted(WharfDestination destination) {
        return deleted.contains(destination.getPhysicalName());
    }
}
