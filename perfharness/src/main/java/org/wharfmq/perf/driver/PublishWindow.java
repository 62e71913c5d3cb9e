package org.wharfmq.perf.driver;

import javax.jms.Connection;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.Session;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The publisher side of pub/sub flow control ({@code -fw W -fp P}): a publisher may be at most {@code W} messages
 * ahead of the slowest subscriber. Each of the {@code P} subscriber processes publishes its progress (the fewest
 * messages any of its subscribers has received, see {@link ProgressReporter}); this window listens and holds a
 * publisher back until there is room. Without it a publisher faster than its subscribers would fill the
 * server's subscription queues for the whole run, and what was measured would be the publish rate, not the
 * delivery rate. It also makes the first publication wait until every subscriber process is subscribed.
 *
 * <p>The progress map is written by the listener's thread and read by publisher threads, all under this
 * object's monitor; publishers wait on it.
 */
final class PublishWindow implements AutoCloseable {

    /** How long a waiting publisher sleeps before it looks at the run's state again. */
    private static final long RECHECK_MILLIS = 100;

    private final long window;
    private final int processes;
    private final Connection connection;
    private final Map<String, Long> progress = new HashMap<>();

    private PublishWindow(long window, int processes, Connection connection) {
        this.window = window;
        this.processes = processes;
        this.connection = connection;
    }

    /** Subscribes to the progress topic for {@code prefix} before any publisher starts. */
    static PublishWindow open(Provider provider, String prefix, long window, int processes) throws JMSException {
        Connection connection = provider.connect();
        try {
            PublishWindow w = new PublishWindow(window, processes, connection);
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageConsumer consumer = session.createConsumer(provider.topic(session, ProgressReporter.topicFor(prefix)));
            consumer.setMessageListener(w::onProgress);
            connection.start();
            return w;
        } catch (JMSException | RuntimeException e) {
            connection.close();
            throw e;
        }
    }

    private void onProgress(Message m) {
        try {
            String process = m.getStringProperty(Tags.PROGRESS_PROCESS);
            long received = m.getLongProperty(Tags.PROGRESS_RECEIVED);
            synchronized (this) {
                progress.merge(process, received, Math::max);
                notifyAll();
            }
        } catch (JMSException | NumberFormatException e) {
            // not a progress report of this harness: ignored
        }
    }

    /**
     * Waits until a publisher that has sent {@code sent} messages may send another; false when the run ended
     * while waiting (the message is then not sent).
     */
    boolean awaitRoom(long sent, RunControl control) throws InterruptedException {
        synchronized (this) {
            while (control.running()) {
                if (progress.size() >= processes && sent - slowest() < window) {
                    return true;
                }
                wait(RECHECK_MILLIS);
            }
        }
        return false;
    }

    private long slowest() {
        long min = Long.MAX_VALUE;
        for (long v : progress.values()) {
            min = Math.min(min, v);
        }
        return min;
    }

    @Override
    public void close() throws JMSException {
        connection.close();
    }
}
