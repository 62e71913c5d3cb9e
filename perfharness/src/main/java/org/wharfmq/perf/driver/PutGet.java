package org.wharfmq.perf.driver;

import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Queue;

/**
 * Puts a message to a queue and gets the same message back by its correlation id (JMSPerfHarness
 * {@code jms.r11.PutGet}): one correlation id per thread, so threads can share the queue.
 */
final class PutGet extends Worker {

    private final Bodies bodies;
    private final String correlationId;
    private MessageProducer producer;
    private MessageConsumer consumer;
    private Message message;
    private long sequence;

    PutGet(WorkerSetup setup) {
        super(setup);
        this.bodies = setup.bodies();
        this.correlationId = "perf-" + setup.runId() + "-" + setup.processId() + "-" + setup.index();
    }

    @Override
    void open() throws JMSException {
        Queue queue = provider.queue(session, options.destinations().nameFor(options.destinationPrefix(), index));
        producer = session.createProducer(queue);
        producer.setDeliveryMode(deliveryMode);
        consumer = session.createConsumer(queue, "JMSCorrelationID = '" + correlationId + "'");
        message = bodies.create(session);
        message.setJMSCorrelationID(correlationId);
    }

    @Override
    void iterate() throws JMSException {
        message.setLongProperty(Tags.SEQUENCE, sequence);
        producer.send(message);
        if (options.transacted()) {
            session.commit();
        }
        Message got = consumer.receive(receiveTimeoutMillis);
        if (options.transacted()) {
            session.commit();
        }
        if (got == null) {
            control.loss("message " + sequence + " of " + name + " not received back within " + options.timeoutSeconds() + " s");
        } else {
            long n = ((Number) got.getObjectProperty(Tags.SEQUENCE)).longValue();
            if (n != sequence) {
                control.duplicate("got message " + n + " of " + name + " while expecting " + sequence);
            } else {
                recordLatency(dueNanos);
                control.iterationDone();
            }
        }
        sequence++;
    }
}
