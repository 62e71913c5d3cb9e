package org.wharfmq.server.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import javax.jms.Connection;
import javax.jms.ConnectionFactory;
import javax.jms.JMSException;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Queue;
import javax.jms.Session;
import javax.jms.TextMessage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * The request/reply example of README.md, line for line (only the URL and the printing differ), so the first code a
 * newcomer copies is known to work.
 */
class ReadmeExampleTest {

    @RegisterExtension
    static final WharfServerExtension SERVER = WharfServerExtension.withDefaults();

    @Test
    @Timeout(30)
    void requestReplyFromTheReadmeWorks() throws Exception {
        ConnectionFactory cf = new org.wharfmq.jms.WharfConnectionFactory(SERVER.server().tcpUrl());
        String answer;
        try (Connection connection = cf.createConnection()) {
            // --- README: the responder, on its own session
            Session responder = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageProducer replier = responder.createProducer(null);
            responder.createConsumer(responder.createQueue("REQUEST")).setMessageListener(request -> {
                try {
                    TextMessage reply = responder.createTextMessage("pong");
                    reply.setJMSCorrelationID(request.getJMSMessageID());
                    replier.send(request.getJMSReplyTo(), reply);
                } catch (JMSException e) {
                    throw new IllegalStateException(e);   // AUTO_ACKNOWLEDGE: the request is redelivered
                }
            });
            // --- README: the requester
            connection.start();
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            Queue requests = session.createQueue("REQUEST"), replies = session.createQueue("REPLY");
            TextMessage request = session.createTextMessage("ping");
            request.setJMSReplyTo(replies);
            session.createProducer(requests).send(request);
            String selector = "JMSCorrelationID = '" + request.getJMSMessageID() + "'";
            try (MessageConsumer consumer = session.createConsumer(replies, selector)) {
                TextMessage reply = (TextMessage) consumer.receive(5000);
                assertNotNull(reply, "no reply within 5 s");
                answer = reply.getText();
            }
        }
        assertEquals("pong", answer);
    }
}
