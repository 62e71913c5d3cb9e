package org.wharfmq.jms;

import org.wharfmq.client.core.ConnectedLink;

import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.message.WireDestination;

import javax.jms.IllegalStateException;
import javax.jms.JMSException;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A connection's temporary queues and topics on the client side: chooses their names ({@code TMP.<namespace>.<n>},
 * in the temporary namespace the connection's key gives it: {@link org.wharfmq.protocol.TemporaryNames}), creates
 * them (CREATE_TEMPORARY, answered) and deletes them (DELETE_TEMPORARY, answered). The server deletes whatever is left
 * when the connection ends; after a reconnection they are created again under the same names
 * ({@link #reestablish}), so that a reply addressed to one before the failure still arrives. Thread-safe.
 */
final class TemporaryDestinationOwner {
    private static final System.Logger LOG = System.getLogger(TemporaryDestinationOwner.class.getName());

    private final WharfConnection connection;
    private final String prefix;
    private final AtomicLong lastNumber = new AtomicLong();
    /** The ones created and not deleted: what a reconnection creates again. */
    private final Set<WireDestination> live = ConcurrentHashMap.newKeySet();
    /** Names deleted by {@code delete()}: sends to them fail on the client without a round trip. */
    private final Set<String> deleted = ConcurrentHashMap.newKeySet();

    /** @param namespace the connection's temporary namespace, {@code TMP.<hex>.} */
    TemporaryDestinationOwner(WharfConnection connection, String namespace) {
        this.connection = connection;
        this.prefix = namespace;
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
        Frame.Error error = connection.establish(link -> live.add(destination),
                rid -> new Frame.CreateTemporary(rid, destination), "CREATE_TEMPORARY");
        if (error != null) {
            live.remove(destination);
            throw JmsErrors.toException(error);
        }
    }

    void delete(WharfDestination destination) throws JMSException {
        connection.checkOpen();
        WireDestination wire = destination.toWire();
        // asked again after a reconnection: "does not exist" may be the first request's work
        connection.requestOkRetrying(rid -> new Frame.DeleteTemporary(rid, wire), "DELETE_TEMPORARY",
                ErrorCode.UNKNOWN_DESTINATION);
        live.remove(wire);
        deleted.add(wire.name());
        connection.queueGone(wire);   // a consumer there must wait for the server's refusal again
    }

    boolean isDeleted(WharfDestination destination) {
        return deleted.contains(destination.getPhysicalName());
    }

    /**
     * A reconnection creates every live temporary destination again on {@code next}, under its name (the server keeps
     * one the previous connection handed over, messages and all). A refusal is logged: the consumers there are
     * refused in turn, and say so from their receive.
     */
    void reestablish(ConnectedLink next, List<WharfConnection.Reestablishing> pending) {
        for (WireDestination destination : live) {
            pending.add(WharfConnection.Reestablishing.of(connection, next,
                    rid -> new Frame.CreateTemporary(rid, destination), "CREATE_TEMPORARY",
                    error -> LOG.log(System.Logger.Level.WARNING, "Temporary destination {0} could not be created again"
                            + " after the reconnection to {1}: {2}", destination, next.address(), error.message())));
        }
    }
}
