package org.wharfmq.perf.driver;

import javax.jms.Connection;
import javax.jms.JMSException;
import java.util.concurrent.Semaphore;

/**
 * The connections of one driver run: worker {@code i} uses connection {@code i / -sc}, so many subscribers can
 * live on a few connections (a session each) rather than a connection each. With {@code -sc 1}, the default, every
 * worker has a connection of its own, as in JMSPerfHarness. For durable subscriptions each connection gets a
 * client ID unique to the process and run (JMS 1.1 needs one before a durable subscription is made).
 *
 * <p>Connections are created on first use, each under its own slot's monitor (the workers sharing it start
 * concurrently), at most {@value #CONNECTING_AT_ONCE} at a time: a thousand rated requesters connecting one after
 * the other took more than 150 s on the busy machine (each connect is mostly waiting for the server's answers),
 * and all at once they would queue their handshakes at the server past its handshake timeout. Closed by the driver
 * once every worker has ended.
 */
final class SharedConnections implements AutoCloseable {

    /** Connections a driver process opens at the same time. */
    static final int CONNECTING_AT_ONCE = 8;

    private final Provider provider;
    private final int perConnection;
    private final String clientIdPrefix;
    /** The monitor of each connection's slot, which guards {@link #connections}' element of that number. */
    private final Object[] slots;
    private final Connection[] connections;
    private final Semaphore connecting = new Semaphore(CONNECTING_AT_ONCE);

    /**
     * @param workers        the run's workers
     * @param clientIdPrefix client IDs are this plus the connection's number; null = no client ID
     */
    SharedConnections(Provider provider, int workers, int perConnection, String clientIdPrefix) {
        this.provider = provider;
        this.perConnection = perConnection;
        this.clientIdPrefix = clientIdPrefix;
        int count = (workers + perConnection - 1) / perConnection;
        this.slots = new Object[count];
        this.connections = new Connection[count];
        for (int n = 0; n < count; n++) {
            slots[n] = new Object();
        }
    }

    /** The started connection of worker {@code index}. */
    Connection forWorker(int index) throws JMSException {
        int n = index / perConnection;
        synchronized (slots[n]) {
            if (connections[n] == null) {
                connecting.acquireUninterruptibly();
                try {
                    Connection c = provider.connect();
                    if (clientIdPrefix != null) {
                        c.setClientID(clientIdPrefix + n);
                    }
                    c.start();
                    connections[n] = c;
                } finally {
                    connecting.release();
                }
            }
            return connections[n];
        }
    }

    @Override
    public void close() {
        for (int n = 0; n < slots.length; n++) {
            synchronized (slots[n]) {
                if (connections[n] != null) {
                    try {
                        connections[n].close();
                    } catch (JMSException e) {
                        // the run is over: a connection that will not close cleanly is dropped
                    }
                    connections[n] = null;
                }
            }
        }
    }
}
