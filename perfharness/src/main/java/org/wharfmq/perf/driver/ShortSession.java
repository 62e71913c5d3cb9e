package org.wharfmq.perf.driver;

import javax.jms.Connection;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageProducer;
import javax.jms.Queue;
import javax.jms.Session;

/**
 * A short session per operation (the seeds' "short sessions"): connect, send one request, take its reply
 * (selected by the request's message id on the shared reply queue {@code -oq}), disconnect: a {@link Requestor}'s
 * exchange on a session of its own. The latency recorded is the whole session's, connect to disconnect, timed from
 * when the session was due under {@code -rt} ({@link Pacer}).
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
        Message reply;
        try (Connection connection = provider.connect()) {
            connection.start();
            Session s = createSession(connection);
            Queue replyQueue = provider.queue(s, options.replyQueue());
            MessageProducer producer = s.createProducer(provider.queue(s, options.requestQueue()));
            producer.setDeliveryMode(deliveryMode);
            Message request = newRequest(s);
            request.setLongProperty(Tags.SEQUENCE, sequence);
            request.setJMSReplyTo(replyQueue);
            reply = exchange(s, producer, request, replyQueue);
        }
        roundTripDone(reply);
    }
}
