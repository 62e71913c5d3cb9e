package org.wharfmq.server.transport;

import java.util.concurrent.ConcurrentHashMap;

/**
 * The connection keys (CLAIM_KEY) held by the server's live connections, by the temporary namespace each gives
 * ({@link org.wharfmq.protocol.TemporaryNames#namespace}): a key identifies one JMS connection of a client across the
 * TCP connections it makes, so when a second connection claims a key a live one holds, the older one is what the
 * client left behind (a half-open connection whose end the server has not noticed yet), and the newer takes over.
 * Thread-safe: the connections of all event loops share it.
 */
public final class ConnectionKeys {

    private final ConcurrentHashMap<String, ServerConnection> holders = new ConcurrentHashMap<>();

    /** None held yet; one per server ({@link ServerContext}). */
    ConnectionKeys() {
    }

    /**
     * Gives the key of {@code namespace} to {@code connection}, unless another connection holds it.
     *
     * @return null when claimed, else the connection that holds it
     */
    ServerConnection claim(String namespace, ServerConnection connection) {
        return holders.putIfAbsent(namespace, connection);
    }

    /** Moves the key from {@code previous} (taken over, released) to {@code next}; false if someone else got there first. */
    boolean replace(String namespace, ServerConnection previous, ServerConnection next) {
        return holders.replace(namespace, previous, next);
    }

    /** The connection ended: the key it held (null: none) is free again. */
    void release(String namespace, ServerConnection connection) {
        if (namespace != null) {
            holders.remove(namespace, connection);
        }
    }
}
