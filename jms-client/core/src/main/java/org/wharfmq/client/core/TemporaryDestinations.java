package org.wharfmq.client.core;

import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.message.WireDestination;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A connection's temporary queues and topics: chooses their names ({@code TMP.<namespace>.<n>}, in the temporary
 * namespace the connection's key gives it: {@link org.wharfmq.protocol.TemporaryNames}), creates them
 * (CREATE_TEMPORARY, answered) and deletes them (DELETE_TEMPORARY, answered). The server deletes whatever is left
 * when the connection ends; after a reconnection they are created again under the same names ({@link #reestablish}),
 * so that a reply addressed to one before the failure still arrives. Thread-safe.
 */
public final class TemporaryDestinations {
    private static final System.Logger LOG = System.getLogger(TemporaryDestinations.class.getName());

    private final CoreConnection connection;
    private final String prefix;
    private final AtomicLong lastNumber = new AtomicLong();
    /** The ones created and not deleted: what a reconnection creates again. */
    private final Set<WireDestination> live = ConcurrentHashMap.newKeySet();
    /** Names deleted by {@link #delete}: sends to them fail on the client without a round trip. */
    private final Set<String> deleted = ConcurrentHashMap.newKeySet();

    /** @param namespace the connection's temporary namespace, {@code TMP.<hex>.} */
    TemporaryDestinations(CoreConnection connection, String namespace) {
        this.connection = connection;
        this.prefix = namespace;
    }

    /** A fresh name in the connection's namespace. */
    public String nextName() {
        return prefix + lastNumber.incrementAndGet();
    }

    /** Creates {@code destination} (a temporary queue or topic named by {@link #nextName}) on the server. */
    public void create(WireDestination destination) throws ClientException {
        Frame.Error error = connection.establish(link -> live.add(destination),
                rid -> new Frame.CreateTemporary(rid, destination), "CREATE_TEMPORARY");
        if (error != null) {
            live.remove(destination);
            throw ClientException.of(error);
        }
    }

    /** Deletes {@code destination} on the server; refused while a consumer of this connection uses it. */
    public void delete(WireDestination destination) throws ClientException {
        connection.checkOpen();
        // asked again after a reconnection: "does not exist" may be the first request's work
        connection.requestOkRetrying(rid -> new Frame.DeleteTemporary(rid, destination), "DELETE_TEMPORARY",
                ErrorCode.UNKNOWN_DESTINATION);
        live.remove(destination);
        deleted.add(destination.name());
        connection.consumers().queueGone(destination); // a consumer there must wait for the server's refusal again
    }

    /**
     * Refuses a temporary destination deleted through this connection, before anything goes to the server: a
     * producer, consumer or browse of it, or a send to it. Other destinations pass at the cost of one comparison.
     *
     * @throws ClientException {@link ErrorCode#UNKNOWN_DESTINATION}, naming it and saying what to do instead
     */
    public void checkNotDeleted(WireDestination destination) throws ClientException {
        if (destination.kind().isTemporary() && deleted.contains(destination.name())) {
            String kind = destination.kind().isQueue() ? "queue" : "topic";
            throw new ClientException(ErrorCode.UNKNOWN_DESTINATION, "Temporary " + kind + " '" + destination.name()
                    + "' has been deleted by this connection: nothing can be sent to it or received from it any more;"
                    + " create a new temporary " + kind + " instead");
        }
    }

    /**
     * A reconnection creates every live temporary destination again on {@code next}, under its name (the server keeps
     * one the previous connection handed over, messages and all). A refusal is logged: the consumers there are
     * refused in turn, and say so from their receive.
     */
    void reestablish(ConnectedLink next, List<Reestablishing> pending) {
        for (WireDestination destination : live) {
            pending.add(Reestablishing.of(connection, next,
                    rid -> new Frame.CreateTemporary(rid, destination), "CREATE_TEMPORARY",
                    error -> LOG.log(System.Logger.Level.WARNING, "Temporary destination {0} could not be created again"
                            + " after the reconnection to {1}: {2}", destination, next.address(), error.message())));
        }
    }
}
