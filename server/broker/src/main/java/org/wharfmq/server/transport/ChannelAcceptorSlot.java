package org.wharfmq.server.transport;

import org.wharfmq.server.ChannelAcceptor;

/** The {@link ChannelAcceptor} a plugin gave the server, or none: set on the plugin's thread, read on event loops. */
public final class ChannelAcceptorSlot {
    private volatile ChannelAcceptor acceptor;

    /** The acceptor, or null when no plugin receives channels. */
    public ChannelAcceptor acceptor() {
        return acceptor;
    }

    /** Sets the acceptor (null: none); refused when another plugin has one already. */
    public void set(ChannelAcceptor next) {
        synchronized (this) {
            if (next != null && acceptor != null && acceptor != next) {
                throw new IllegalStateException("Another plugin receives this queue manager's channels already; one"
                        + " plugin serves them.");
            }
            acceptor = next;
        }
    }
}
