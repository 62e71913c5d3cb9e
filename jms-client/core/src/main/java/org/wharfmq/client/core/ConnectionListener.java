package org.wharfmq.client.core;

import org.wharfmq.client.core.transport.BrokerAddress;

/**
 * What the user of a {@link CoreConnection} hears of its life: each step of a reconnection, and the loss of the
 * connection for good.
 */
public interface ConnectionListener {

    /** Hears nothing: the connection starts no thread to tell it of the loss. */
    ConnectionListener NONE = new ConnectionListener() {
        @Override
        public boolean listensForLoss() {
            return false;
        }
    };

    /**
     * Whether anyone hears of the connection's loss now: asked once, when the connection is lost for good, on the
     * thread that found it out; when false, {@link #lost} is not called and no thread is started for it. It must not
     * block nor call the connection back.
     */
    default boolean listensForLoss() {
        return true;
    }

    /**
     * The connection is lost for good (reconnecting gave up, or is off), for {@code why}; not called once closing.
     * Called once, on a thread of its own ({@code wharf-connection-lost}), when {@link #listensForLoss} said so: it may
     * block, and call the connection back.
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
