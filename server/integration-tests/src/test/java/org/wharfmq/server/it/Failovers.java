package org.wharfmq.server.it;

import org.wharfmq.jms.FailoverEvent;
import org.wharfmq.jms.WharfConnection;
import org.wharfmq.jms.WharfJMSContext;

import javax.jms.Connection;
import javax.jms.JMSContext;
import javax.jms.JMSException;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/** What a connection's FailoverListener heard, for a test to wait for, in order. */
final class Failovers {

    /** Reconnect options that keep a test short: first attempt at once, then every 20 to 200 ms. */
    static final String FAST = "reconnectInterval=20&reconnectMaxInterval=200";

    /** What a test does while the connection is cut off, before the client's first attempt to connect again. */
    @FunctionalInterface
    interface Outage {
        void run() throws Exception;
    }

    private final BlockingQueue<FailoverEvent> events = new LinkedBlockingQueue<>();
    private final Outage outage;
    private volatile Throwable outageFailed;

    private Failovers(Outage outage) {
        this.outage = outage;
    }

    /** Listens to {@code connection}'s failover events from now on. */
    static Failovers of(Connection connection) throws JMSException {
        return of(connection, () -> {
        });
    }

    /** Listens to the failover events of {@code context}'s connection from now on. */
    static Failovers of(JMSContext context) {
        Failovers failovers = new Failovers(() -> {
        });
        ((WharfJMSContext) context).setFailoverListener(failovers::heard);
        return failovers;
    }

    /**
     * Listens to {@code connection}'s failover events, and runs {@code outage} on each DISCONNECTED, on the
     * reconnection thread, which makes its first attempt only once it returns: what the test does there happens
     * while the client is cut off, for certain.
     */
    static Failovers of(Connection connection, Outage outage) throws JMSException {
        Failovers failovers = new Failovers(outage);
        ((WharfConnection) connection).setFailoverListener(failovers::heard);
        return failovers;
    }

    private void heard(FailoverEvent event) {
        if (event.kind() == FailoverEvent.Kind.DISCONNECTED) {
            try {
                outage.run();
            } catch (Throwable t) {
                outageFailed = t;
            }
        }
        events.add(event);
    }

    /** The next event, which must be of {@code kind}; waits up to 30 s for it. */
    FailoverEvent expect(FailoverEvent.Kind kind) throws InterruptedException {
        FailoverEvent event = events.poll(30, TimeUnit.SECONDS);
        if (outageFailed != null) {
            throw new AssertionError("what the test did while cut off failed", outageFailed);
        }
        assertNotNull(event, "no " + kind + " event within 30 s");
        assertEquals(kind, event.kind(), String.valueOf(event));
        return event;
    }
}
