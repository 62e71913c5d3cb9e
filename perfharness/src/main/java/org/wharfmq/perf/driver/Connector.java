package org.wharfmq.perf.driver;

import javax.jms.Connection;
import javax.jms.JMSException;

/**
 * A connection opened, started (so every provider has finished its handshake and login) and closed per
 * operation; nothing is sent. The latency recorded is the connection's life, connect to close, timed from when the
 * connection was due under {@code -rt} ({@link Pacer}).
 */
final class Connector extends Worker {

    Connector(WorkerSetup setup) {
        super(setup);
    }

    @Override
    boolean holdsConnection() {
        return false;
    }

    @Override
    void open() {
        // nothing is held between connections
    }

    @Override
    void iterate() throws JMSException {
        try (Connection connection = provider.connect()) {
            connection.start();
        }
        recordLatency(dueNanos);
        control.iterationDone();
    }
}
