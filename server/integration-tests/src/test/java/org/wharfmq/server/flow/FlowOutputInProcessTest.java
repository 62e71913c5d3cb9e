package org.wharfmq.server.flow;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.client.core.transport.InVmLoopsHeld;
import org.wharfmq.flow.FlowDefinition;
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

import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Session;
import javax.jms.TextMessage;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A flow's reader puts what it sends outside a transaction inside the queue manager, on its own thread
 * ({@link InProcessOutputs}): not as a SEND of its in-VM connection, handed to that connection's event loop. A put is
 * refused as the flows' user's send would be, and the refusal fails the invocation that sent it (its message down the
 * backout path), not a later one. The transacted session's sends still go with its transaction.
 */
class FlowOutputInProcessTest {

    @TempDir
    Path dir;

    /**
     * Twenty messages pass a non-transactional flow while every in-VM connection's event loop is held: its input is
     * taken and its output put inside the queue manager by the reader's thread. Sent as a SEND of the reader's in-VM
     * connection, an output would wait for that loop, and none would come out until it ran again.
     */
    @Test
    void aNonTransactionalFlowsOutputsAreNotHandedToItsInVmConnection() throws Exception {
        FlowHost[] flowHost = new FlowHost[1];
        try (TestServer test = TestServer.start(UnaryOperator.identity(), config -> {
            flowHost[0] = new FlowHost(FlowHostSettings.defaults());
            return WharfServer.builder(config).plugins(flowHost[0]).start();
        })) {
            flowHost[0].deploy(() -> FlowDefinition.builder("OUTPROC")
                    .node("in", InputNode.queue("OUTPROC.IN").transactionMode(TransactionMode.NO))
                    .node("out", OutputNode.queue("OUTPROC.OUT"))
                    .wire("in", "out", "out")
                    .build(), 1);
            int messages = 20;
            // over TCP: the test's own connection needs no in-VM loop
            try (Connection connection = new WharfConnectionFactory(test.server().tcpUrl()).createConnection()) {
                connection.start();
                Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
                MessageProducer producer = session.createProducer(session.createQueue("OUTPROC.IN"));
                MessageConsumer out = session.createConsumer(session.createQueue("OUTPROC.OUT"));
                List<String> received = new ArrayList<>();
                try (InVmLoopsHeld held = InVmLoopsHeld.hold()) {
                    for (int i = 0; i < messages; i++) {
                        producer.send(session.createTextMessage("m" + i), DeliveryMode.NON_PERSISTENT, 4, 0);
                    }
                    for (int i = 0; i < messages; i++) {
                        TextMessage message = (TextMessage) out.receive(30_000);
                        assertNotNull(message, "output " + i + " of " + messages + " while the in-VM loops are held;"
                                + " so far " + received);
                        received.add(message.getText());
                    }
                }
                List<String> sent = new ArrayList<>();
                for (int i = 0; i < messages; i++) {
                    sent.add("m" + i);
                }
                assertEquals(sent, received, "every output, in the order of the inputs");
            }
            flowHost[0].undeploy("OUTPROC");
            assertEquals(0, test.server().management().queue("OUTPROC.IN").depth());
        }
    }

    private static final String RULES = """
            users: {}
            allowAnonymous: true
            permissions:
              - connect: [anyone]
              - queue: "OUTPROC.IN"
                receive: [user:alice]
                create: [user:alice]
              - queue: "OUTPROC.FAILED"
                send: [user:alice]
                create: [user:alice]
              - queue: "OUTPROC.DENIED"
                send: [user:bob]
                create: [user:bob]
            """;

    /**
     * The flows' user may not send to the output's queue: the put is refused, and the refusal audited, as its send
     * would be, and the invocation that made it fails at once, so its message goes down the backout path (here the
     * input's failure terminal). A non-persistent SEND over the connection is answered by nobody: its refusal came back
     * with the next send, failing the next message's invocation, and this one's output was gone unnoticed.
     */
    @Test
    void aRefusedPutFailsTheInvocationThatMadeIt() throws Exception {
        try (SecurityFileRealm realm = HttpFlowCallers.realm(dir, RULES)) {
            FlowHost[] flowHost = new FlowHost[1];
            try (TestServer test = TestServer.start(UnaryOperator.identity(), config -> {
                flowHost[0] = new FlowHost(FlowHostSettings.defaults().withUser("alice", "alice-pw"));
                return WharfServer.builder(config).authenticator(realm).accessControl(realm.accessControl())
                        .plugins(flowHost[0]).start();
            }); LogCapture audit = LogCapture.of(AuditLog.NAME)) {
                DeployedFlow deployed = flowHost[0].deploy(() -> FlowDefinition.builder("DENIED")
                        .node("in", InputNode.queue("OUTPROC.IN").transactionMode(TransactionMode.NO))
                        .node("out", OutputNode.queue("OUTPROC.DENIED"))
                        .node("failed", OutputNode.queue("OUTPROC.FAILED"))
                        .wire("in", "out", "out")
                        .wire("in", "failure", "failed")
                        .build(), 1);
                try (Connection connection = new WharfConnectionFactory(test.server().vmUrl()).createConnection()) {
                    connection.start();
                    Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
                    TextMessage input = session.createTextMessage("the only one");
                    input.setIntProperty("seq", 1);
                    session.createProducer(session.createQueue("OUTPROC.IN"))
                            .send(input, DeliveryMode.NON_PERSISTENT, 4, 0);
                    Message failed = session.createConsumer(session.createQueue("OUTPROC.FAILED")).receive(30_000);
                    assertNotNull(failed, "the message whose output was refused, on the failure terminal");
                    assertEquals(1, failed.getIntProperty("seq"));
                }
                assertEquals(1, deployed.running().statistics().failures());
                flowHost[0].undeploy("DENIED");
                Management management = test.server().management();
                assertEquals(0, management.queue("OUTPROC.IN").depth());
                assertTrue(audit.messages().stream().anyMatch(m -> m.startsWith("DENIED") && m.contains("alice")
                        && m.contains("send") && m.contains("OUTPROC.DENIED")), String.valueOf(audit.messages()));
            }
        }
    }

    /**
     * A transactional reader's invocation sends one output in its transaction and one outside it (transaction mode NO:
     * put in-process at once), then fails on its first delivery: the transaction's output is rolled back with the get,
     * the other was out already; the second delivery commits both. So the first comes out once, from the second
     * delivery, the other twice.
     */
    @Test
    void aTransactionalInvocationsOutputOutsideItsTransactionIsOutAtOnceAndItsOtherOutputsCommitWithTheGet()
            throws Exception {
        FlowHost[] flowHost = new FlowHost[1];
        try (TestServer test = TestServer.start(UnaryOperator.identity(), config -> {
            flowHost[0] = new FlowHost(FlowHostSettings.defaults());
            return WharfServer.builder(config).plugins(flowHost[0]).start();
        })) {
            flowHost[0].deploy(() -> FlowDefinition.builder("TXNOW")
                    .node("in", InputNode.queue("TXNOW.IN").transactionMode(TransactionMode.YES))
                    .node("compute", new FailOnMessage(-1, true))
                    .node("tx", OutputNode.queue("TXNOW.TX"))
                    .node("now", OutputNode.queue("TXNOW.NOW").transactionMode(TransactionMode.NO))
                    .wire("in", "out", "compute")
                    .wire("compute", "out", "tx")
                    .wire("compute", "out", "now")
                    .build(), 1);
            try (Connection connection = new WharfConnectionFactory(test.server().vmUrl()).createConnection()) {
                connection.start();
                Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
                TextMessage input = session.createTextMessage("once");
                input.setIntProperty("seq", 1);
                session.createProducer(session.createQueue("TXNOW.IN")).send(input, DeliveryMode.PERSISTENT, 4, 0);
                MessageConsumer now = session.createConsumer(session.createQueue("TXNOW.NOW"));
                MessageConsumer tx = session.createConsumer(session.createQueue("TXNOW.TX"));
                List<Integer> nowAttempts = new ArrayList<>();
                for (int i = 0; i < 2; i++) {
                    Message message = now.receive(30_000);
                    assertNotNull(message, "output outside the transaction " + i + "; so far " + nowAttempts);
                    nowAttempts.add(message.getIntProperty("attempt"));
                }
                assertEquals(List.of(1, 2), nowAttempts, "put at once by each delivery");
                Message committed = tx.receive(30_000);
                assertNotNull(committed, "the transaction's output");
                assertEquals(2, committed.getIntProperty("attempt"), "the first delivery's was rolled back");
                assertEquals(DeliveryMode.PERSISTENT, committed.getJMSDeliveryMode());
                flowHost[0].undeploy("TXNOW"); // the reader has closed: nothing more comes
            } // the close answered: what the test's consumers received is acknowledged
            Management management = test.server().management();
            assertEquals(0, management.queue("TXNOW.IN").depth());
            assertEquals(0, management.queue("TXNOW.TX").depth(), "one output in the transaction");
            assertEquals(0, management.queue("TXNOW.NOW").depth(), "two outside it");
        }
    }
}
