package org.wharfmq.client.core;

import org.wharfmq.client.core.transport.BrokerAddress;

/**
 * What the user of a {@link CoreConnection} hears of its life: each step of a reconnection, and the loss of the
 * connection for good.
 */
public interface ConnectionListener {

    /** Hears nothing. */
    ConnectionListener NONE = new ConnectionListener() {
    };

    /**
     * The connection is lost for good (reconnecting gave up, or is off), for {@code why}; not called once closing.
     * Called once, on a thread of its own ({@code wharf-connection-lost}): it may block, and call the connection back.
     */
    default void lost(ClientException why) {
    }

    /**
     * A step of a reconnection: {@code cause} is why the link was lost, or why reconnecting gave up. Called on the
     * thread that found it out (the reconnection's, or the link's reading thread): it hands on and returns, and must
     * not block nor call the connection back.
     */
    default void failover(Reconnector.Step step, BrokerAddress address, int attempts, ClientException cause) {
    }
}
