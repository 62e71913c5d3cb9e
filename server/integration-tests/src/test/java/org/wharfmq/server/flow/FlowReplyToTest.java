package org.wharfmq.server.flow;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.flow.ExceptionList;
import org.wharfmq.flow.FlowDefinition;
import org.wharfmq.flow.node.InputNode;
import org.wharfmq.flow.node.OutputNode;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.server.admin.AdminPlugin;

import javax.jms.Connection;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.QueueBrowser;
import javax.jms.Session;
import javax.jms.TemporaryQueue;
import javax.jms.TextMessage;
import java.nio.file.Path;
import java.util.Collections;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A flow that replies to its requests' JMSReplyTo ({@code OutputNode.replyTo()}) on a secured queue manager whose
 * flow host has no user of its own (the default: it acts as the queue manager, which may do everything). User bob, who
 * may only send requests, names the admin command queue as his request's JMSReplyTo with an admin command in its
 * properties (purge alice's payroll queue), or a {@code $SYS} topic (a forged queue event): the reply node refuses
 * both to its failure terminal, naming the destination and why, and the payroll keeps its message, no event is
 * published. Before, the flow put bob's command on {@code SYSTEM.ADMIN.COMMAND.QUEUE} with the queue manager's
 * authority, and the admin plugin ran it. A reply to an ordinary or temporary queue still goes.
 */
class FlowReplyToTest {

    private static final long RECEIVE_MILLIS = 30_000;

    @TempDir
    static Path dir;

    private static HttpFlowServer flows;

    @BeforeAll
    static void start() throws Exception {
        flows = HttpFlowServer.start(dir, """
                users: {}
                permissions:
                  - queue: "REPLY.REQUESTS"
                    send: [anyone]
                  - queue: "REPLY.PAYROLL"
                    send: [user:alice]
                    browse: [user:alice]
                  - queue: "REPLY.ERRORS"
                    receive: [user:alice]
                  - connect: [anyone]
                  - admin: [user:alice]
                """, new AdminPlugin());
        flows.flowHost().deploy(() -> FlowDefinition.builder("answers")
                .node("in", InputNode.queue("REPLY.REQUESTS"))
                .node("reply", OutputNode.replyTo())
                .node("record", new RecordExceptionList())
                .node("errors", OutputNode.queue("REPLY.ERRORS"))
                .wire("in", "out", "reply").wire("reply", "failure", "record").wire("record", "out", "errors")
                .build(), 1);
        try (Connection connection = new WharfConnectionFactory(flows.server().vmUrl()).createConnection()) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            session.createConsumer(session.createQueue("REPLY.PAYROLL")).close(); // defined by use, for alice
            session.createConsumer(session.createQueue("REPLY.ERRORS")).close();
        }
    }

    @AfterAll
    static void stop() {
        flows.close();
    }

    @Test
    void aReplyToTheQueueManagersOwnQueueOrTopicIsRefusedAndDoesNothing() throws Exception {
        try (Connection alice = connect("alice"); Connection bob = connect("bob")) {
            alice.start();
            Session aliceSession = alice.createSession(false, Session.AUTO_ACKNOWLEDGE);
            aliceSession.createProducer(aliceSession.createQueue("REPLY.PAYROLL"))
                    .send(aliceSession.createTextMessage("salaries"));
            MessageConsumer events = aliceSession.createConsumer(aliceSession.createTopic("$SYS/EVENTS/#"));
            MessageConsumer errors = aliceSession.createConsumer(aliceSession.createQueue("REPLY.ERRORS"));

            Session bobSession = bob.createSession(false, Session.AUTO_ACKNOWLEDGE);
            TextMessage command = bobSession.createTextMessage("purge it");
            command.setStringProperty("WharfCommand", "clear-queue");
            command.setStringProperty("WharfQueue", "REPLY.PAYROLL");
            command.setJMSReplyTo(bobSession.createQueue("SYSTEM.ADMIN.COMMAND.QUEUE"));
            bobSession.createProducer(bobSession.createQueue("REPLY.REQUESTS")).send(command);

            Message refused = errors.receive(RECEIVE_MILLIS);
            assertNotNull(refused, "the reply node's failure terminal has the request");
            String why = refused.getStringProperty(ExceptionList.PROPERTY);
            assertTrue(why.contains("Output node 'reply' refuses to send to queue 'SYSTEM.ADMIN.COMMAND.QUEUE', which"
                    + " the message's JMSReplyTo names: it is the queue manager's own (a SYSTEM.* queue), and whoever"
                    + " sent the message could have chosen it"), why);
            assertEquals(1, browse(aliceSession, "REPLY.PAYROLL"), "the admin command was not run");

            TextMessage event = bobSession.createTextMessage("{\"depth\": 0}");
            event.setJMSReplyTo(bobSession.createTopic("$SYS/EVENTS/QUEUE/REPLY.PAYROLL"));
            bobSession.createProducer(bobSession.createQueue("REPLY.REQUESTS")).send(event);
            refused = errors.receive(RECEIVE_MILLIS);
            assertNotNull(refused, "the reply node's failure terminal has the request");
            why = refused.getStringProperty(ExceptionList.PROPERTY);
            assertTrue(why.contains("refuses to send to topic '$SYS/EVENTS/QUEUE/REPLY.PAYROLL'"), why);
            // the flow refused before it could publish, and published nothing after: no forged event to wait for
            assertNull(events.receiveNoWait(), "no event was forged");
        }
    }

    @Test
    void aReplyToAnOrdinaryOrTemporaryQueueStillGoes() throws Exception {
        try (Connection bob = connect("bob")) {
            bob.start();
            Session session = bob.createSession(false, Session.AUTO_ACKNOWLEDGE);
            TemporaryQueue replies = session.createTemporaryQueue();
            TextMessage request = session.createTextMessage("ping");
            request.setJMSReplyTo(replies);
            session.createProducer(session.createQueue("REPLY.REQUESTS")).send(request);
            Message reply = session.createConsumer(replies).receive(RECEIVE_MILLIS);
            assertNotNull(reply);
            assertEquals("ping", ((TextMessage) reply).getText());
            assertEquals(request.getJMSMessageID(), reply.getJMSCorrelationID());
        }
    }

    private static Connection connect(String user) throws JMSException {
        return new WharfConnectionFactory(flows.server().networkUrls().get(0)).createConnection(user, user + "-pw");
    }

    private static int browse(Session session, String queue) throws JMSException {
        QueueBrowser browser = session.createBrowser(session.createQueue(queue));
        try {
            return Collections.list(browser.getEnumeration()).size();
        } finally {
            browser.close();
        }
    }
}
