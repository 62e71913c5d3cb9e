package org.wharfmq.server.transport;

import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.server.WharfException;

import java.util.concurrent.ConcurrentHashMap;

/**
 * The JMS client IDs in use on the queue manager: a client ID identifies one connection at a time (JMS 2.0 section
 * 6.1.2). A connection claims one with SET_CLIENT_ID and holds it until it ends, however it ends. Thread-safe: the
 * connections of all event loops share it.
 */
public final class ClientIds {

    private final ConcurrentHashMap<String, ServerConnection> holders = new ConcurrentHashMap<>();

    /** None in use yet; one per server ({@link ServerContext}). */
    ClientIds() {
    }

    /**
     * Gives {@code clientId} to {@code connection} until {@link #release}.
     *
     * @throws WharfException INVALID_CLIENT_ID when it is empty or another connection holds it
     */
    void claim(String clientId, ServerConnection connection) {
        if (clientId == null || clientId.isEmpty()) {
            throw new WharfException(ErrorCode.INVALID_CLIENT_ID, "A client ID must not be null or empty.");
        }
        if (holders.putIfAbsent(clientId, connection) != null) {
            throw new WharfException(ErrorCode.INVALID_CLIENT_ID, "Client ID '" + clientId + "' is in use by another"
                    + " connection to this queue manager; a client ID identifies one connection at a time (JMS 2.0"
                    + " section 6.1.2). Close that connection or choose another client ID.");
        }
    }

    /** The connection ended: the client ID it held (null: none) is free again. */
    void release(String clientId, ServerConnection connection) {
        if (clientId != null) {
            holders.remove(clientId, connection);
        }
    }
}
