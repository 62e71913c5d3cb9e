package org.wharfmq.server.flow;

import org.wharfmq.flow.FlowDefinition;
import org.wharfmq.flow.TransactionMode;
import org.wharfmq.flow.node.DatabaseNode;
import org.wharfmq.flow.node.InputNode;
import org.wharfmq.flow.node.OutputNode;
import org.wharfmq.flow.runtime.FlowConfiguration;
import org.wharfmq.flow.runtime.RunningFlow;
import org.junit.jupiter.api.Test;
import org.wharfmq.server.TestServer;

import javax.jms.Message;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Database nodes' contract with the data source XA ({@code xa: true}) on an embedded H2: the flows using it are
 * coordinated, each transactional invocation one XA transaction of the flow host's transaction manager, and do all
 * that the contract asks.
 */
class DatabaseFlowXaH2Test extends DatabaseFlowContract {

    /** How long the server holds a message sent while the reader idles: ten of the old reader's 100 ms polls. */
    private static final long IDLE_MILLIS = 1000;

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

    /**
     * An idle coordinated reader of a Wharf queue begins no XA transaction: it waits for a message without one and
     * begins one only once its consumer holds a message. The second order is sent with a delivery delay, so the server
     * holds it while the reader idles (the reader that began a transaction before each 100 ms poll began and rolled
     * back about ten empty ones meanwhile), and the reader processes it as it comes (its wait ends on the message's
     * arrival, not after its {@link FlowConfiguration#IDLE_WAIT_MILLIS}, longer than the receive's timeout): one
     * transaction per message, no more. A marker held longer still shows the reader idle when the flow is undeployed,
     * which ends its wait at once (not after the wait's 60 s), beginning no transaction either.
     */
    @Test
    void anIdleReaderBeginsNoTransactionWakesForTheNextMessageAndStopsAtOnce() throws Exception {
        flowHost.deploy(new OrderFlow(), 1);
        RunningFlow flow = flowHost.flow("orders").running();
        send(1, "idle", "first", false);
        assertEquals(1, receive("ORDERS.DONE", 1).get(0).getIntProperty("id"));

        sendLater("ORDERS", 2, "idle", "after the idle time", IDLE_MILLIS);
        assertEquals(2, receive("ORDERS.DONE", 1).get(0).getIntProperty("id"));
        assertEquals(2, flow.statistics().xaTransactions(), "transactions begun besides one per message");

        sendLater("IDLE.MARK", 3, "marker", "the reader idles meanwhile", IDLE_MILLIS);
        assertEquals(3, receive("IDLE.MARK", 1).get(0).getIntProperty("id"));
        long stopping = System.nanoTime();
        assertTrue(flowHost.undeploy("orders"), "the flow did not drain");
        long stopMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stopping);
        assertTrue(stopMillis < FlowConfiguration.IDLE_WAIT_MILLIS / 2, "undeploying took " + stopMillis
                + " ms: it waited for the idle reader's wait to end by itself");
        assertEquals(2, flow.statistics().xaTransactions(), "transactions begun besides one per message");
        assertEquals(2, flow.statistics().invocations());
        assertEquals(List.of("1 idle first", "2 idle after the idle time"), rows());
        assertEquals(0, testServer.server().queueManager().depth("ORDERS"));
    }

    /**
     * Two idle readers wait for the same queue: each message is handed to one reader's consumer alone, so the reader
     * woken for it reads it, and no reader begins a transaction for a message the other took. Each order is processed
     * once, in one transaction.
     */
    @Test
    void readersWaitingForOneQueueBeginOneTransactionPerMessage() throws Exception {
        flowHost.deploy(new OrderFlow(), 2);
        RunningFlow flow = flowHost.flow("orders").running();
        int orders = 20;
        for (int id = 1; id <= orders; id++) {
            send(id, "shared", "order " + id, false);
        }
        List<Integer> done = new ArrayList<>();
        for (Message message : receive("ORDERS.DONE", orders)) {
            done.add(message.getIntProperty("id"));
        }
        assertTrue(flowHost.undeploy("orders"), "the flow did not drain");
        done.sort(null);
        assertEquals(IntStream.rangeClosed(1, orders).boxed().toList(), done, "an order lost or processed twice");
        assertEquals(orders, rows().size());
        assertEquals(orders, flow.statistics().xaTransactions(), "transactions begun besides one per message");
        assertEquals(0, testServer.server().queueManager().depth("ORDERS.DONE"), "an order processed twice");
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
