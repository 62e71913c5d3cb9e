package org.wharfmq.server.flow;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.server.it.Receive;
import org.wharfmq.server.store.ServerProcess;

import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.Session;
import javax.jms.TextMessage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A server killed (SIGKILL) in the middle of a transactional invocation that has inserted a row: after the restart
 * nothing is half done. The database rolled the row back when the server's connection died, the message comes again
 * from the journal, and its second delivery inserts the row once. And a coordinated (XA) flow's server killed between
 * the prepare and the commit: the transaction manager's recovery at the restart commits what its log decided. And the
 * database killed there instead: the running server's periodic recovery commits its branch once it is back. The
 * server runs as {@code wharf server --config} with the data source and the flow jar in its wharf.yaml, against a
 * real PostgreSQL.
 */
@Tag("slow")
class DatabaseCrashTest {

    private static TestPostgres postgres;

    @TempDir
    Path dir;

    @BeforeAll
    static void startPostgres() throws Exception {
        postgres = TestPostgres.start();
        try (java.sql.Connection db = postgres.connect(); Statement sql = db.createStatement()) {
            sql.execute("CREATE TABLE orders (id INTEGER PRIMARY KEY, customer VARCHAR(200) NOT NULL, note VARCHAR(2000))");
        }
    }

    @BeforeEach
    void emptyTable() throws Exception {
        try (java.sql.Connection db = postgres.connect(); Statement sql = db.createStatement()) {
            sql.execute("DELETE FROM orders");
        }
    }

    @AfterAll
    static void stopPostgres() {
        if (postgres != null) {
            postgres.close();
        }
    }

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void aKillInTheMiddleOfAnInvocationLeavesNothingHalfDone() throws Exception {
        Path jar = TestJars.build(dir, "crash-flow.jar", Map.of(
                "flows.CrashFlow", """
                        package flows;
                        import org.wharfmq.flow.*;
                        import org.wharfmq.flow.node.*;
                        public final class CrashFlow implements FlowFactory {
                            public FlowDefinition create() {
                                return FlowDefinition.builder("crash")
                                        .node("in", InputNode.queue("ORDERS").transactionMode(TransactionMode.YES))
                                        .node("insert", new DatabaseNode("orders",
                                                "INSERT INTO orders (id, customer, note) VALUES (?, ?, ?)",
                                                "UserProperties/id", "UserProperties/customer", "Body"))
                                        .node("hold", new Hold())
                                        .node("done", OutputNode.queue("ORDERS.DONE"))
                                        .wire("in", "out", "insert")
                                        .wire("insert", "out", "hold")
                                        .wire("hold", "out", "done")
                                        .build();
                            }
                        }
                        """,
                "flows.Hold", """
                        package flows;
                        import org.wharfmq.flow.*;
                        /** Holds the first delivery, its row inserted and not committed, until the server is killed. */
                        public final class Hold extends JavaComputeNode {
                            public void evaluate(MessageAssembly assembly) throws Exception {
                                Object count = assembly.message().headers().get(FlowMessage.JMSX_DELIVERY_COUNT);
                                if (((Number) count).intValue() == 1) {
                                    Thread.sleep(Long.MAX_VALUE);
                                }
                                MessageAssembly out = assembly.copy();
                                out.message().setUserProperty("attempt", count);
                                propagate("out", out);
                            }
                        }
                        """));
        Path config = Files.writeString(dir.resolve("wharf.yaml"), """
                dataSources:
                  - name: orders
                    url: %s
                    user: %s
                flows:
                  - jar: %s
                    class: flows.CrashFlow
                """.formatted(postgres.url(), postgres.user(), jar));
        Path data = dir.resolve("data");

        ServerProcess server = ServerProcess.start(data, "--config", config.toString());
        try {
            try (Connection connection = new WharfConnectionFactory(server.url()).createConnection()) {
                Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
                TextMessage order = session.createTextMessage("held when the server dies");
                order.setIntProperty("id", 1);
                order.setStringProperty("customer", "alice");
                session.createProducer(session.createQueue("ORDERS")).send(order, DeliveryMode.PERSISTENT, 4, 0);
            }
            awaitAnUncommittedInsert();
        } finally {
            server.kill();
        }
        assertEquals(List.of(), rows(), "the killed invocation's row is not committed");

        server = ServerProcess.start(data, "--config", config.toString());
        try (Connection connection = new WharfConnectionFactory(server.url()).createConnection()) {
            connection.start();
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageConsumer done = session.createConsumer(session.createQueue("ORDERS.DONE"));
            Message redelivered = done.receive(30_000);
            assertNotNull(redelivered, "the message did not come again after the restart:\n" + server.outputSoFar());
            assertEquals(2, redelivered.getIntProperty("attempt"), "the delivery after the crashed one");
        } finally {
            server.close();
        }
        assertEquals(List.of("1 alice held when the server dies"), rows(), "the row, once");
    }

    /**
     * A coordinated flow (its data source {@code xa: true}) whose server is killed once both branches are prepared,
     * the transaction manager's commit decision logged and the database's branch committed, while the queue
     * manager's waits for its commit (the test's crash point holds it there): the row is committed, the output
     * message in doubt. The restarted server's recovery commits the queue manager's branch from the log: the output
     * appears once, the input was consumed once, and nothing is left prepared.
     */
    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void aCoordinatedFlowKilledBetweenPrepareAndCommitIsCompletedByRecovery() throws Exception {
        Path config = coordinatedFlow();
        Path data = dir.resolve("data");
        killAt("beforeCommit", data, config, 2, "bob");
        assertEquals(List.of("2 bob coordinated"), rows(), "the database's branch committed before the kill");

        assertOnceAfterRestart(data, config, 2, 1);
        assertEquals(List.of("2 bob coordinated"), rows(), "the row, once");
    }

    /**
     * A coordinated flow whose server is killed after the database's prepare, before the queue manager's and before
     * any decision is logged: the row is prepared (invisible, its lock held) and the queue manager's branch was never
     * prepared. The restarted server's recovery rolls the database's branch back (no decision in the log), the input
     * message comes again, and its second delivery commits the row and the output once.
     */
    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void aCoordinatedFlowKilledBeforeItsDecisionIsRolledBackByRecoveryAndRunAgain() throws Exception {
        Path config = coordinatedFlow();
        Path data = dir.resolve("data");
        killAt("beforePrepare", data, config, 3, "carol");
        assertEquals(List.of(), rows(), "prepared, not committed");
        assertEquals(1, preparedInPostgres(), "the database's branch prepared before the kill");

        assertOnceAfterRestart(data, config, 3, 0);
        assertEquals(List.of("3 carol coordinated"), rows(), "the row, once");
    }

    /**
     * A coordinated flow whose database is killed (SIGKILL, its postmaster and backends) once its branch is prepared,
     * before the transaction manager's decision: the decision is commit all the same (every branch prepared), the
     * queue manager's branch commits (the output is sent, the input consumed) and the database's commit fails, so the
     * transaction stays in the transaction manager's log. While the database is down the recovery scans say they
     * cannot reach it, naming the data source; restarted on the same data directory, the database has the branch
     * prepared again, and the next scan commits it: the row appears once, beside the output sent once. Then the pool
     * reconnects: the next order goes through, and nothing is backed out.
     */
    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void aDatabaseKilledBetweenPrepareAndCommitHasItsBranchCommittedByRecoveryOnceItIsBack() throws Exception {
        Path config = coordinatedFlow("""
                flowHost:
                  recoveryPeriodSeconds: 1
                """);
        Path release = dir.resolve("release");
        ServerProcess server = ServerProcess.startWithJvmOptions(dir.resolve("data"),
                List.of("-D" + QueueManagerBranch.PROPERTY + "=beforePrepare",
                        "-D" + QueueManagerBranch.RELEASE + "=" + release),
                "--config", config.toString());
        try (Connection connection = new WharfConnectionFactory(server.url()).createConnection()) {
            connection.start();
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            sendOrder(session, 4, "dave");
            awaitOutput(server, QueueManagerBranch.HOLDING + " beforePrepare");
            assertEquals(1, preparedInPostgres(), "the database's branch prepared");

            postgres.kill();
            Files.createFile(release);
            MessageConsumer done = session.createConsumer(session.createQueue("ORDERS.DONE"));
            Message output = done.receive(30_000);
            assertNotNull(output, "the queue manager's branch did not commit:\n" + server.outputSoFar());
            assertEquals(4, output.getIntProperty("id"));
            awaitOutput(server, "XA data source 'orders': a connection that failed (its commit");
            awaitOutput(server, "Recovery cannot reach XA data source 'orders'");

            postgres.restart();
            awaitOutput(server, "Recovery committed a branch left in doubt in data source 'orders'");
            assertEquals(List.of("4 dave coordinated"), rows(), "the row, committed by recovery");
            assertEquals(0, preparedInPostgres(), "nothing left prepared in the database");

            sendOrder(session, 5, "erin");
            Message next = done.receive(30_000);
            assertNotNull(next, "the pool did not reconnect:\n" + server.outputSoFar());
            assertEquals(5, next.getIntProperty("id"));
            Receive.nothingMore(done);
            Receive.nothingMore(session.createConsumer(session.createQueue("ORDERS")));
            Receive.nothingMore(session.createConsumer(session.createQueue("ORDERS.BACKOUT")));
        } finally {
            server.close();
        }
        assertEquals(List.of("4 dave coordinated", "5 erin coordinated"), rows(), "each row once");
    }

    private static void sendOrder(Session session, int id, String customer) throws Exception {
        TextMessage order = session.createTextMessage("coordinated");
        order.setIntProperty("id", id);
        order.setStringProperty("customer", customer);
        session.createProducer(session.createQueue("ORDERS")).send(order, DeliveryMode.PERSISTENT, 4, 0);
    }

    /** The configuration of a server running a coordinated flow: ORDERS, its row inserted, to ORDERS.DONE. */
    private Path coordinatedFlow() throws Exception {
        return coordinatedFlow("");
    }

    /** As {@link #coordinatedFlow()}, with {@code more} (YAML) at the end of its configuration. */
    private Path coordinatedFlow(String more) throws Exception {
        Path jar = TestJars.build(dir, "xa-flow.jar", Map.of(
                "flows.XaFlow", """
                        package flows;
                        import org.wharfmq.flow.*;
                        import org.wharfmq.flow.node.*;
                        public final class XaFlow implements FlowFactory {
                            public FlowDefinition create() {
                                return FlowDefinition.builder("coordinated")
                                        .node("in", InputNode.queue("ORDERS").transactionMode(TransactionMode.YES)
                                                .backoutQueue("ORDERS.BACKOUT"))
                                        .node("insert", new DatabaseNode("orders",
                                                "INSERT INTO orders (id, customer, note) VALUES (?, ?, ?)",
                                                "UserProperties/id", "UserProperties/customer", "Body"))
                                        .node("done", OutputNode.queue("ORDERS.DONE"))
                                        .wire("in", "out", "insert")
                                        .wire("insert", "out", "done")
                                        .build();
                            }
                        }
                        """));
        return Files.writeString(dir.resolve("wharf.yaml"), """
                dataSources:
                  - name: orders
                    url: %s
                    user: %s
                    xa: true
                flows:
                  - jar: %s
                    class: flows.XaFlow
                """.formatted(postgres.url(), postgres.user(), jar) + more);
    }

    /** Starts the server with the crash point {@code point}, sends an order, and kills the server held there. */
    private static void killAt(String point, Path data, Path config, int id, String customer) throws Exception {
        ServerProcess server = ServerProcess.startWithJvmOptions(data,
                List.of("-D" + QueueManagerBranch.PROPERTY + "=" + point), "--config", config.toString());
        try {
            try (Connection connection = new WharfConnectionFactory(server.url()).createConnection()) {
                sendOrder(connection.createSession(false, Session.AUTO_ACKNOWLEDGE), id, customer);
            }
            awaitOutput(server, QueueManagerBranch.HOLDING + " " + point);
        } finally {
            server.kill();
        }
    }

    /**
     * Restarts the server (no crash point) and checks the order's output comes once, nothing is left on the input or
     * the backout queue, and nothing is left prepared in the database.
     *
     * @param inDoubt the queue manager's prepared branches the restart finds
     */
    private static void assertOnceAfterRestart(Path data, Path config, int id, int inDoubt) throws Exception {
        ServerProcess server = ServerProcess.start(data, "--config", config.toString());
        try (Connection connection = new WharfConnectionFactory(server.url()).createConnection()) {
            assertTrue(server.outputSoFar().contains(inDoubt + " prepared XA transactions in doubt"),
                    server.outputSoFar());
            connection.start();
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageConsumer done = session.createConsumer(session.createQueue("ORDERS.DONE"));
            Message output = done.receive(30_000);
            assertNotNull(output, "no output after the restart:\n" + server.outputSoFar());
            assertEquals(id, output.getIntProperty("id"));
            Receive.nothingMore(done);
            Receive.nothingMore(session.createConsumer(session.createQueue("ORDERS")));
            Receive.nothingMore(session.createConsumer(session.createQueue("ORDERS.BACKOUT")));
        } finally {
            server.close();
        }
        assertEquals(0, preparedInPostgres(), "a branch left prepared in the database");
    }

    private static void awaitOutput(ServerProcess server, String line) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!server.outputSoFar().contains(line)) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the server never printed '" + line + "':\n" + server.outputSoFar());
            }
            Thread.onSpinWait();
        }
    }

    private static int preparedInPostgres() throws Exception {
        try (java.sql.Connection db = postgres.connect(); Statement sql = db.createStatement();
             ResultSet result = sql.executeQuery("SELECT count(*) FROM pg_prepared_xacts")) {
            result.next();
            return result.getInt(1);
        }
    }

    /**
     * Waits until the flow's connection has an open transaction with the insert in it (PostgreSQL reports the
     * session "idle in transaction" once the statement has run and the node holding the invocation waits).
     */
    private static void awaitAnUncommittedInsert() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        try (java.sql.Connection db = postgres.connect(); Statement sql = db.createStatement()) {
            while (System.nanoTime() < deadline) {
                try (ResultSet result = sql.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE state = "
                        + "'idle in transaction' AND query LIKE 'INSERT INTO orders%'")) {
                    result.next();
                    if (result.getInt(1) == 1) {
                        return;
                    }
                }
                Thread.onSpinWait();
            }
        }
        throw new AssertionError("the flow never held an uncommitted insert");
    }

    private static List<String> rows() throws Exception {
        List<String> rows = new ArrayList<>();
        try (java.sql.Connection db = postgres.connect(); Statement sql = db.createStatement();
             ResultSet result = sql.executeQuery("SELECT id, customer, note FROM orders ORDER BY id")) {
            while (result.next()) {
                rows.add(result.getInt(1) + " " + result.getString(2) + " " + result.getString(3));
            }
        }
        return rows;
    }
}
