package org.wharfmq.perf.driver;

import javax.jms.Connection;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Queue;
import javax.jms.Session;

/**
 * A short session per operation (the seeds' "short sessions"): connect, send one request, take its reply
 * (selected by the request's message id on the shared reply queue {@code -oq}), disconnect. The reply is checked
 * as a {@link Requestor}'s is; the latency recorded is the whole session's, connect to disconnect.
 */
final class ShortSession extends Requestor {

    ShortSession(WorkerSetup setup) {
        super(setup);
    }

    @Override
    boolean holdsConnection() {
        return false;
    }

    @Override
    void open() {
        // nothing is held between sessions
    }

    @Override
    void iterate() throws JMSException {
        long start = System.nanoTime();
        Message reply;
        try (Connection connection = provider.connect()) {
            connection.start();
            Session s = createSession(connection);
            Queue replyQueue = provider.queue(s, options.replyQueue());
            MessageProducer producer = s.createProducer(provider.queue(s, options.requestQueue()));
            producer.setDeliveryMode(deliveryMode);
            Message request = bodies.create(s);
            request.setStringProperty(Tags.RUN, runId);
            request.setStringProperty(Tags.SOURCE, name);
            request.setLongProperty(Tags.SEQUENCE, sequence);
            request.setJMSReplyTo(replyQueue);
            producer.send(request);
            if (options.transacted()) {
                s.commit();
            }
            try (MessageConsumer consumer = s.createConsumer(replyQueue, "JMSCorrelationID = '" + request.getJMSMessageID() + "'")) {
                reply = receiveAnswer(consumer);
            }
            if (options.transacted()) {
                s.commit();
            }
        }
        roundTripDone(reply, start);
    }
}
