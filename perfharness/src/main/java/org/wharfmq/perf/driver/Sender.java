package org.wharfmq.perf.driver;

import javax.jms.Destination;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageProducer;

/**
 * Sends messages to a queue ({@code jms.r11.Sender}) or publishes them to a topic ({@code jms.r11.Publisher}),
 * the destination chosen by {@code -d/-db/-dx/-dn}. Each message carries this sender's source key and sequence
 * number; the count sent per source goes into the result, for the receivers' side of the check. A publisher
 * with a flow window ({@code -fw}) waits for room in it before each publication. After the warm-up a publisher
 * stamps each publication with the time it sends it ({@link Tags#SENT_MICROS}), just before the send (a send that
 * waits for producer credit is part of the publication's latency). A publisher with {@code -fq}
 * puts its messages on that queue instead, for a message flow to publish them on its topic (F-PUB).
 */
final class Sender extends Worker {

    private final boolean topic;
    private final Bodies bodies;
    private final String processId;
    private final PublishWindow window;
    private MessageProducer producer;
    private Message message;
    private String source;
    private long sequence;

    Sender(WorkerSetup setup, boolean topic) {
        super(setup);
        this.topic = topic;
        this.bodies = setup.bodies();
        this.processId = setup.processId();
        this.window = topic ? setup.window() : null;
    }

    @Override
    void open() throws JMSException {
        String destinationName = options.destinations().nameFor(options.destinationPrefix(), index);
        Destination destination = !topic ? provider.queue(session, destinationName)
                : options.flowQueue().isEmpty() ? provider.topic(session, destinationName)
                : provider.queue(session, options.flowQueue());
        producer = session.createProducer(destination);
        producer.setDeliveryMode(deliveryMode);
        source = destinationName + "/" + processId + "-" + index;
        message = bodies.create(session);
        message.setStringProperty(Tags.SOURCE, source);
    }

    @Override
    void iterate() throws JMSException {
        try {
            if (window != null && !window.awaitRoom(sequence, control)) {
                return;    // the run ended while this publisher waited
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        message.setLongProperty(Tags.SEQUENCE, sequence);
        if (topic && control.measuring()) {
            message.setLongProperty(Tags.SENT_MICROS, WallClockMicros.now());
        }
        producer.send(message);
        sequence++;
        commitIfDue();
        control.iterationDone();
    }

    @Override
    void finish() throws JMSException {
        commitRemainder();
        control.sent(source, sequence, topic);
    }
}
