package org.wharfmq.server.flow;

import org.junit.jupiter.api.Test;
import org.wharfmq.flow.FlowDefinition;
import org.wharfmq.flow.TransactionMode;
import org.wharfmq.flow.node.DatabaseNode;
import org.wharfmq.flow.node.InputNode;
import org.wharfmq.flow.node.OutputNode;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;

import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Session;
import javax.jms.TextMessage;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A flow's reader defers the wakes of event loops that its puts owe (a reply's DELIVER to a requester's connection) and
 * issues them together ({@code session.DeferredWakes}); an invocation that blocks where the reader cannot issue them
 * first (a database call waiting for a row lock) must not hold what the invocations before it put: the queue manager's
 * bound thread issues them ({@code session.WakeBound}). Only the readers of flows with a node that may block (a
 * database, HTTP, file or JMS node) defer: a flow whose invocation blocks in a JavaCompute node holds nothing.
 */
class FlowDeferredWakesTest {

    private static final String DATA_SOURCE = "counters";

    /**
     * Two messages wait on the input before the flow starts, so its reader takes the second without waiting (which
     * would issue what it owes): the first's database update runs, its output is put, and the second's update waits
     * for the row lock the test holds. The first's output must reach the test's consumer (over TCP, heartbeats off:
     * nothing else wakes its connection's loop) while the lock is held. Without the bound it came only once the lock
     * was let go and the second invocation ended.
     */
    @Test
    void anOutputIsNotHeldByTheNextInvocationBlockedInTheDatabase() throws Exception {
        String url = "jdbc:h2:mem:wharf-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=600000";
        try (java.sql.Connection db = DriverManager.getConnection(url, "sa", "");
             Statement sql = db.createStatement()) {
            sql.execute("CREATE TABLE counters (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)");
            sql.execute("INSERT INTO counters (id, n) VALUES (1, 0), (2, 0)");
        }
        FlowHost[] flowHost = new FlowHost[1];
        try (TestServer test = TestServer.start(b -> b.heartbeatMillis(0), config -> {
            flowHost[0] = new FlowHost(FlowHostSettings.defaults()
                    .withDataSources(List.of(new DataSourceConfig(DATA_SOURCE, url, "sa", ""))));
            return WharfServer.builder(config).plugins(flowHost[0]).start();
        }); Connection connection = new WharfConnectionFactory(test.server().tcpUrl() + "?heartbeat=0")
                .createConnection(); java.sql.Connection lockHolder = DriverManager.getConnection(url, "sa", "")) {
            connection.start();
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageProducer producer = session.createProducer(session.createQueue("WAKES.IN"));
            for (int id = 1; id <= 2; id++) {
                TextMessage message = session.createTextMessage("counter " + id);
                message.setIntProperty("id", id);
                producer.send(message, DeliveryMode.NON_PERSISTENT, 4, 0);
            }
            // the server has them when a request made after them is answered: a barrier, not a wait
            connection.createSession(true, Session.SESSION_TRANSACTED).close();
            assertEquals(2, test.server().queueManager().queue("WAKES.IN").depth());
            MessageConsumer out = session.createConsumer(session.createQueue("WAKES.OUT"));

            lockHolder.setAutoCommit(false);
            try (Statement lock = lockHolder.createStatement()) {
                assertEquals(1, lock.executeUpdate("UPDATE counters SET n = n + 100 WHERE id = 2"),
                        "row 2 locked by the test until it commits");
            }
            flowHost[0].deploy(() -> FlowDefinition.builder("WAKES")
                    .node("in", InputNode.queue("WAKES.IN").transactionMode(TransactionMode.NO))
                    .node("count", new DatabaseNode(DATA_SOURCE, "UPDATE counters SET n = n + 1 WHERE id = ?",
                            "UserProperties/id"))
                    .node("out", OutputNode.queue("WAKES.OUT"))
                    .wire("in", "out", "count")
                    .wire("count", "out", "out")
                    .build(), 1);

            List<Integer> received = new ArrayList<>();
            Message first = out.receive(30_000);
            assertNotNull(first, "the first invocation's output while the second waits for the row lock the test"
                    + " holds");
            received.add(first.getIntProperty("id"));
            assertEquals(List.of(1), received, "the second cannot be out: its update waits for the test's lock");

            lockHolder.commit(); // the second invocation's update goes on
            Message second = out.receive(30_000);
            assertNotNull(second, "the second invocation's output once the lock is let go");
            received.add(second.getIntProperty("id"));
            assertEquals(List.of(1, 2), received);
            flowHost[0].undeploy("WAKES");
            try (Statement sql = lockHolder.createStatement();
                 ResultSet rows = sql.executeQuery("SELECT n FROM counters ORDER BY id")) {
                List<Integer> counts = new ArrayList<>();
                while (rows.next()) {
                    counts.add(rows.getInt(1));
                }
                assertEquals(List.of(1, 101), counts, "each message's update, and the test's");
            }
        }
    }

    /**
     * A flow with no node that may block (input, JavaCompute, output) does not defer its reader's wakes, so a
     * JavaCompute node that blocks holds nothing the invocations before it put. Two messages wait on the input before
     * the flow starts; the second's JavaCompute waits for the test's latch; the first's output must reach the test's
     * consumer (over TCP, heartbeats off) meanwhile. A reader that deferred its wakes in every flow, with the bound
     * thread only for flows that may block, failed here (the first output null after 30 s).
     */
    @Test
    void anOutputIsNotHeldByTheNextInvocationBlockedInAJavaComputeNode() throws Exception {
        HoldOnMessage gate = new HoldOnMessage(2);
        FlowHost[] flowHost = new FlowHost[1];
        try (TestServer test = TestServer.start(b -> b.heartbeatMillis(0), config -> {
            flowHost[0] = new FlowHost(FlowHostSettings.defaults());
            return WharfServer.builder(config).plugins(flowHost[0]).start();
        }); Connection connection = new WharfConnectionFactory(test.server().tcpUrl() + "?heartbeat=0")
                .createConnection()) {
            connection.start();
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageProducer producer = session.createProducer(session.createQueue("GATED.IN"));
            for (int id = 1; id <= 2; id++) {
                TextMessage message = session.createTextMessage("message " + id);
                message.setIntProperty("seq", id);
                producer.send(message, DeliveryMode.NON_PERSISTENT, 4, 0);
            }
            connection.createSession(true, Session.SESSION_TRANSACTED).close(); // a barrier: the server has them
            assertEquals(2, test.server().queueManager().queue("GATED.IN").depth());
            MessageConsumer out = session.createConsumer(session.createQueue("GATED.OUT"));

            flowHost[0].deploy(() -> FlowDefinition.builder("GATED")
                    .node("in", InputNode.queue("GATED.IN").transactionMode(TransactionMode.NO))
                    .node("gate", gate)
                    .node("out", OutputNode.queue("GATED.OUT"))
                    .wire("in", "out", "gate")
                    .wire("gate", "out", "out")
                    .build(), 1);
            try {
                assertTrue(gate.arrived.await(30, TimeUnit.SECONDS), "the second invocation in the JavaCompute node");
                Message first = out.receive(30_000);
                assertNotNull(first, "the first invocation's output while the second waits in its JavaCompute node");
                assertEquals(1, first.getIntProperty("seq"));
            } finally {
                gate.release.countDown();
            }
            Message second = out.receive(30_000);
            assertNotNull(second, "the second invocation's output once the node is let go");
            assertEquals(2, second.getIntProperty("seq"));
            flowHost[0].undeploy("GATED");
        }
    }
}
