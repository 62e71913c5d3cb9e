package org.wharfmq.server.flow;

import org.wharfmq.flow.FlowDefinition;
import org.wharfmq.flow.TransactionMode;
import org.wharfmq.flow.node.DatabaseNode;
import org.wharfmq.flow.node.InputNode;
import org.wharfmq.flow.node.OutputNode;
import org.junit.jupiter.api.Test;
import org.wharfmq.server.TestServer;

import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Database nodes' contract with the data source XA ({@code xa: true}) on an embedded H2: the flows using it are
 * coordinated, each transactional invocation one XA transaction of the flow host's transaction manager, and do all
 * that the contract asks.
 */
class DatabaseFlowXaH2Test extends DatabaseFlowContract {

    @Override
    TestDatabase database() {
        return TestDatabase.h2().xa();
    }

    /** Only the XA data sources' flows are coordinated, and they commit the row and the output together. */
    @Test
    void aFlowUsingAnXaDataSourceIsCoordinated() throws Exception {
        flowHost.deploy(new OrderFlow(), 1);
        assertTrue(flowHost.flow("orders").running().coordinated());
        send(5, "carol", "coordinated", false);

        assertEquals(5, receive("ORDERS.DONE", 1).get(0).getIntProperty("id"));
        assertEquals(List.of("5 carol coordinated"), rows());
    }

    /** A coordinated flow's database work all commits in its XA transaction: an XA and a local data source refused. */
    @Test
    void aFlowUsingXaAndLocalDataSourcesIsRefusedAtDeploy() throws Exception {
        TestDatabase local = TestDatabase.h2();
        restart(FlowHostSettings.defaults().withDataSources(List.of(database().dataSource("orders"),
                local.dataSource("ledger"))));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> flowHost.deploy(() ->
                FlowDefinition.builder("mixed")
                        .node("in", InputNode.queue("ORDERS").transactionMode(TransactionMode.YES))
                        .node("order", new DatabaseNode("orders", "INSERT INTO orders (id) VALUES (?)", "UserProperties/id"))
                        .node("ledger", new DatabaseNode("ledger", "INSERT INTO ledger (id) VALUES (?)", "UserProperties/id"))
                        .node("out", OutputNode.queue("ORDERS.DONE"))
                        .wire("in", "out", "order").wire("order", "out", "ledger").wire("ledger", "out", "out")
                        .build(), 1));
        assertTrue(e.getMessage().contains("uses the XA data sources [orders] and the data sources [ledger], which "
                + "are not XA"), e.getMessage());
    }

    /**
     * Two XA data sources in one invocation: each Database node's statement runs on its own data source's database
     * (a pool never takes the connection another pool enlisted in the transaction), and both commit with the message.
     */
    @Test
    void twoXaDataSourcesInOneInvocationEachRunOnTheirOwnDatabase() throws Exception {
        TestDatabase orders = TestDatabase.h2().xa();
        TestDatabase ledger = TestDatabase.h2().xa();
        createTable(orders, "orders");
        createTable(ledger, "ledger");
        restart(FlowHostSettings.defaults().withDataSources(List.of(orders.dataSource("orders"),
                ledger.dataSource("ledger"))));
        flowHost.deploy(() -> FlowDefinition.builder("two")
                .node("in", InputNode.queue("ORDERS").transactionMode(TransactionMode.YES))
                .node("order", new DatabaseNode("orders", "INSERT INTO orders (id) VALUES (?)", "UserProperties/id"))
                .node("ledger", new DatabaseNode("ledger", "INSERT INTO ledger (id) VALUES (?)", "UserProperties/id"))
                .node("out", OutputNode.queue("ORDERS.DONE"))
                .wire("in", "out", "order").wire("order", "out", "ledger").wire("ledger", "out", "out")
                .build(), 1);
        assertTrue(flowHost.flow("two").running().coordinated());
        send(8, "frank", "two databases", false);

        assertEquals(8, receive("ORDERS.DONE", 1).get(0).getIntProperty("id"));
        assertEquals(List.of(8), idsIn(orders, "orders"));
        assertEquals(List.of(8), idsIn(ledger, "ledger"));
    }

    private static void createTable(TestDatabase database, String table) throws Exception {
        try (java.sql.Connection db = database.connect(); Statement sql = db.createStatement()) {
            sql.execute("CREATE TABLE " + table + " (id INTEGER PRIMARY KEY)");
        }
    }

    private static List<Integer> idsIn(TestDatabase database, String table) throws Exception {
        List<Integer> ids = new ArrayList<>();
        try (java.sql.Connection db = database.connect(); Statement sql = db.createStatement();
             ResultSet rows = sql.executeQuery("SELECT id FROM " + table + " ORDER BY id")) {
            while (rows.next()) {
                ids.add(rows.getInt(1));
            }
        }
        return ids;
    }

    /** Narayana's settings are the JVM's: a second coordinated flow host is refused while the first runs. */
    @Test
    void aSecondCoordinatedFlowHostInTheJvmIsRefusedWhileTheFirstRuns() throws Exception {
        TestServer first = testServer;
        FlowHost firstHost = flowHost;
        Exception e = assertThrows(Exception.class, () -> startServer(FlowHostSettings.defaults().withDataSources(
                List.of(TestDatabase.h2().xa().dataSource("orders")))));
        testServer = first; // closed after the test
        flowHost = firstHost;
        Throwable cause = e;
        while (cause != null && !(cause instanceof IllegalStateException)) {
            cause = cause.getCause();
        }
        assertTrue(cause != null && cause.getMessage().contains("this JVM's transaction manager (Narayana, one per "
                + "JVM) runs for the server whose log is"), String.valueOf(e));

        flowHost.deploy(new OrderFlow(), 1); // the first goes on
        send(7, "erin", "after the refusal", false);
        assertEquals(7, receive("ORDERS.DONE", 1).get(0).getIntProperty("id"));
    }
}
