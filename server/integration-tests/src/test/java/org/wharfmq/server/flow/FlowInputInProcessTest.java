package org.wharfmq.server.flow;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.flow.FlowDefinition;
import org.wharfmq.flow.FlowMessage;
import org.wharfmq.flow.JavaComputeNode;
import org.wharfmq.flow.MessageAssembly;
import org.wharfmq.flow.TransactionMode;
import org.wharfmq.flow.node.InputNode;
import org.wharfmq.flow.node.OutputNode;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.server.LogCapture;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.management.Management;
import org.wharfmq.server.security.AuditLog;
import org.wharfmq.server.security.file.SecurityFileRealm;
import org.wharfmq.server.transport.ConnectionInfo;

import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.JMSException;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Session;
import javax.jms.TextMessage;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A flow's non-transactional reader of a queue takes its input inside the queue manager, not through a consumer of
 * its in-VM connection (docs/architecture.md, "Flows"), as the flows' user: it is refused, and the refusal audited,
 * where that user may not receive. A transactional reader still consumes over its connection. What repeats from one
 * message to the next (its reply-to, its property names and string values) is decoded once, as a connection's
 * consumer decodes it.
 */
class FlowInputInProcessTest {

    private static final String RULES = """
            users: {}
            allowAnonymous: true
            permissions:
              - connect: [anyone]
              - queue: "INPROC.IN"
                receive: [user:alice]
                create: [user:alice]
              - queue: "INPROC.AUTO"
                receive: [user:alice]
                create: [user:alice]
              - queue: "INPROC.OUT"
                send: [user:alice]
                create: [user:alice]
              - queue: "INPROC.DENIED"
                receive: [user:bob]
            """;

    @TempDir
    Path dir;

    private SecurityFileRealm realm;
    private TestServer testServer;
    private FlowHost flowHost;

    /** A server whose flows run as alice (HttpFlowCallers' users), under {@link #RULES}. */
    @BeforeEach
    void start() throws Exception {
        realm = HttpFlowCallers.realm(dir, RULES);
        testServer = TestServer.start(UnaryOperator.identity(), config -> {
            flowHost = new FlowHost(FlowHostSettings.defaults().withUser("alice", "alice-pw"));
            return WharfServer.builder(config).authenticator(realm).accessControl(realm.accessControl())
                    .plugins(flowHost).start();
        });
    }

    @AfterEach
    void stop() {
        if (testServer != null) {
            testServer.close();
        }
        realm.close();
    }

    private static FlowDefinition pass(String name, String queue, TransactionMode mode) {
        return FlowDefinition.builder(name)
                .node("in", InputNode.queue(queue).transactionMode(mode))
                .node("out", OutputNode.queue("INPROC.OUT"))
                .wire("in", "out", "out")
                .build();
    }

    /** The consumers of every client connection of the server (the flows' own in-VM connections among them). */
    private int connectionConsumers() {
        return testServer.server().management().connections().stream().mapToInt(ConnectionInfo::consumers).sum();
    }

    @Test
    void aNonTransactionalReaderTakesItsQueueWithNoConsumerOnAnyConnectionAndSendsAsTheFlowsUser() throws Exception {
        flowHost.deploy(() -> pass("NONTX", "INPROC.IN", TransactionMode.NO), 2);
        Management management = testServer.server().management();
        // deploy returns once every instance's consumer is open: a barrier, not a wait
        assertEquals(2, management.queue("INPROC.IN").consumers());
        assertEquals(0, connectionConsumers(), "the instances' in-VM connections consume nothing");

        try (Connection connection = new WharfConnectionFactory(testServer.server().vmUrl()).createConnection()) {
            connection.start();
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageProducer producer = session.createProducer(session.createQueue("INPROC.IN"));
            MessageConsumer out = session.createConsumer(session.createQueue("INPROC.OUT"));
            for (int i = 0; i < 20; i++) {
                TextMessage message = session.createTextMessage("m" + i);
                message.setStringProperty("n", "p" + i);
                producer.send(message, i % 2 == 0 ? DeliveryMode.PERSISTENT : DeliveryMode.NON_PERSISTENT, 4, 0);
            }
            java.util.Set<String> seen = new java.util.TreeSet<>();
            for (int i = 0; i < 20; i++) {
                TextMessage received = (TextMessage) out.receive(30_000);
                assertNotNull(received, "message " + i + " of 20 through the flow");
                assertEquals("alice", received.getStringProperty("JMSXUserID"), "sent as the flows' user");
                assertEquals("p" + received.getText().substring(1), received.getStringProperty("n"));
                seen.add(received.getText());
            }
            assertEquals(20, seen.size());
        }
        // every message was taken off the input for good: the queue's own count, once the flow is drained
        flowHost.undeploy("NONTX");
        assertEquals(0, management.queue("INPROC.IN").depth());
    }

    @Test
    void anAutomaticInputTakesItsNonPersistentMessagesInsideTheQueueManagerAndItsPersistentOnesOverItsConnection()
            throws Exception {
        flowHost.deploy(() -> pass("AUTO", "INPROC.AUTO", TransactionMode.AUTOMATIC), 1);
        assertEquals(2, testServer.server().management().queue("INPROC.AUTO").consumers());
        assertEquals(1, connectionConsumers(), "the transactional (persistent) reader's consumer only");
    }

    @Test
    void aReaderWhoseUserMayNotReceiveFromItsQueueIsRefusedAndTheRefusalAudited() throws Exception {
        try (LogCapture audit = LogCapture.of(AuditLog.NAME)) {
            JMSException e = assertThrows(JMSException.class,
                    () -> flowHost.deploy(() -> pass("DENIED", "INPROC.DENIED", TransactionMode.NO), 1));
            assertTrue(e.getMessage().contains("INPROC.DENIED") && e.getMessage().contains("alice"), e.getMessage());
            assertTrue(audit.messages().stream().anyMatch(m -> m.startsWith("DENIED") && m.contains("alice")
                    && m.contains("receive") && m.contains("INPROC.DENIED")), String.valueOf(audit.messages()));
        }
    }

    /** The message assemblies {@link Recorder} saw, in order. */
    private static final List<MessageAssembly> RECORDED = new CopyOnWriteArrayList<>();

    /** Keeps each assembly it is given, and passes it on. */
    public static final class Recorder extends JavaComputeNode {
        @Override
        public void evaluate(MessageAssembly assembly) throws Exception {
            RECORDED.add(assembly);
            propagate("out", assembly);
        }
    }

    @Test
    void whatRepeatsFromOneMessageToTheNextIsDecodedOnce() throws Exception {
        RECORDED.clear();
        flowHost.deploy(() -> FlowDefinition.builder("RECENT")
                .node("in", InputNode.queue("INPROC.IN").transactionMode(TransactionMode.NO))
                .node("record", new Recorder())
                .node("out", OutputNode.queue("INPROC.OUT"))
                .wire("in", "out", "record")
                .wire("record", "out", "out")
                .build(), 1);
        try (Connection connection = new WharfConnectionFactory(testServer.server().vmUrl()).createConnection()) {
            connection.start();
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageProducer producer = session.createProducer(session.createQueue("INPROC.IN"));
            MessageConsumer out = session.createConsumer(session.createQueue("INPROC.OUT"));
            for (int i = 0; i < 2; i++) {
                TextMessage message = session.createTextMessage("m" + i);
                message.setJMSReplyTo(session.createQueue("INPROC.OUT"));
                message.setStringProperty("run", "run-1");
                message.setStringProperty("n", "p" + i);
                producer.send(message, DeliveryMode.NON_PERSISTENT, 4, 0);
            }
            for (int i = 0; i < 2; i++) { // the barrier: each was recorded before it was sent on
                TextMessage received = (TextMessage) out.receive(30_000);
                assertNotNull(received, "message " + i + " of 2 through the flow");
                assertEquals("run-1", received.getStringProperty("run"));
            }
        }
        assertEquals(2, RECORDED.size());
        FlowMessage first = RECORDED.get(0).message();
        FlowMessage second = RECORDED.get(1).message();
        assertEquals("p0", first.userProperties().get("n"));
        assertEquals("p1", second.userProperties().get("n"));
        assertSame(first.headers().get(FlowMessage.JMS_REPLY_TO), second.headers().get(FlowMessage.JMS_REPLY_TO),
                "the reply-to the message before had, not decoded again");
        assertSame(first.userProperties().get("run"), second.userProperties().get("run"),
                "the string value the message before had in its place, not decoded again");
    }
}
