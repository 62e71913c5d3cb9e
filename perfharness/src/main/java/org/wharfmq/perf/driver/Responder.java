package org.wharfmq.perf.driver;

import javax.jms.Destination;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Queue;

/**
 * Takes requests and replies with a message of the same type and length (JMSPerfHarness
 * {@code jms.r11.Responder}). The reply goes to the request's JMSReplyTo (else to {@code -oq}); its correlation
 * id is the request's JMSCorrelationID when it has one, else the request's JMSMessageID (the IBM MQ convention).
 * With {@code -tx} the receive and the reply commit together, once per round trip. Over numbered queue pairs
 * ({@code -dn} with {@code -oq}, RR-2b) a request must name the reply queue of its own pair: one from REQUEST2 that
 * names REPLY1 is reported, as the pairs would be crossed (whatever queue manager the reply-to names it by, RR-5).
 */
final class Responder extends Worker {

    private static final String[] COPIED_TAGS = {Tags.SEQUENCE, Tags.RUN, Tags.SOURCE};

    private MessageConsumer consumer;
    private MessageProducer producer;
    private Destination defaultReplyQueue;
    /** Over numbered queue pairs, the name of this responder's reply queue; else null (no pair to check). */
    private String pairedReplyQueue;

    Responder(WorkerSetup setup) {
        super(setup);
    }

    @Override
    void open() throws JMSException {
        int number = options.destinations().numberFor(index);
        String suffix = number < 0 ? "" : String.valueOf(number);
        consumer = session.createConsumer(provider.queue(session, options.requestQueue() + suffix));
        producer = session.createProducer(null);
        producer.setDeliveryMode(deliveryMode);
        if (!options.replyQueue().isEmpty()) {
            defaultReplyQueue = provider.queue(session, options.replyQueue() + suffix);
            pairedReplyQueue = number < 0 ? null : options.replyQueue() + suffix;
        }
    }

    @Override
    void iterate() throws JMSException {
        Message request = consumer.receive(pollMillis());
        if (request == null) {
            return;
        }
        Message reply = Bodies.replyTo(session, request);
        String correlationId = request.getJMSCorrelationID();
        reply.setJMSCorrelationID(correlationId != null ? correlationId : request.getJMSMessageID());
        for (String tag : COPIED_TAGS) {
            Object value = request.getObjectProperty(tag);
            if (value != null) {
                reply.setObjectProperty(tag, value);
            }
        }
        Destination replyTo = request.getJMSReplyTo() != null ? request.getJMSReplyTo() : defaultReplyQueue;
        if (replyTo == null) {
            control.unexpected("request " + request.getJMSMessageID() + " has no JMSReplyTo and -oq is empty");
        } else if (pairedReplyQueue != null && !(replyTo instanceof Queue q && pairedReplyQueue.equals(queueOf(q.getQueueName())))) {
            control.unexpected("request " + request.getJMSMessageID() + " of the pair answered on " + pairedReplyQueue
                    + " names " + replyTo + " as its reply queue: the queue pairs are crossed");
        } else {
            producer.send(replyTo, reply);
        }
        if (options.transacted()) {
            session.commit();
        }
        control.iterationDone();
    }

    /**
     * The queue's own name without the queue manager a distributed reply-to names it by ({@code QM1/REPLY2},
     * {@code QM1.R2/REPLY2}: RR-5).
     */
    static String queueOf(String name) {
        return name.substring(name.lastIndexOf('/') + 1);
    }
}
