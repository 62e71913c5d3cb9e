package org.wharfmq.perf.driver;

import javax.jms.Connection;
import javax.jms.JMSException;
import java.util.ArrayList;
import java.util.List;

/**
 * The connections of one driver run: worker {@code i} uses connection {@code i / -sc}, so many subscribers can
 * live on a few connections (a session each) rather than a connection each. With {@code -sc 1}, the default, every
 * worker has a connection of its own, as in JMSPerfHarness. For durable subscriptions each connection gets a
 * client ID unique to the process and run (JMS 1.1 needs one before a durable subscription is made).
 *
 * <p>Connections are created on first use under this object's monitor (workers start concurrently) and closed by
 * the driver once every worker has ended.
 */
final class SharedConnections implements AutoCloseable {

    private final Provider provider;
    private final int perConnection;
    private final String clientIdPrefix;
    private final List<Connection> connections = new ArrayList<>();

    /**
     * @param clientIdPrefix client IDs are this plus the connection's number; null = no client ID
     */
    SharedConnections(Provider provider, int perConnection, String clientIdPrefix) {
        this.provider = provider;
        this.perConnection = perConnection;
        this.clientIdPrefix = clientIdPrefix;
    }

    /** The started connection of worker {@code index}. */
    synchronized Connection forWorker(int index) throws JMSException {
        int n = index / perConnection;
        while (connections.size() <= n) {
            connections.add(null);
        }
        Connection c = connections.get(n);
        if (c == null) {
            c = provider.connect();
            if (clientIdPrefix != null) {
                c.setClientID(clientIdPrefix + n);
            }
            c.start();
            connections.set(n, c);
        }
        return c;
    }

    @Override
    public synchronized void close() {
        for (Connection c : connections) {
            if (c != null) {
                try {
                    c.close();
                } catch (JMSException e) {
                    // the run is over: a connection that will not close cleanly is dropped
                }
            }
        }
        connections.clear();
    }
}
