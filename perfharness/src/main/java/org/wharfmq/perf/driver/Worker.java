package org.wharfmq.perf.driver;

import org.HdrHistogram.Histogram;
import org.wharfmq.perf.options.PerfOptions;

import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.JMSException;
import javax.jms.Session;

/**
 * One worker thread of a driver run (a JMSPerfHarness WorkerThread): its own session on its own connection (or
 * one shared with other workers, {@code -sc}), set up by
 * {@link #open}, then {@link #iterate} in a loop paced by {@code -rt} until the run stops, then {@link #finish}.
 * Subclasses implement one test class each.
 */
abstract class Worker implements Runnable {

    protected final PerfOptions options;
    protected final Provider provider;
    protected final RunControl control;
    protected final int index;
    protected final String name;
    /**
     * Latencies in microseconds: round trips after the warm-up (requestor-style workers), or the delivery latency of
     * the publications the publisher stamped (subscribers).
     */
    protected final Histogram latencies = LatencyHistograms.create();
    protected final int deliveryMode;
    protected final long receiveTimeoutMillis;
    protected Session session;
    /**
     * When the current operation was due ({@link Pacer#pace}): under {@code -rt} its place in the schedule, which a
     * worker that fell behind has passed when it starts; unpaced, when it started. Latencies are timed from it.
     */
    protected long dueNanos;
    private final SharedConnections connections;
    private int uncommitted;

    Worker(WorkerSetup setup) {
        this.options = setup.options();
        this.provider = setup.provider();
        this.control = setup.control();
        this.index = setup.index();
        this.name = setup.name();
        this.connections = setup.connections();
        this.deliveryMode = options.persistent() ? DeliveryMode.PERSISTENT : DeliveryMode.NON_PERSISTENT;
        this.receiveTimeoutMillis = options.timeoutSeconds() * 1000L;
    }

    @Override
    public final void run() {
        boolean ready = false;
        try {
            if (holdsConnection()) {
                Connection connection = connections.forWorker(index);
                session = createSession(connection);
            }
            open();
            control.workerReady();
            ready = true;
            control.awaitStart();
            Pacer pacer = new Pacer(options.rate());
            boolean first = true;
            boolean measuring = false;
            while (control.running()) {
                if (!measuring && control.measuring()) {
                    measuring = true;
                    pacer.skipTo(control.measuringSinceNanos());   // what the warm-up still owed is dropped
                }
                dueNanos = pacer.pace();
                iterate();
                if (first) {
                    control.firstOperationEnded();
                    first = false;
                }
            }
            finish();
        } catch (Exception e) {
            control.failed(name, e);
        } finally {
            if (!ready) {
                control.workerReady();
            }
            closeSession();
        }
    }

    private void closeSession() {
        if (session != null) {
            try {
                session.close();
            } catch (JMSException e) {
                // the connection closes it at the end of the run anyway
            }
        }
    }

    /**
     * Whether the worker holds a connection and a session for the whole run ({@link #session}); false for the
     * workers that open a connection of their own for every operation.
     */
    boolean holdsConnection() {
        return true;
    }

    /** A session on {@code connection}, transacted as {@code -tx} says. */
    protected final Session createSession(Connection connection) throws JMSException {
        boolean transacted = options.transacted();
        return connection.createSession(transacted, transacted ? Session.SESSION_TRANSACTED : Session.AUTO_ACKNOWLEDGE);
    }

    /** Creates producers and consumers. */
    abstract void open() throws JMSException;

    /** One operation (a round trip, a send, a receive). */
    abstract void iterate() throws JMSException;

    /** After the run: drain, look for stray messages. Nothing by default. */
    void finish() throws JMSException {
    }

    /** Counts an operation of a transacted session toward {@code -cc}, committing when the batch is full. */
    protected final void commitIfDue() throws JMSException {
        if (options.transacted() && ++uncommitted >= options.commitCount()) {
            session.commit();
            uncommitted = 0;
        }
    }

    /** Commits a partial batch at the end of the run. */
    protected final void commitRemainder() throws JMSException {
        if (options.transacted() && uncommitted > 0) {
            session.commit();
            uncommitted = 0;
        }
    }

    /**
     * Records a round trip that started at {@code startNanos} (its {@link #dueNanos}), if the warm-up is over: timed
     * from its start or from the end of the warm-up, whichever is later, so that the latencies hold no part of the
     * warm-up, whose waits (a cold JVM's, a server still compiling) a round trip begun in it would carry.
     */
    protected final void recordLatency(long startNanos) {
        long measuringSince = control.measuringSinceNanos();
        if (measuringSince != RunControl.WARMING_UP) {
            latencies.recordValue(Math.max(0, (System.nanoTime() - Math.max(startNanos, measuringSince)) / 1000));
        }
    }

    /** The poll interval for receivers that must notice the end of the run. */
    protected final long pollMillis() {
        return Math.min(receiveTimeoutMillis, 500);
    }

    Histogram latencies() {
        return latencies;
    }
}
