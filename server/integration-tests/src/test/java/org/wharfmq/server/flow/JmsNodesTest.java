package org.wharfmq.server.flow;

import org.apache.activemq.broker.BrokerService;
import org.apache.activemq.broker.TransportConnector;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.flow.ExceptionList;
import org.wharfmq.flow.FlowDefinition;
import org.wharfmq.flow.JavaComputeNode;
import org.wharfmq.flow.MessageAssembly;
import org.wharfmq.flow.TransactionMode;
import org.wharfmq.flow.node.DatabaseNode;
import org.wharfmq.flow.node.InputNode;
import org.wharfmq.flow.node.JmsInputNode;
import org.wharfmq.flow.node.JmsOutputNode;
import org.wharfmq.flow.node.OutputNode;
import org.wharfmq.flow.runtime.JmsProvider;
import org.wharfmq.flow.runtime.RunningFlow;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.cli.ConfigurationFile;
import org.wharfmq.server.it.LogMessages;
import org.wharfmq.server.it.Receive;

import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.JMSException;
import javax.jms.MapMessage;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.ObjectMessage;
import javax.jms.Session;
import javax.jms.TextMessage;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The JMSInput and JMSOutput nodes against a real other provider, an embedded Apache ActiveMQ Artemis reached
 * through its JNDI: messages from an Artemis queue through a flow into a Wharf queue and back out to Artemis, each
 * once; the provider down when the flow starts (retried, the log names its URL) and going away mid-run (reconnected,
 * nothing lost); a rolled-back invocation leaves its message on the provider; a coordinated flow's send to the
 * provider commits and rolls back with its invocation; the sample bridge from a configuration
 * file's jmsProviders:; and ActiveMQ Classic through its own JNDI.
 */
@Tag("slow") // Artemis brokers started and restarted: 20-50 s in all on 2 shared cores
class JmsNodesTest {

    /** How long what the test waits for may take: it bounds a hang only (a loaded machine is slow). */
    private static final long WAIT_MILLIS = 30_000;

    /** One broker for the tests that do not stop it, each on queues of its own. */
    private static TestArtemis shared;
    /** The test's broker: the shared one, or its own for a test that starts or stops it. */
    private TestArtemis artemis;
    private TestArtemis own;
    private FlowFixture fixture;
    private Connection artemisConnection;
    private Session artemisSession;

    @BeforeAll
    static void startArtemis() throws Exception {
        shared = TestArtemis.onFreePort().start();
    }

    @AfterAll
    static void stopArtemis() throws Exception {
        shared.close();
    }

    @BeforeEach
    void start() throws Exception {
        artemis = shared;
        fixture = new FlowFixture();
    }

    @AfterEach
    void stop() throws Exception {
        fixture.close();
        if (artemisConnection != null) {
            artemisConnection.close();
        }
        if (own != null) {
            own.close();
        }
    }

    /** Gives the test a broker of its own, not started yet. */
    private void ownArtemis() throws Exception {
        own = TestArtemis.onFreePort();
        artemis = own;
    }

    private void connectToArtemis() throws JMSException {
        artemisConnection = artemis.connectionFactory().createConnection();
        artemisConnection.start();
        artemisSession = artemisConnection.createSession(false, Session.AUTO_ACKNOWLEDGE);
    }

    private void sendToArtemis(String queue, int from, int to) throws JMSException {
        try (MessageProducer producer = artemisSession.createProducer(artemisSession.createQueue(queue))) {
            for (int seq = from; seq <= to; seq++) {
                TextMessage message = artemisSession.createTextMessage("order " + seq);
                message.setIntProperty("seq", seq);
                producer.send(message, DeliveryMode.PERSISTENT, 4, 0);
            }
        }
    }

    @Test
    void messagesGoFromArtemisThroughWharfAndBackToArtemisEachOnce() throws Exception {
        connectToArtemis();
        int n = 50;
        sendToArtemis("ROUND.IN", 1, n);
        RunningFlow in = fixture.run(FlowDefinition.builder("from-artemis")
                .node("in", JmsInputNode.from("artemis", "jms/ROUND.IN"))
                .node("out", OutputNode.queue("MID"))
                .wire("in", "out", "out")
                .build(), 2, artemis.provider("artemis", "ROUND.IN"));
        RunningFlow out = fixture.run(FlowDefinition.builder("to-artemis")
                .node("in", InputNode.queue("MID"))
                .node("out", JmsOutputNode.to("artemis", "jms/ROUND.OUT"))
                .wire("in", "out", "out")
                .build(), 2, artemis.provider("artemis", "ROUND.OUT"));
        List<Integer> seqs = new ArrayList<>();
        try (MessageConsumer consumer = artemisSession.createConsumer(artemisSession.createQueue("ROUND.OUT"))) {
            for (int i = 0; i < n; i++) {
                Message message = consumer.receive(WAIT_MILLIS);
                assertNotNull(message, "only " + i + " of " + n + " messages came back to Artemis");
                assertEquals("order " + message.getIntProperty("seq"), ((TextMessage) message).getText());
                seqs.add(message.getIntProperty("seq"));
            }
        }
        in.close(); // drains: what was in progress has committed on both sides
        out.close();
        assertEquals(n, seqs.stream().distinct().count(), "a message came back twice: " + seqs);
        assertEquals(0, artemis.messageCount("ROUND.OUT"), "a message came back twice");
        assertEquals(0, artemis.messageCount("ROUND.IN"), "a message was not taken off Artemis");
        assertEquals(0, fixture.depth("MID"));
        assertEquals(n, in.statistics().invocations());
        assertEquals(0, in.statistics().failures());
    }

    /**
     * A destination's JNDI name that is a URL is never looked up, whoever chose it: a flow that sends to a name taken
     * from its message (a JavaCompute node's sendTo, which a flow must not do) is refused before JNDI would resolve the
     * name through the URL's naming system (here an LDAP server the message names: JNDI injection, which would take
     * back whatever object that server answers), the failure naming the name, why and the fix; the flow's names of the
     * provider's context still work. Before, JNDI called the LDAP URL's host (its connection refused here).
     */
    @Test
    void aJndiNameThatIsAUrlIsNeverLookedUpWhoeverChoseIt() throws Exception {
        connectToArtemis();
        int closed;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closed = socket.getLocalPort();
        }
        String url = "ldap://127.0.0.1:" + closed + "/cn=wharf";
        RunningFlow flow = fixture.run(FlowDefinition.builder("jndi-from-message")
                .node("in", InputNode.queue("JNDI.IN"))
                .node("send", new SendToNamedDestination())
                .node("record", new RecordExceptionList())
                .node("failed", OutputNode.queue("JNDI.FAILED"))
                .wire("in", "out", "send")
                .wire("send", "failure", "record").wire("record", "out", "failed")
                .build(), 1, artemis.provider("artemis", "JNDI.OUT"));
        fixture.send("JNDI.IN", url, true, "seq", 1);
        fixture.send("JNDI.IN", "jms/JNDI.OUT", true, "seq", 2);
        String why = fixture.receiveOne("JNDI.FAILED").getStringProperty(ExceptionList.PROPERTY);
        assertTrue(why.contains("Cannot look up destination '" + url + "' of JMS provider 'artemis' at " + artemis.url()
                + ": it is a URL (scheme 'ldap'), which JNDI would resolve through that scheme's naming system (a "
                + "server the URL names), not the provider's context, so it is never looked up. Give a name of the "
                + "provider's own JNDI context"), why);
        try (MessageConsumer consumer = artemisSession.createConsumer(artemisSession.createQueue("JNDI.OUT"))) {
            Message sent = consumer.receive(WAIT_MILLIS);
            assertNotNull(sent, "the send to the provider's own name did not arrive");
            assertEquals(2, sent.getIntProperty("seq"));
        }
        flow.close();
        assertEquals(0, fixture.depth("JNDI.FAILED"));
    }

    /** Sends each message to the destination of provider 'artemis' that its body names: what a flow must not do. */
    private static final class SendToNamedDestination extends JavaComputeNode {
        @Override
        public void evaluate(MessageAssembly assembly) throws Exception {
            context().sendTo("artemis", assembly.message().bodyText(), assembly, TransactionMode.AUTOMATIC);
            propagate("out", assembly);
        }
    }

    @Test
    void aProviderDownAtStartIsRetriedWithItsUrlInTheLogAndReadOnceUp() throws Exception {
        ownArtemis();
        try (LogMessages warnings = LogMessages.of("org.wharfmq.flow.runtime.InputReader")) {
            RunningFlow flow = fixture.run(FlowDefinition.builder("from-artemis")
                    .node("in", JmsInputNode.from("artemis", "jms/IN"))
                    .node("out", OutputNode.queue("MID"))
                    .wire("in", "out", "out")
                    .build(), 1, artemis.provider("artemis", "IN"));
            String warning = warnings.poll(WAIT_MILLIS);
            assertNotNull(warning, "no warning that the provider cannot be reached");
            assertTrue(warning.contains("Cannot connect to JMS provider 'artemis' at " + artemis.url())
                    && warning.contains("trying again in"), warning);
            await(() -> flow.statistics().reconnects() >= 2, "the reader tries again");
        }
        artemis.start();
        connectToArtemis();
        sendToArtemis("IN", 1, 3);
        List<Message> received = fixture.receive("MID", 3);
        assertEquals(List.of(1, 2, 3), seqs(received));
    }

    @Test
    void aProviderGoingAwayMidRunIsReconnectedAndNothingIsLost() throws Exception {
        ownArtemis();
        artemis.start();
        connectToArtemis();
        int n = 200;
        sendToArtemis("IN", 1, n);
        artemisConnection.close();
        artemisConnection = null;
        RunningFlow flow = fixture.run(FlowDefinition.builder("from-artemis")
                .node("in", JmsInputNode.from("artemis", "jms/IN"))
                .node("out", OutputNode.queue("MID"))
                .wire("in", "out", "out")
                .build(), 1, artemis.provider("artemis", "IN"));
        Map<Integer, Integer> copies = new HashMap<>();
        try (MessageConsumer consumer = fixture.session.createConsumer(fixture.session.createQueue("MID"))) {
            for (int i = 0; i < 10; i++) {
                Message message = consumer.receive(WAIT_MILLIS);
                assertNotNull(message);
                copies.merge(message.getIntProperty("seq"), 1, Integer::sum);
            }
            artemis.stop(); // the flow is in the middle of the 200
            await(() -> flow.statistics().reconnects() >= 1, "the reader sees the provider gone");
            artemis.start();
            while (copies.size() < n) {
                Message message = consumer.receive(WAIT_MILLIS);
                assertNotNull(message, "lost: " + (n - copies.size()) + " messages never came");
                copies.merge(message.getIntProperty("seq"), 1, Integer::sum);
            }
            flow.close();
            for (Message extra; (extra = consumer.receiveNoWait()) != null; ) {
                copies.merge(extra.getIntProperty("seq"), 1, Integer::sum);
            }
            Receive.nothingMore(consumer);
        }
        assertEquals(0, artemis.messageCount("IN"));
        // a message whose Wharf side committed just before Artemis went away comes again (the documented window)
        long duplicates = copies.values().stream().filter(c -> c > 1).count();
        assertTrue(duplicates <= 1, "more duplicates than the one message in the window: " + copies);
    }

    @Test
    void aRolledBackInvocationLeavesItsMessageOnTheProvider() throws Exception {
        connectToArtemis();
        // fails on the first delivery after it has sent to MID: that send rolls back and Artemis delivers again
        RunningFlow flow = fixture.run(FlowDefinition.builder("from-artemis")
                .node("in", JmsInputNode.from("artemis", "jms/ROLLBACK.IN"))
                .node("compute", new FailOnMessage(-1, true))
                .node("out", OutputNode.queue("MID"))
                .wire("in", "out", "compute")
                .wire("compute", "out", "out")
                .build(), 1, artemis.provider("artemis", "ROLLBACK.IN"));
        sendToArtemis("ROLLBACK.IN", 1, 1);
        Message message = fixture.receiveOne("MID");
        assertEquals(2, message.getIntProperty("attempt"), "the output of the rolled-back delivery became visible");
        flow.close();
        assertEquals(0, fixture.depth("MID"), "the output of the rolled-back delivery became visible");
        assertEquals(1, flow.statistics().failures());
        assertEquals(0, artemis.messageCount("ROLLBACK.IN"));
    }

    @Test
    void aRolledBackInvocationTakesBackItsSendToTheProvider() throws Exception {
        connectToArtemis();
        // sends to Artemis, then fails on the first delivery: that send rolls back with Wharf's get
        RunningFlow flow = fixture.run(FlowDefinition.builder("to-artemis")
                .node("in", InputNode.queue("MID"))
                .node("compute", new FailOnMessage(-1, true))
                .node("out", JmsOutputNode.to("artemis", "jms/ROLLBACK.OUT"))
                .wire("in", "out", "compute")
                .wire("compute", "out", "out")
                .build(), 1, artemis.provider("artemis", "ROLLBACK.OUT"));
        fixture.send("MID", "order 1", true, "seq", 1);
        try (MessageConsumer consumer = artemisSession.createConsumer(artemisSession.createQueue("ROLLBACK.OUT"))) {
            Message message = consumer.receive(WAIT_MILLIS);
            assertNotNull(message, "nothing reached Artemis");
            assertEquals(2, message.getIntProperty("attempt"), "the send of the rolled-back delivery reached Artemis");
        }
        flow.close();
        assertEquals(0, artemis.messageCount("ROLLBACK.OUT"), "the send of the rolled-back delivery reached Artemis");
        assertEquals(1, flow.statistics().failures());
        assertEquals(0, fixture.depth("MID"));
    }

    /**
     * A flow that reads from Artemis and sends back to it sends on its input's transacted session: the send and the
     * get commit together, in one commit on one connection per instance (not a connection and a commit of their own
     * for the send), and a delivery that fails after the send takes both back.
     */
    @Test
    void aSendBackToTheInputsProviderCommitsWithTheGetOnTheInputsConnection() throws Exception {
        connectToArtemis();
        int n = 20;
        sendToArtemis("SAME.IN", 1, n);
        // sends each message back to Artemis, then fails on its first delivery: the send rolls back with the get
        RunningFlow flow = fixture.run(FlowDefinition.builder("artemis-to-artemis")
                .node("in", JmsInputNode.from("artemis", "jms/SAME.IN"))
                .node("compute", new FailOnMessage(-1, true))
                .node("out", JmsOutputNode.to("artemis", "jms/SAME.OUT"))
                .wire("in", "out", "compute")
                .wire("compute", "out", "out")
                .build(), 1, artemis.provider("artemis", "SAME.IN", "SAME.OUT"));
        List<Integer> seqs = new ArrayList<>();
        try (MessageConsumer consumer = artemisSession.createConsumer(artemisSession.createQueue("SAME.OUT"))) {
            for (int i = 0; i < n; i++) {
                Message message = consumer.receive(WAIT_MILLIS);
                assertNotNull(message, "only " + i + " of " + n + " messages reached SAME.OUT");
                assertEquals(2, message.getIntProperty("attempt"), "the send of a rolled-back delivery reached Artemis");
                seqs.add(message.getIntProperty("seq"));
            }
            assertEquals(2, artemis.connectionCount(), "the test's connection and the instance's one: the flow opened "
                    + "a connection of its own for its sends");
        }
        flow.close(); // drains: what was in progress has committed
        assertEquals(n, seqs.stream().distinct().count(), "a message reached SAME.OUT twice: " + seqs);
        assertEquals(0, artemis.messageCount("SAME.OUT"), "a message reached SAME.OUT twice");
        assertEquals(0, artemis.messageCount("SAME.IN"), "a message was not taken off Artemis");
        assertEquals(n, flow.statistics().failures());
    }

    @Test
    void aMessageFailingPastTheBackoutThresholdGoesToTheDeadLetterQueueAndOffTheProvider() throws Exception {
        connectToArtemis();
        RunningFlow flow = fixture.run(FlowDefinition.builder("from-artemis")
                .node("in", JmsInputNode.from("artemis", "jms/BACKOUT.IN").backoutThreshold(2))
                .node("compute", new FailOnMessage(-1, false))
                .node("out", OutputNode.queue("MID"))
                .wire("in", "out", "compute")
                .wire("compute", "out", "out")
                .build(), 1, artemis.provider("artemis", "BACKOUT.IN"));
        sendToArtemis("BACKOUT.IN", 7, 7);
        Message failed = fixture.receiveOne(RunningFlow.DEAD_LETTER_QUEUE);
        flow.close();
        assertEquals(7, failed.getIntProperty("seq"));
        assertTrue(failed.getStringProperty(ExceptionList.PROPERTY).contains("boom on seq 7"),
                failed.getStringProperty(ExceptionList.PROPERTY));
        assertEquals(2, flow.statistics().failures(), "tried backoutThreshold times");
        assertEquals(0, fixture.depth("MID"));
        assertEquals(0, artemis.messageCount("BACKOUT.IN"));
    }

    @Test
    void aMessageTheFlowCannotReadGoesAsItCameToTheDeadLetterQueueAndOffTheProvider() throws Exception {
        connectToArtemis();
        RunningFlow flow = fixture.run(FlowDefinition.builder("from-artemis")
                .node("in", JmsInputNode.from("artemis", "jms/UNREADABLE.IN"))
                .node("out", OutputNode.queue("MID"))
                .wire("in", "out", "out")
                .build(), 1, artemis.provider("artemis", "UNREADABLE.IN"));
        try (MessageProducer producer = artemisSession.createProducer(artemisSession.createQueue("UNREADABLE.IN"))) {
            MapMessage map = artemisSession.createMapMessage();
            map.setString("order", "42");
            producer.send(map);
        }
        Message dead = fixture.receiveOne(RunningFlow.DEAD_LETTER_QUEUE);
        flow.close();
        assertEquals("42", ((MapMessage) dead).getString("order"));
        assertEquals(1, flow.statistics().backouts());
        assertEquals(0, fixture.depth("MID"));
        assertEquals(0, artemis.messageCount("UNREADABLE.IN"));
    }

    /**
     * An ObjectMessage on the provider (which a flow cannot read) goes to the dead-letter queue without its body: its
     * serialized object is never deserialized in the server (Artemis's client, as most, deserializes any class unless
     * told otherwise, so whoever may send to the provider's queue would choose which classes' code runs there), and
     * the message keeps its properties and says why its body is missing. Before, the server deserialized it to copy it
     * (the marker's readObject ran).
     */
    @Test
    void anObjectMessageOnTheProviderIsNeverDeserializedInTheServer() throws Exception {
        connectToArtemis();
        RunningFlow flow = fixture.run(FlowDefinition.builder("from-artemis")
                .node("in", JmsInputNode.from("artemis", "jms/OBJECT.IN"))
                .node("out", OutputNode.queue("MID"))
                .wire("in", "out", "out")
                .build(), 1, artemis.provider("artemis", "OBJECT.IN"));
        DeserializedMarker.READ.set(false);
        try (MessageProducer producer = artemisSession.createProducer(artemisSession.createQueue("OBJECT.IN"))) {
            ObjectMessage object = artemisSession.createObjectMessage(new DeserializedMarker());
            object.setStringProperty("order", "42");
            producer.send(object);
        }
        Message dead = fixture.receiveOne(RunningFlow.DEAD_LETTER_QUEUE);
        flow.close();
        assertFalse(DeserializedMarker.READ.get(), "the server deserialized the ObjectMessage's body");
        assertFalse(dead instanceof ObjectMessage, "the dead-lettered message has the object: " + dead);
        assertEquals("42", dead.getStringProperty("order"));
        String why = dead.getStringProperty(RunningFlow.BODY_NOT_COPIED);
        assertTrue(why != null && why.contains(" of JMS provider 'artemis' at " + artemis.url() + " is a serialized "
                + "Java object, which the server does not deserialize"), why);
        assertEquals(1, flow.statistics().backouts());
        assertEquals(0, artemis.messageCount("OBJECT.IN"));
    }

    /** An object whose deserialization says it happened: what a gadget's readObject would do instead. */
    static final class DeserializedMarker implements java.io.Serializable {
        private static final long serialVersionUID = 1L;
        static final java.util.concurrent.atomic.AtomicBoolean READ = new java.util.concurrent.atomic.AtomicBoolean();

        private void readObject(java.io.ObjectInputStream in) throws java.io.IOException, ClassNotFoundException {
            in.defaultReadObject();
            READ.set(true);
        }
    }

    @Test
    void aFlowNamingAnUndefinedProviderIsRefusedAtStart() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> fixture.run(
                FlowDefinition.builder("f")
                        .node("in", InputNode.queue("MID"))
                        .node("out", JmsOutputNode.to("classic", "jms/OUT"))
                        .wire("in", "out", "out")
                        .build(), 1, artemis.provider("artemis")));
        assertEquals("Flow 'f' node 'out' uses JMS provider 'classic', which is not defined (defined: artemis). Add it "
                + "under jmsProviders: in the server's configuration (docs/flows.md, \"Other JMS providers\"); a flow "
                + "run on its own (wharf flow run) has none.", e.getMessage());
    }

    @Test
    void theSampleBridgeRunsFromTheConfigurationsJmsProvidersBothWays(@TempDir Path dir) throws Exception {
        connectToArtemis();
        Path yaml = artemis.sampleBridgeConfiguration(dir);
        FlowHost flowHost = new FlowHost(ConfigurationFile.load(yaml).flowHost());
        try (TestServer testServer = TestServer.start(c -> c, config -> WharfServer.start(config, flowHost));
             Connection wharf = new WharfConnectionFactory(testServer.server().vmUrl()).createConnection()) {
            wharf.start();
            Session session = wharf.createSession(false, Session.AUTO_ACKNOWLEDGE);
            sendToArtemis("ORDERS", 1, 1);
            Message order = session.createConsumer(session.createQueue("ORDERS")).receive(WAIT_MILLIS);
            assertNotNull(order, "the order did not come from Artemis");
            assertEquals("order 1", ((TextMessage) order).getText());
            session.createProducer(session.createQueue("INVOICES")).send(session.createTextMessage("invoice 1"));
            try (MessageConsumer invoices = artemisSession.createConsumer(artemisSession.createQueue("INVOICES"))) {
                Message invoice = invoices.receive(WAIT_MILLIS);
                assertNotNull(invoice, "the invoice did not reach Artemis");
                assertEquals("invoice 1", ((TextMessage) invoice).getText());
            }
        }
    }

    /**
     * A coordinated flow (its Database node on an {@code xa: true} data source) that also sends to another provider:
     * the send to Artemis commits with the invocation, before the XA transaction that takes the row and Wharf's get,
     * and a delivery that fails after the send takes back the send and the row.
     */
    @Test
    void aCoordinatedFlowsSendToTheProviderCommitsAndRollsBackWithItsInvocation() throws Exception {
        connectToArtemis();
        TestDatabase database = TestDatabase.h2().xa();
        try (java.sql.Connection db = database.connect(); Statement sql = db.createStatement()) {
            sql.execute("CREATE TABLE orders (seq INTEGER PRIMARY KEY)");
        }
        FlowHost flowHost = new FlowHost(FlowHostSettings.defaults()
                .withDataSources(List.of(database.dataSource("orders")))
                .withJmsProviders(List.of(artemis.provider("artemis", "XA.OUT"))));
        try (TestServer testServer = TestServer.start(c -> c, config -> WharfServer.start(config, flowHost));
             Connection wharf = new WharfConnectionFactory(testServer.server().vmUrl()).createConnection()) {
            // inserts, sends to Artemis, then fails on the first delivery: the insert and the send roll back
            flowHost.deploy(() -> FlowDefinition.builder("coordinated")
                    .node("in", InputNode.queue("XA.IN").transactionMode(TransactionMode.YES))
                    .node("insert", new DatabaseNode("orders", "INSERT INTO orders (seq) VALUES (?)",
                            "UserProperties/seq"))
                    .node("compute", new FailOnMessage(-1, true))
                    .node("out", JmsOutputNode.to("artemis", "jms/XA.OUT"))
                    .wire("in", "out", "insert").wire("insert", "out", "compute").wire("compute", "out", "out")
                    .build(), 1);
            RunningFlow flow = flowHost.flow("coordinated").running();
            assertTrue(flow.coordinated());
            Session session = wharf.createSession(false, Session.AUTO_ACKNOWLEDGE);
            TextMessage order = session.createTextMessage("order 1");
            order.setIntProperty("seq", 1);
            session.createProducer(session.createQueue("XA.IN")).send(order);
            try (MessageConsumer consumer = artemisSession.createConsumer(artemisSession.createQueue("XA.OUT"))) {
                Message message = consumer.receive(WAIT_MILLIS);
                assertNotNull(message, "nothing reached Artemis");
                assertEquals(2, message.getIntProperty("attempt"),
                        "the send of the rolled-back delivery reached Artemis");
            }
            assertTrue(flowHost.undeploy("coordinated")); // drained: the second delivery's commit has returned
            assertEquals(0, artemis.messageCount("XA.OUT"), "the send of the rolled-back delivery reached Artemis");
            assertEquals(1, flow.statistics().failures());
            assertEquals(0, testServer.server().queueManager().depth("XA.IN"), "the input was left behind");
            try (java.sql.Connection db = database.connect(); Statement sql = db.createStatement();
                 ResultSet rows = sql.executeQuery("SELECT seq FROM orders")) {
                assertTrue(rows.next(), "the second delivery's row did not commit");
                assertEquals(1, rows.getInt(1));
                assertFalse(rows.next(), "more than one row");
            }
        }
    }

    @Test
    void aFlowReadsFromActiveMqClassicThroughItsJndi() throws Exception {
        BrokerService classic = new BrokerService();
        classic.setBrokerName("wharf-test-classic");
        classic.setPersistent(false);
        classic.setUseJmx(false);
        classic.setUseShutdownHook(false);
        TransportConnector openwire = classic.addConnector("tcp://127.0.0.1:0");
        classic.start();
        try {
            String url = openwire.getPublishableConnectString();
            JmsProvider provider = new JmsProvider("classic", Map.of(
                    "java.naming.factory.initial", "org.apache.activemq.jndi.ActiveMQInitialContextFactory",
                    "java.naming.provider.url", url,
                    "queue.jms/invoices", "INVOICES"), null, null, null);
            RunningFlow flow = fixture.run(FlowDefinition.builder("from-classic")
                    .node("in", JmsInputNode.from("classic", "jms/invoices"))
                    .node("out", OutputNode.queue("MID"))
                    .wire("in", "out", "out")
                    .build(), 1, provider);
            try (Connection connection = new org.apache.activemq.ActiveMQConnectionFactory(url).createConnection()) {
                Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
                MessageProducer producer = session.createProducer(session.createQueue("INVOICES"));
                for (int seq = 1; seq <= 3; seq++) {
                    TextMessage message = session.createTextMessage("invoice " + seq);
                    message.setIntProperty("seq", seq);
                    producer.send(message);
                }
            }
            assertEquals(List.of(1, 2, 3), seqs(fixture.receive("MID", 3)));
            flow.close();
            assertEquals(0, fixture.depth("MID"));
        } finally {
            classic.stop();
        }
    }

    private static List<Integer> seqs(List<Message> messages) throws JMSException {
        List<Integer> seqs = new ArrayList<>();
        for (Message m : messages) {
            seqs.add(m.getIntProperty("seq"));
        }
        return seqs;
    }

    /**
     * Waits for state the flow reports (its statistics), looking every millisecond; fails after {@link #WAIT_MILLIS}.
     */
    private static void await(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MILLIS);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, what + ": not within " + WAIT_MILLIS + " ms");
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
    }
}
