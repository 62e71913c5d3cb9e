package org.wharfmq.perf.driver;

import javax.jms.Destination;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageConsumer;

/**
 * Receives from a queue ({@code jms.r11.Receiver}) or subscribes to a topic ({@code jms.r11.Subscriber}). Every
 * message is entered in a sequence ledger: a queue's receivers in one process share the run's ledger (any one of
 * them may get a message), each subscriber keeps its own (each must get every message). When the run stops the
 * receiver keeps taking messages until none arrives for {@code -to} (at most 2 s), so what the senders sent last
 * is still counted. With {@code -du} a subscriber holds a durable subscription (named after its thread), removed
 * when the run ends.
 *
 * <p>A subscriber records the delivery latency of every publication the publisher stamped ({@link Tags#SENT_MICROS}:
 * those of its measured period): the wall clock at receipt minus the stamp, in microseconds, into this worker's
 * histogram, which the driver adds to the other subscribers' (no allocation per message).
 */
final class Receiver extends Worker {

    private static final long MAX_DRAIN_WAIT_MILLIS = 2000;

    private final boolean topic;
    private final SequenceLedger ledger;
    private MessageConsumer consumer;
    private String destinationName;
    private String durableName;
    /** Messages received so far; written by this worker's thread only, read by the {@link ProgressReporter}. */
    private volatile long receivedCount;

    Receiver(WorkerSetup setup, boolean topic) {
        super(setup);
        this.topic = topic;
        this.ledger = topic ? new SequenceLedger() : setup.control().received();
    }

    @Override
    void open() throws JMSException {
        destinationName = options.destinations().nameFor(options.destinationPrefix(), index);
        Destination destination = topic ? provider.topic(session, destinationName) : provider.queue(session, destinationName);
        if (topic && options.durable()) {
            durableName = "perf-sub-" + index;
            consumer = session.createDurableSubscriber((javax.jms.Topic) destination, durableName);
        } else {
            consumer = session.createConsumer(destination);
        }
    }

    /** Messages this worker has received so far (for the publishers' flow window). */
    long receivedCount() {
        return receivedCount;
    }

    @Override
    void iterate() throws JMSException {
        Message message = consumer.receive(pollMillis());
        if (message != null) {
            receivedCount++;
            enter(message);
            commitIfDue();
            control.iterationDone();
        }
    }

    private void enter(Message message) throws JMSException {
        if (topic && message.propertyExists(Tags.SENT_MICROS)) {
            latencies.recordValue(Math.max(0, WallClockMicros.now() - message.getLongProperty(Tags.SENT_MICROS)));
        }
        String source = message.getStringProperty(Tags.SOURCE);
        Object sequence = message.getObjectProperty(Tags.SEQUENCE);
        if (source == null || sequence == null) {
            return;    // not sent by this harness: counted, not checked
        }
        long n = ((Number) sequence).longValue();
        if (!ledger.record(source, n)) {
            control.duplicate("message " + n + " from " + source + " received again by " + name);
        }
    }

    @Override
    void finish() throws JMSException {
        long wait = Math.min(receiveTimeoutMillis, MAX_DRAIN_WAIT_MILLIS);
        Message message;
        while ((message = consumer.receive(wait)) != null) {
            receivedCount++;
            enter(message);
            commitIfDue();
        }
        commitRemainder();
        if (durableName != null) {
            consumer.close();
            session.unsubscribe(durableName);
        }
        if (topic) {
            control.subscriberFinished(destinationName, ledger.counts());
        }
    }
}
