package org.wharfmq.server.flow;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.flow.FlowDefinition;
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
import org.wharfmq.server.it.LogMessages;

import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.Session;
import javax.jms.TextMessage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * JMSInput and JMSOutput nodes on an {@code xa: true} provider, a real Apache ActiveMQ Artemis reached through its
 * JNDI, in a server's flow host with an XA data source (H2): the get from Artemis, the send to Artemis, the flow's
 * puts and gets on Wharf and its rows commit in one XA transaction (Artemis holds its branch prepared while the queue
 * manager's prepare is held), and a failing later node rolls them all back together. A provider whose connection
 * factory is not an XA one is refused at start, naming it and the fix. An idle reader begins one empty transaction
 * per receiveTimeout, and undeploying ends its wait at once. Crashes: {@link JmsXaCrashTest}.
 */
@Tag("slow") // an Artemis broker and a server with a transaction manager: 10-20 s on 2 shared cores
class JmsXaTest {

    /** How long what the test waits for may take: it bounds a hang only (a loaded machine is slow). */
    private static final long WAIT_MILLIS = 30_000;

    private static TestArtemis artemis;

    @TempDir
    Path dir;
    private TestDatabase database;
    private FlowHost flowHost;
    private TestServer server;
    private Connection wharf;
    private Session wharfSession;
    private Connection artemisConnection;
    private Session artemisSession;

    @BeforeAll
    static void startArtemis() throws Exception {
        artemis = TestArtemis.onFreePort().start();
    }

    @AfterAll
    static void stopArtemis() throws Exception {
        artemis.close();
    }

    @AfterEach
    void stop() throws Exception {
        if (!Files.exists(dir.resolve("release"))) {
            Files.createFile(dir.resolve("release")); // a test that failed before releasing its held transactions
        }
        for (AutoCloseable open : new AutoCloseable[] {artemisConnection, wharf, server, database}) {
            if (open != null) {
                open.close();
            }
        }
    }

    /** Starts a server whose flow host has the XA provider {@code artemis} (binding {@code queues}) and an XA H2. */
    private void startServer(String... queues) throws Exception {
        startServer(artemis, 120, queues);
    }

    /** As {@link #startServer(String...)}, on {@code broker}, recovery scanning every {@code recoverySeconds}. */
    private void startServer(TestArtemis broker, int recoverySeconds, String... queues) throws Exception {
        database = TestDatabase.h2().xa();
        try (java.sql.Connection db = database.connect(); Statement sql = db.createStatement()) {
            sql.execute("CREATE TABLE moves (seq INTEGER, way VARCHAR(10))");
        }
        flowHost = new FlowHost(FlowHostSettings.defaults()
                .withDataSources(List.of(database.dataSource("moves")))
                .withJmsProviders(List.of(broker.provider("artemis", queues).withXa(true)))
                .with(FlowHostConfiguration.RECOVERY_PERIOD_SECONDS, recoverySeconds));
        server = TestServer.start(c -> c, config -> WharfServer.start(config, flowHost));
        wharf = new WharfConnectionFactory(server.server().vmUrl()).createConnection();
        wharf.start();
        wharfSession = wharf.createSession(false, Session.AUTO_ACKNOWLEDGE);
        artemisConnection = broker.connectionFactory().createConnection();
        artemisConnection.start();
        artemisSession = artemisConnection.createSession(false, Session.AUTO_ACKNOWLEDGE);
    }

    /**
     * A flow moving Artemis's {@code IN} to Wharf's {@code MID}, and Wharf's {@code BACK} to Artemis's {@code OUT},
     * each message with a row ({@code in} or {@code out}) and, when {@code failing}, a node between the row and the
     * put that fails on the message's first delivery (after passing it on).
     */
    private RunningFlow deployBridge(String name, String prefix, boolean failing) throws Exception {
        flowHost.deploy(() -> {
            FlowDefinition.Builder flow = FlowDefinition.builder(name)
                    .node("fromArtemis", JmsInputNode.from("artemis", "jms/" + prefix + "IN"))
                    .node("rowIn", new DatabaseNode("moves", "INSERT INTO moves (seq, way) VALUES (?, 'in')",
                            "UserProperties/seq"))
                    .node("toWharf", OutputNode.queue(prefix + "MID"))
                    .node("fromWharf", InputNode.queue(prefix + "BACK"))
                    .node("rowOut", new DatabaseNode("moves", "INSERT INTO moves (seq, way) VALUES (?, 'out')",
                            "UserProperties/seq"))
                    .node("toArtemis", JmsOutputNode.to("artemis", "jms/" + prefix + "OUT"))
                    .wire("fromArtemis", "out", "rowIn")
                    .wire("fromWharf", "out", "rowOut");
            if (!failing) {
                flow.wire("rowIn", "out", "toWharf").wire("rowOut", "out", "toArtemis");
            } else {
                flow.node("failIn", new FailOnMessage(-1, true)).node("failOut", new FailOnMessage(-1, true))
                        .wire("rowIn", "out", "failIn").wire("failIn", "out", "toWharf")
                        .wire("rowOut", "out", "failOut").wire("failOut", "out", "toArtemis");
            }
            return flow.build();
        }, 1);
        RunningFlow flow = flowHost.flow(name).running();
        assertTrue(flow.coordinated(), "a flow on an xa: true provider is coordinated");
        return flow;
    }

    /**
     * The commit path, with the queue manager's prepare held (the server's crash point, released by a file): by then
     * Artemis has prepared both its branches, the get of the message from Artemis and the send of the message to it,
     * so neither the send is visible nor the get done; released, every branch commits: each message is on the other
     * side once, with its row once, and nothing is left in doubt.
     */
    @Test
    void aMessageCrossesEachWayOnceInOneXaTransactionWithItsRow() throws Exception {
        Path release = dir.resolve("release");
        System.setProperty(QueueManagerBranch.PROPERTY, "beforePrepare");
        System.setProperty(QueueManagerBranch.RELEASE, release.toString());
        try {
            startServer("C.IN", "C.OUT"); // the flow host reads the crash point as it starts
        } finally {
            System.clearProperty(QueueManagerBranch.PROPERTY);
            System.clearProperty(QueueManagerBranch.RELEASE);
        }
        RunningFlow flow = deployBridge("commit", "C.", false);
        try (LogMessages held = LogMessages.of(QueueManagerBranch.class.getName())) {
            send(artemisSession, "C.IN", 1);
            send(wharfSession, "C.BACK", 2);
            for (int i = 0; i < 2; i++) {
                String line = held.poll(WAIT_MILLIS);
                assertNotNull(line, "the transactions did not reach the queue manager's prepare");
                assertTrue(line.startsWith(QueueManagerBranch.HOLDING + " beforePrepare"), line);
            }
            assertEquals(2, artemis.prepared(), "Artemis did not prepare the get and the send in the transactions");
            assertEquals(0, artemis.messageCount("C.OUT"), "the send to Artemis is visible before the commit");
            Files.createFile(release);
        }
        assertEquals(List.of(1), seqs(wharfSession.createConsumer(wharfSession.createQueue("C.MID")), 1));
        assertEquals(List.of(2), seqs(artemisSession.createConsumer(artemisSession.createQueue("C.OUT")), 1));
        assertTrue(flowHost.undeploy("commit")); // drained
        assertEquals(0, artemis.prepared(), "a branch left in doubt in Artemis");
        assertEquals(0, artemis.messageCount("C.IN"), "the message was not taken off Artemis");
        assertEquals(0, artemis.messageCount("C.OUT"), "the message reached Artemis twice");
        assertEquals(0, server.server().queueManager().depth("C.MID"), "the message reached Wharf twice");
        assertEquals(0, server.server().queueManager().depth("C.BACK"), "the message was not taken off Wharf");
        assertEquals(List.of("1 in", "2 out"), rows());
        assertEquals(0, flow.statistics().failures());
    }

    /**
     * The rollback path: a node after the row and before the put fails on each message's first delivery. The get from
     * Artemis rolls back with the row (Artemis delivers the message again), and so do the send to Artemis and Wharf's
     * get with the other row; the second deliveries commit: each message crosses once, from its second delivery, with
     * one row.
     */
    @Test
    void aFailingLaterNodeRollsBackTheGetFromArtemisTheSendToItAndTheRowsTogether() throws Exception {
        startServer("R.IN", "R.OUT");
        RunningFlow flow = deployBridge("rollback", "R.", true);
        send(artemisSession, "R.IN", 1);
        send(wharfSession, "R.BACK", 2);
        try (MessageConsumer mid = wharfSession.createConsumer(wharfSession.createQueue("R.MID"))) {
            // closed at the end: a round trip, so the server has the message's acknowledgement (which rides with the
            // connection's next frame) before the queue's depth is asked below
            Message in = mid.receive(WAIT_MILLIS);
            assertNotNull(in, "nothing reached Wharf");
            assertEquals(2, in.getIntProperty("attempt"), "the put of the rolled-back delivery reached Wharf");
        }
        try (MessageConsumer out = artemisSession.createConsumer(artemisSession.createQueue("R.OUT"))) {
            Message message = out.receive(WAIT_MILLIS);
            assertNotNull(message, "nothing reached Artemis");
            assertEquals(2, message.getIntProperty("attempt"), "the send of the rolled-back delivery reached Artemis");
        }
        assertTrue(flowHost.undeploy("rollback")); // drained: the second deliveries' commits have returned
        assertEquals(2, flow.statistics().failures());
        assertEquals(0, artemis.messageCount("R.IN"), "the message was left on Artemis");
        assertEquals(0, artemis.messageCount("R.OUT"), "the send of the rolled-back delivery reached Artemis");
        assertEquals(0, artemis.prepared());
        assertEquals(0, server.server().queueManager().depth("R.MID"), "the put of the rolled-back delivery stayed");
        assertEquals(0, server.server().queueManager().depth("R.BACK"));
        assertEquals(List.of("1 in", "2 out"), rows(), "the rolled-back deliveries' rows stayed");
    }

    /**
     * An idle reader waits for a message in one transaction up to its node's receiveTimeout (2 s here): Artemis, asked
     * for the XA starts it received, sees two consecutive idle transactions begin at least a receiveTimeout apart
     * (one per 100 ms poll before); a message sent after the idle time still crosses once. The bound asserted is half
     * the timeout, against the delay of one start's packet on a loaded machine; a poll of 100 ms gives about 0.2 s.
     */
    @Test
    void anIdleXaReaderBeginsOneEmptyTransactionPerReceiveTimeoutAndTheNextMessageStillCrossesOnce()
            throws Exception {
        startServer("I.IN");
        Duration timeout = Duration.ofSeconds(2);
        RunningFlow flow = deployMove("idle", JmsInputNode.from("artemis", "jms/I.IN").receiveTimeout(timeout),
                "I.OUT");
        send(artemisSession, "I.IN", 1);
        assertEquals(List.of(1), seqs(wharfSession.createConsumer(wharfSession.createQueue("I.OUT")), 1));
        long idleSince = System.nanoTime(); // idle from here: the reader's next transactions find nothing
        long starts = artemis.xaStarts();
        assertTrue(artemis.awaitXaStarts(starts + 2, 3 * timeout.toMillis() + WAIT_MILLIS),
                "the idle reader began no transaction on Artemis");
        long idleMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - idleSince);
        assertTrue(idleMillis >= timeout.toMillis() / 2, "the idle reader began two transactions on Artemis within "
                + idleMillis + " ms: more than one per receiveTimeout (" + timeout.toMillis() + " ms)");
        send(artemisSession, "I.IN", 2);
        assertEquals(List.of(2), seqs(wharfSession.createConsumer(wharfSession.createQueue("I.OUT")), 1));
        assertTrue(flowHost.undeploy("idle"));
        assertEquals(2, flow.statistics().invocations(), "the idle transactions ran invocations");
        assertEquals(0, flow.statistics().failures());
        assertEquals(0, artemis.messageCount("I.IN"), "a message was left on Artemis");
        assertEquals(0, artemis.prepared(), "a branch left in doubt in Artemis");
        assertEquals(0, server.server().queueManager().depth("I.OUT"), "a message reached Wharf twice");
    }

    /**
     * Undeploying a flow whose reader waits, idle in its XA transaction, with the longest receiveTimeout (30 s) does
     * not wait for the timeout: the stop closes the reader's consumer, the empty transaction rolls back and the flow's
     * connection to Artemis closes, so a message sent afterwards stays there. Without the stop's close the undeploy
     * takes up to the whole timeout; the bound asserted is half of it.
     */
    @Test
    void undeployingEndsAnIdleXaReadersWaitAtOnce() throws Exception {
        startServer("S.IN");
        Duration timeout = Duration.ofSeconds(JmsInputNode.MAX_RECEIVE_TIMEOUT_SECONDS);
        long starts = artemis.xaStarts();
        deployMove("stop", JmsInputNode.from("artemis", "jms/S.IN").receiveTimeout(timeout), "S.OUT");
        send(artemisSession, "S.IN", 1);
        assertEquals(List.of(1), seqs(wharfSession.createConsumer(wharfSession.createQueue("S.OUT")), 1));
        // the message's transaction, then the idle one the reader now waits in
        assertTrue(artemis.awaitXaStarts(starts + 2, WAIT_MILLIS), "the reader began no transaction after the message");
        long stopping = System.nanoTime();
        assertTrue(flowHost.undeploy("stop"), "the flow did not drain");
        long stopMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stopping);
        assertTrue(stopMillis < timeout.toMillis() / 2, "undeploying took " + stopMillis
                + " ms: it waited for the idle reader's receiveTimeout (" + timeout.toMillis() + " ms)");
        assertEquals(0, artemis.consumerCount("S.IN"), "the stopped reader's consumer is still on Artemis");
        assertEquals(0, artemis.prepared(), "a branch left in doubt in Artemis");
        send(artemisSession, "S.IN", 2);
        // received here, not counted: the broker's count of a queue may lag a send it has stored
        try (MessageConsumer left = artemisSession.createConsumer(artemisSession.createQueue("S.IN"))) {
            Message message = left.receive(WAIT_MILLIS);
            assertNotNull(message, "the message sent after the undeploy left Artemis");
            assertEquals(2, message.getIntProperty("seq"));
        }
        assertEquals(0, server.server().queueManager().depth("S.OUT"), "a message reached Wharf twice");
    }

    /** Deploys a flow (one instance) moving messages from {@code input} to Wharf's queue {@code to}. */
    private RunningFlow deployMove(String name, JmsInputNode input, String to) throws Exception {
        flowHost.deploy(() -> FlowDefinition.builder(name).node("in", input).node("out", OutputNode.queue(to))
                .wire("in", "out", "out").build(), 1);
        RunningFlow flow = flowHost.flow(name).running();
        assertTrue(flow.coordinated(), "a flow on an xa: true provider is coordinated");
        return flow;
    }

    /**
     * {@code xa: true} on a provider whose connection factory is not an XA one (ActiveMQ Classic's JNDI binds a plain
     * one as {@code ConnectionFactory}, an XA one as {@code XAConnectionFactory}): the server does not start, and says
     * which provider, what its factory is, and the fix.
     */
    @Test
    void xaOnAProviderWhoseConnectionFactoryIsNotXaIsRefusedAtStart() throws Exception {
        Map<String, String> jndi = Map.of(
                "java.naming.factory.initial", "org.apache.activemq.jndi.ActiveMQInitialContextFactory",
                "java.naming.provider.url", "tcp://127.0.0.1:1");
        assertNotNull(new JmsProvider("classic", jndi, "XAConnectionFactory", null, null).xaConnectionFactory());
        JmsProvider classic = new JmsProvider("classic", jndi, null, null, null).withXa(true);
        FlowHost refusing = new FlowHost(FlowHostSettings.defaults().withJmsProviders(List.of(classic)));
        Exception e = assertThrows(Exception.class,
                () -> TestServer.start(c -> c, config -> WharfServer.start(config, refusing)).close());
        String messages = messages(e);
        assertTrue(messages.contains("JMS provider 'classic' at tcp://127.0.0.1:1 has xa: true, but its connection "
                + "factory 'ConnectionFactory' is a org.apache.activemq.ActiveMQConnectionFactory, not a "
                + "javax.jms.XAConnectionFactory, so it cannot take part in the flows' XA transactions. Bind an XA "
                + "connection factory of the provider"), messages);
        assertTrue(messages.contains("or set xa: false"), messages);
    }

    private static String messages(Throwable e) {
        StringBuilder all = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            all.append(t.getMessage()).append('\n');
        }
        return all.toString();
    }

    private static void send(Session session, String queue, int seq) throws JMSException {
        TextMessage message = session.createTextMessage("move " + seq);
        message.setIntProperty("seq", seq);
        session.createProducer(session.createQueue(queue)).send(message, DeliveryMode.PERSISTENT, 4, 0);
    }

    private static List<Integer> seqs(MessageConsumer consumer, int count) throws JMSException {
        List<Integer> seqs = new ArrayList<>();
        try (consumer) {
            for (int i = 0; i < count; i++) {
                Message message = consumer.receive(WAIT_MILLIS);
                assertNotNull(message, "only " + i + " of " + count + " messages came");
                seqs.add(message.getIntProperty("seq"));
            }
        }
        return seqs;
    }

    private List<String> rows() throws Exception {
        List<String> rows = new ArrayList<>();
        try (java.sql.Connection db = database.connect(); Statement sql = db.createStatement();
             ResultSet result = sql.executeQuery("SELECT seq, way FROM moves ORDER BY seq")) {
            while (result.next()) {
                rows.add(result.getInt(1) + " " + result.getString(2));
            }
        }
        return rows;
    }
}
