package org.wharfmq.server.it;

import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.JMSException;
import javax.jms.MessageProducer;
import javax.jms.Queue;
import javax.jms.Session;

/** Puts messages on a queue before a test looks at it, and makes sure the server has what was sent. */
public final class Send {

    private Send() {
    }

    /**
     * Sends persistent text messages from a session of its own and closes it. A persistent send outside a
     * transaction is answered only once the message is on its queue, so when this returns every message is there.
     */
    static void texts(Connection connection, String queueName, String... texts) throws JMSException {
        Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        try {
            Queue queue = session.createQueue(queueName);
            MessageProducer producer = session.createProducer(queue);
            producer.setDeliveryMode(DeliveryMode.PERSISTENT);
            for (String text : texts) {
                producer.send(session.createTextMessage(text));
            }
        } finally {
            session.close();
        }
    }

    /**
     * Returns once the server has handled every frame {@code session}'s connection wrote before: its fire-and-forget
     * sends (non-persistent, or transacted), acknowledgements, consumer closes. It opens an anonymous producer,
     * which the server answers (CREATE_PRODUCER only checks its destination, and an anonymous one has none, so it
     * leaves nothing behind), and the server handles a connection's frames in the order they arrive
     * (docs/protocol.md, "Requests and answers"). Frames the client holds back to join the next write go with it.
     */
    public static void barrier(Session session) throws JMSException {
        session.createProducer(null).close();
    }
}
