package org.wharfmq.perf.driver;

import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageProducer;
import javax.jms.Session;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The subscriber side of pub/sub flow control (a Subscriber with {@code -fw}): every {@link #INTERVAL_MILLIS} it
 * publishes, on the run's progress topic, the fewest messages any subscriber of this process has received, for
 * the publishers' {@link PublishWindow}. Runs on a thread of its own, with a connection of its own, from when
 * every subscriber is subscribed until the run ends. Progress reports are small non-persistent messages a few
 * hundred times a second at most, a negligible share of the load.
 */
final class ProgressReporter implements AutoCloseable {

    /** Time between two reports: short, so the window a publisher waits on moves smoothly. */
    static final long INTERVAL_MILLIS = 5;

    private final CountDownLatch stop = new CountDownLatch(1);
    private final Connection connection;
    private final Session session;
    private final MessageProducer producer;
    private final String processId;
    private final List<Receiver> receivers;
    private final RunControl control;
    private final Thread thread;

    private ProgressReporter(Provider provider, String prefix, String processId, List<Receiver> receivers,
                             RunControl control) throws JMSException {
        this.connection = provider.connect();
        try {
            this.session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            this.producer = session.createProducer(provider.topic(session, topicFor(prefix)));
            producer.setDeliveryMode(DeliveryMode.NON_PERSISTENT);
        } catch (JMSException | RuntimeException e) {
            connection.close();
            throw e;
        }
        this.processId = processId;
        this.receivers = List.copyOf(receivers);
        this.control = control;
        this.thread = new Thread(this::report, "perf-progress-" + processId);
        thread.setDaemon(true);
    }

    /** The progress topic of the run whose destinations start with {@code prefix}. */
    static String topicFor(String prefix) {
        String p = prefix.endsWith("/") ? prefix.substring(0, prefix.length() - 1) : prefix;
        return Tags.PROGRESS_TOPIC + "/" + p;
    }

    /** Starts reporting the progress of {@code receivers}, the subscribers of process {@code processId}. */
    static ProgressReporter start(Provider provider, String prefix, String processId, List<Receiver> receivers,
                                  RunControl control) throws JMSException {
        ProgressReporter reporter = new ProgressReporter(provider, prefix, processId, receivers, control);
        reporter.thread.start();
        return reporter;
    }

    private void report() {
        try {
            do {
                long fewest = receivers.isEmpty() ? 0 : Long.MAX_VALUE;
                for (Receiver r : receivers) {
                    fewest = Math.min(fewest, r.receivedCount());
                }
                Message m = session.createMessage();
                m.setStringProperty(Tags.PROGRESS_PROCESS, processId);
                m.setLongProperty(Tags.PROGRESS_RECEIVED, fewest);
                producer.send(m);
            } while (!stop.await(INTERVAL_MILLIS, TimeUnit.MILLISECONDS));
        } catch (JMSException e) {
            control.failed("progress reporter", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() throws JMSException, InterruptedException {
        stop.countDown();
        thread.join(TimeUnit.SECONDS.toMillis(5));
        connection.close();
    }
}
