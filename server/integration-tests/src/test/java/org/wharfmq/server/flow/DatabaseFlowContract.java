package org.wharfmq.server.flow;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.wharfmq.flow.Domain;
import org.wharfmq.flow.ExceptionList;
import org.wharfmq.flow.FlowDefinition;
import org.wharfmq.flow.FlowFactory;
import org.wharfmq.flow.JavaComputeNode;
import org.wharfmq.flow.MessageAssembly;
import org.wharfmq.flow.TransactionMode;
import org.wharfmq.flow.node.DatabaseCallNode;
import org.wharfmq.flow.node.DatabaseNode;
import org.wharfmq.flow.node.DatabaseRetrieveNode;
import org.wharfmq.flow.node.DatabaseRouteNode;
import org.wharfmq.flow.node.InputNode;
import org.wharfmq.flow.node.OutputNode;
import org.wharfmq.flow.node.TryCatchNode;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.config.ConfigurationException;

import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Session;
import javax.jms.TextMessage;
import java.sql.JDBCType;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Database nodes in a flow deployed in a real server, against a real database (each subclass gives one): a row
 * inserted per message, retrieved and routed on; a failing invocation rolls back its row with its message (which
 * comes again and is then backed out); message values are bound as parameters, never become SQL.
 */
abstract class DatabaseFlowContract {

    private static final String DATA_SOURCE = "orders";
    private static final int BACKOUT_THRESHOLD = 2;

    private TestDatabase database;
    TestServer testServer;
    FlowHost flowHost;
    private Connection connection;
    private Session session;
    private MessageProducer producer;

    /** The database of this run, with no tables of the test's. */
    abstract TestDatabase database() throws Exception;

    @BeforeEach
    void start() throws Exception {
        database = database();
        try (java.sql.Connection db = database.connect(); Statement sql = db.createStatement()) {
            sql.execute("DROP TABLE IF EXISTS orders");
            sql.execute("DROP TABLE IF EXISTS blocked");
            sql.execute("DROP TABLE IF EXISTS audit");
            sql.execute("CREATE TABLE orders (id INTEGER PRIMARY KEY, customer VARCHAR(200) NOT NULL, note VARCHAR(2000))");
            sql.execute("CREATE TABLE blocked (customer VARCHAR(200) PRIMARY KEY)");
            sql.execute("INSERT INTO blocked (customer) VALUES ('mallory')");
            sql.execute("CREATE TABLE audit (message_id VARCHAR(200) PRIMARY KEY, customer VARCHAR(200))");
        }
        startServer(FlowHostSettings.defaults().withDataSources(List.of(database.dataSource(DATA_SOURCE))));
        connect();
    }

    private void connect() throws Exception {
        connection = new WharfConnectionFactory(testServer.server().vmUrl()).createConnection();
        connection.start();
        session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        producer = session.createProducer(null);
    }

    /** Stops the server and starts a new one whose flow host has {@code settings}; the test's client connects to it. */
    void restart(FlowHostSettings settings) throws Exception {
        connection.close();
        testServer.close();
        startServer(settings);
        connect();
    }

    void startServer(FlowHostSettings settings) throws Exception {
        testServer = TestServer.start(UnaryOperator.identity(), config -> {
            flowHost = new FlowHost(settings);
            return WharfServer.builder(config).plugins(flowHost).start();
        });
    }

    @AfterEach
    void stop() throws Exception {
        if (connection != null) {
            connection.close();
        }
        if (testServer != null) {
            testServer.close();
        }
        database.close();
    }

    /**
     * ORDERS: a blocked customer's order goes to ORDERS.BLOCKED (DatabaseRoute); any other is inserted (Database),
     * the customer's orders counted (DatabaseRetrieve) into the property {@code orders}, and sent to ORDERS.DONE. An
     * order with the property {@code fail} fails after its insert.
     */
    static final class OrderFlow implements FlowFactory {
        @Override
        public FlowDefinition create() {
            return FlowDefinition.builder("orders")
                    .node("in", InputNode.queue("ORDERS").transactionMode(TransactionMode.YES)
                            .backoutThreshold(BACKOUT_THRESHOLD).backoutQueue("ORDERS.BACKOUT"))
                    .node("blocked?", new DatabaseRouteNode(DATA_SOURCE, "SELECT 1 FROM blocked WHERE customer = ?",
                            "UserProperties/customer"))
                    .node("insert", new DatabaseNode(DATA_SOURCE,
                            "INSERT INTO orders (id, customer, note) VALUES (?, ?, ?)",
                            "UserProperties/id", "UserProperties/customer", "Body"))
                    .node("count", new DatabaseRetrieveNode(DATA_SOURCE,
                            "SELECT COUNT(*) AS \"n\" FROM orders WHERE customer = ?", "UserProperties/customer")
                            .into("Count"))
                    .node("tally", new Tally())
                    .node("done", OutputNode.queue("ORDERS.DONE"))
                    .node("blockedOut", OutputNode.queue("ORDERS.BLOCKED"))
                    .wire("in", "out", "blocked?")
                    .wire("blocked?", "match", "blockedOut")
                    .wire("blocked?", "noMatch", "insert")
                    .wire("insert", "out", "count")
                    .wire("count", "out", "tally")
                    .wire("tally", "out", "done")
                    .build();
        }
    }

    /** Copies the retrieved count to the property {@code orders}; fails when the message has {@code fail}. */
    static final class Tally extends JavaComputeNode {
        @Override
        public void evaluate(MessageAssembly assembly) throws Exception {
            @SuppressWarnings("unchecked")
            List<Map<String, Object>> rows = (List<Map<String, Object>>) assembly.localEnvironment().get("Count");
            MessageAssembly out = assembly.copy();
            out.message().setUserProperty("orders", ((Number) rows.get(0).get("n")).intValue());
            propagate("out", out);
            if (assembly.message().userProperty("fail") != null) {
                throw new IllegalStateException("order " + assembly.message().userProperty("id") + " fails after its insert");
            }
        }
    }

    @Test
    void insertsRetrievesAndRoutes() throws Exception {
        flowHost.deploy(new OrderFlow(), 1);
        send(1, "alice", "first", false);
        send(2, "bob", "second", false);
        send(3, "alice", "third", false);
        send(4, "mallory", "blocked", false);

        List<Message> done = receive("ORDERS.DONE", 3);
        assertEquals(List.of(1, 2, 3), ids(done));
        assertEquals(List.of(1, 1, 2), property(done, "orders"), "the customer's orders counted, this one included");
        assertEquals(4, receive("ORDERS.BLOCKED", 1).get(0).getIntProperty("id"));
        assertEquals(List.of("1 alice first", "2 bob second", "3 alice third"), rows());
    }

    @Test
    void aFailingInvocationRollsBackItsRowWithItsMessage() throws Exception {
        flowHost.deploy(new OrderFlow(), 1);
        send(1, "alice", "kept", false);
        send(2, "alice", "rolled back", true);
        send(3, "alice", "kept too", false);

        List<Message> done = receive("ORDERS.DONE", 2);
        assertEquals(List.of(1, 3), ids(done));
        // order 2 was inserted on each delivery and rolled back each time, so order 3 counts 2, not 3
        assertEquals(List.of(1, 2), property(done, "orders"));
        Message backedOut = receive("ORDERS.BACKOUT", 1).get(0);
        assertEquals(2, backedOut.getIntProperty("id"));
        assertTrue(backedOut.getStringProperty(ExceptionList.PROPERTY).contains("fails after its insert"),
                backedOut.getStringProperty(ExceptionList.PROPERTY));
        assertEquals(BACKOUT_THRESHOLD, flowHost.flow("orders").running().statistics().failures(),
                "the message was delivered again after each rollback until its deliveries ran out");
        assertEquals(List.of("1 alice kept", "3 alice kept too"), rows(), "the failed order's row was rolled back");
        assertEquals(0, testServer.server().queueManager().depth("ORDERS.DONE"), "an output of a failed invocation");
    }

    /**
     * AUDIT: every message is recorded in the audit table, then its order inserted; an order whose id is taken (a
     * constraint the database enforces) goes to the insert's failure terminal, ORDERS.DUPLICATE.
     */
    static final class AuditedInsertFlow implements FlowFactory {
        @Override
        public FlowDefinition create() {
            return FlowDefinition.builder("audited")
                    .node("in", InputNode.queue("ORDERS").transactionMode(TransactionMode.YES)
                            .backoutThreshold(BACKOUT_THRESHOLD).backoutQueue("ORDERS.BACKOUT"))
                    .node("audit", new DatabaseNode(DATA_SOURCE, "INSERT INTO audit (message_id, customer) VALUES (?, ?)",
                            "Headers/JMSMessageID", "UserProperties/customer"))
                    .node("insert", new DatabaseNode(DATA_SOURCE,
                            "INSERT INTO orders (id, customer, note) VALUES (?, ?, ?)",
                            "UserProperties/id", "UserProperties/customer", "Body"))
                    .node("done", OutputNode.queue("ORDERS.DONE"))
                    .node("duplicate", OutputNode.queue("ORDERS.DUPLICATE"))
                    .wire("in", "out", "audit")
                    .wire("audit", "out", "insert")
                    .wire("insert", "out", "done")
                    .wire("insert", "failure", "duplicate")
                    .build();
        }
    }

    /** As {@link AuditedInsertFlow}, but the insert's failure is caught further on, by a TryCatch, to ORDERS.CAUGHT. */
    static final class CaughtInsertFlow implements FlowFactory {
        @Override
        public FlowDefinition create() {
            return FlowDefinition.builder("caught")
                    .node("in", InputNode.queue("ORDERS").transactionMode(TransactionMode.YES)
                            .backoutThreshold(BACKOUT_THRESHOLD).backoutQueue("ORDERS.BACKOUT"))
                    .node("try", new TryCatchNode())
                    .node("audit", new DatabaseNode(DATA_SOURCE, "INSERT INTO audit (message_id, customer) VALUES (?, ?)",
                            "Headers/JMSMessageID", "UserProperties/customer"))
                    .node("insert", new DatabaseNode(DATA_SOURCE,
                            "INSERT INTO orders (id, customer, note) VALUES (?, ?, ?)",
                            "UserProperties/id", "UserProperties/customer", "Body"))
                    .node("done", OutputNode.queue("ORDERS.DONE"))
                    .node("caught", OutputNode.queue("ORDERS.CAUGHT"))
                    .wire("in", "out", "try")
                    .wire("try", "try", "audit")
                    .wire("audit", "out", "insert")
                    .wire("insert", "out", "done")
                    .wire("try", "catch", "caught")
                    .build();
        }
    }

    /**
     * A refused statement whose failure is caught further on (no savepoint undid it) cannot commit: the invocation
     * rolls back with its message, on every database, rather than commit the catch path's output without the work
     * before it (PostgreSQL's commit of an aborted transaction rolls back, silently).
     */
    @Test
    void aRefusedStatementCaughtFurtherOnRollsTheInvocationBack() throws Exception {
        flowHost.deploy(new CaughtInsertFlow(), 1);
        send(1, "alice", "first", false);
        send(1, "bob", "same id", false);

        assertEquals("alice", receive("ORDERS.DONE", 1).get(0).getStringProperty("customer"));
        Message backedOut = receive("ORDERS.BACKOUT", 1).get(0);
        assertEquals("bob", backedOut.getStringProperty("customer"));
        assertTrue(backedOut.getStringProperty(ExceptionList.PROPERTY).contains("was caught, but not undone"),
                backedOut.getStringProperty(ExceptionList.PROPERTY));
        assertEquals(0, testServer.server().queueManager().depth("ORDERS.CAUGHT"), "the catch path's output committed");
        assertEquals(List.of("alice"), audited());
        assertEquals(List.of("1 alice first"), rows());
    }

    /**
     * A statement the database refuses, handled by the node's failure terminal, is undone alone: the invocation's
     * earlier work commits with it, on every database (PostgreSQL would otherwise abort the whole transaction).
     */
    @Test
    void aRefusedStatementHandledByTheFailureTerminalKeepsTheInvocationsEarlierWork() throws Exception {
        flowHost.deploy(new AuditedInsertFlow(), 1);
        send(1, "alice", "first", false);
        send(1, "bob", "same id", false);

        assertEquals("alice", receive("ORDERS.DONE", 1).get(0).getStringProperty("customer"));
        assertEquals("bob", receive("ORDERS.DUPLICATE", 1).get(0).getStringProperty("customer"));
        assertEquals(List.of("1 alice first"), rows());
        assertEquals(List.of("alice", "bob"), audited(), "the duplicate's audit row committed with its invocation");
        assertEquals(0, flowHost.flow("audited").running().statistics().failures(), "an invocation failed");
    }

    /**
     * The backout path's own database work (the input's failure terminal records the failure in a table) commits
     * with the backout, while the failed deliveries' work rolled back.
     */
    @Test
    void theBackoutPathsDatabaseWorkCommitsWithTheBackout() throws Exception {
        flowHost.deploy(() -> FlowDefinition.builder("recorded")
                .node("in", InputNode.queue("ORDERS").transactionMode(TransactionMode.YES)
                        .backoutThreshold(BACKOUT_THRESHOLD))
                .node("insert", new DatabaseNode(DATA_SOURCE, "INSERT INTO orders (id, customer, note) VALUES (?, ?, ?)",
                        "UserProperties/id", "UserProperties/customer", "Body"))
                .node("count", new DatabaseRetrieveNode(DATA_SOURCE,
                        "SELECT COUNT(*) AS \"n\" FROM orders WHERE customer = ?", "UserProperties/customer").into("Count"))
                .node("tally", new Tally())
                .node("record", new DatabaseNode(DATA_SOURCE, "INSERT INTO audit (message_id, customer) VALUES (?, ?)",
                        "Headers/JMSMessageID", "UserProperties/customer"))
                .node("recorded", OutputNode.queue("ORDERS.RECORDED"))
                .wire("in", "out", "insert").wire("insert", "out", "count").wire("count", "out", "tally")
                .wire("in", "failure", "record").wire("record", "out", "recorded")
                .build(), 1);
        send(1, "erin", "always fails", true);

        assertEquals(1, receive("ORDERS.RECORDED", 1).get(0).getIntProperty("id"));
        assertEquals(List.of("erin"), audited(), "the backout path's insert committed");
        assertEquals(List.of(), rows(), "each failed delivery's insert rolled back");
        assertEquals(0, testServer.server().queueManager().depth("ORDERS"), "the backout took the message");
    }

    /** In a non-transactional invocation each statement commits at once: a later failure does not undo it. */
    @Test
    void withoutATransactionTheRowStaysWhenTheFlowFailsLater() throws Exception {
        flowHost.deploy(() -> FlowDefinition.builder("untransacted")
                .node("in", InputNode.queue("ORDERS").transactionMode(TransactionMode.NO).backoutQueue("ORDERS.BACKOUT"))
                .node("insert", new DatabaseNode(DATA_SOURCE, "INSERT INTO orders (id, customer, note) VALUES (?, ?, ?)",
                        "UserProperties/id", "UserProperties/customer", "Body"))
                .node("count", new DatabaseRetrieveNode(DATA_SOURCE,
                        "SELECT COUNT(*) AS \"n\" FROM orders WHERE customer = ?", "UserProperties/customer").into("Count"))
                .node("tally", new Tally())
                .node("done", OutputNode.queue("ORDERS.DONE"))
                .wire("in", "out", "insert").wire("insert", "out", "count").wire("count", "out", "tally")
                .wire("tally", "out", "done")
                .build(), 1);
        send(1, "alice", "stays", true);

        Message backedOut = receive("ORDERS.BACKOUT", 1).get(0);
        assertEquals(1, backedOut.getIntProperty("id"));
        assertEquals(List.of("1 alice stays"), rows(), "the row committed when it was inserted");
        assertEquals(1, receive("ORDERS.DONE", 1).get(0).getIntProperty("orders"),
                "sent before the failure, at once, as a non-transactional output is");
    }

    /** A retrieve returning more rows than its maxRows fails the node rather than filling the tree. */
    @Test
    void aRetrieveOfMoreRowsThanMaxRowsGoesToTheFailureTerminal() throws Exception {
        try (java.sql.Connection db = database.connect(); Statement sql = db.createStatement()) {
            sql.execute("INSERT INTO orders (id, customer) VALUES (1, 'alice'), (2, 'alice'), (3, 'alice')");
        }
        flowHost.deploy(() -> FlowDefinition.builder("greedy")
                .node("in", InputNode.queue("ORDERS"))
                .node("all", new DatabaseRetrieveNode(DATA_SOURCE, "SELECT id FROM orders WHERE customer = ?",
                        "UserProperties/customer").maxRows(2))
                .node("done", OutputNode.queue("ORDERS.DONE"))
                .node("tooMany", OutputNode.queue("ORDERS.TOO.MANY"))
                .wire("in", "out", "all").wire("all", "noMatch", "done").wire("all", "failure", "tooMany")
                .build(), 1);
        send(9, "alice", "all of them", false);
        send(10, "bob", "none", false);

        assertEquals(9, receive("ORDERS.TOO.MANY", 1).get(0).getIntProperty("id"));
        assertEquals(10, receive("ORDERS.DONE", 1).get(0).getIntProperty("id"), "no row: noMatch");
    }

    /** Values from JSON and XML bodies are bound too: JSON's typed, XML's as text (cast in the SQL). */
    @Test
    void valuesFromJsonAndXmlBodiesAreBound() throws Exception {
        flowHost.deploy(() -> FlowDefinition.builder("json")
                .node("in", InputNode.queue("ORDERS").domain(Domain.JSON))
                .node("insert", new DatabaseNode(DATA_SOURCE, "INSERT INTO orders (id, customer, note) VALUES (?, ?, ?)",
                        "JSON/order/id", "JSON/order/customer", "JSON/order/lines/0/sku"))
                .node("done", OutputNode.queue("ORDERS.DONE"))
                .wire("in", "out", "insert").wire("insert", "out", "done")
                .build(), 1);
        flowHost.deploy(() -> FlowDefinition.builder("xml")
                .node("in", InputNode.queue("ORDERS.XML").domain(Domain.XML))
                .node("insert", new DatabaseNode(DATA_SOURCE,
                        "INSERT INTO orders (id, customer, note) VALUES (CAST(? AS INTEGER), ?, ?)",
                        "XML/Order/Id", "XML/Order/Customer", "XML/Order/Note"))
                .node("done", OutputNode.queue("ORDERS.DONE"))
                .wire("in", "out", "insert").wire("insert", "out", "done")
                .build(), 1);
        send(0, "", "{\"order\": {\"id\": 5, \"customer\": \"carol\", \"lines\": [{\"sku\": \"A-1\"}]}}", false);
        TextMessage xml = session.createTextMessage("<Order><Id>6</Id><Customer>dave</Customer></Order>");
        xml.setIntProperty("id", 6);
        producer.send(session.createQueue("ORDERS.XML"), xml);

        assertEquals(java.util.Set.of(0, 6), new java.util.HashSet<>(ids(receive("ORDERS.DONE", 2))));
        assertEquals(List.of("5 carol A-1", "6 dave null"), rows(), "an absent element binds NULL");
    }

    @Test
    void messageValuesAreBoundNeverWrittenIntoTheSql() throws Exception {
        flowHost.deploy(new OrderFlow(), 1);
        String customer = "O'Brien'); DROP TABLE orders; --";
        String note = "it's \"quoted\" ' OR '1'='1";
        send(1, customer, note, false);
        send(2, "mallory' OR '1'='1", "not blocked: no customer has that name", false);

        List<Message> done = receive("ORDERS.DONE", 2);
        assertEquals(List.of(1, 2), ids(done));
        assertEquals(List.of("1 " + customer + " " + note, "2 mallory' OR '1'='1 not blocked: no customer has that name"),
                rows(), "the values are stored as they were sent, and the table is still there");
    }

    /**
     * A Database node runs any statement, not only inserts: an UPDATE and a DELETE with the message's values bound,
     * committing with the message.
     */
    @Test
    void updatesAndDeletesRunWithTheMessagesValues() throws Exception {
        try (java.sql.Connection db = database.connect(); Statement sql = db.createStatement()) {
            sql.execute("INSERT INTO orders (id, customer, note) VALUES (1, 'alice', 'first'), (2, 'alice', 'second'), "
                    + "(3, 'bob', 'third')");
        }
        flowHost.deploy(() -> FlowDefinition.builder("maintain")
                .node("in", InputNode.queue("ORDERS").transactionMode(TransactionMode.YES))
                .node("update", new DatabaseNode(DATA_SOURCE, "UPDATE orders SET note = ? WHERE id = ?", "Body",
                        "UserProperties/id"))
                .node("delete", new DatabaseNode(DATA_SOURCE, "DELETE FROM orders WHERE customer = ? AND id <> ?",
                        "UserProperties/customer", "UserProperties/id"))
                .node("done", OutputNode.queue("ORDERS.DONE"))
                .wire("in", "out", "update").wire("update", "out", "delete").wire("delete", "out", "done")
                .build(), 1);
        send(1, "alice", "changed", false);

        assertEquals(List.of(1), ids(receive("ORDERS.DONE", 1)));
        assertEquals(List.of("1 alice changed", "3 bob third"), rows(), "order 1 updated, alice's others deleted");
    }

    /**
     * A DatabaseCall node calls a stored procedure with the message's values: IN parameters bound from the message,
     * the INOUT and OUT values back into it (here its properties), the procedure's work committing with the message; a
     * procedure that raises an error goes to the failure terminal naming the procedure and the database's reason, the
     * work it did before undone.
     */
    @Test
    void aStoredProcedureIsCalledWithTheMessagesValuesAndItsOutValuesComeBack() throws Exception {
        try (java.sql.Connection db = database.connect(); Statement sql = db.createStatement()) {
            createPlaceOrder(sql);
            sql.execute("INSERT INTO orders (id, customer, note) VALUES (1, 'zed', 'there before')");
        }
        flowHost.deploy(() -> FlowDefinition.builder("calls")
                .node("in", InputNode.queue("ORDERS").transactionMode(TransactionMode.YES))
                .node("place", new DatabaseCallNode(DATA_SOURCE, "CALL place_order(?, ?, ?, ?)")
                        .in("UserProperties/customer")
                        .in("UserProperties/quantity")
                        .inOut("UserProperties/price", "UserProperties/total", JDBCType.INTEGER)
                        .out("UserProperties/orderId", JDBCType.INTEGER))
                .node("done", OutputNode.queue("ORDERS.DONE"))
                .node("record", new RecordExceptionList())
                .node("refused", OutputNode.queue("ORDERS.REFUSED"))
                .wire("in", "out", "place").wire("place", "out", "done")
                .wire("place", "failure", "record").wire("record", "out", "refused")
                .build(), 1);
        sendOrder("alice", 3, 250);
        sendOrder("mallory", 1, 100);

        Message placed = receive("ORDERS.DONE", 1).get(0);
        assertEquals("alice", placed.getStringProperty("customer"));
        assertEquals(750, placed.getIntProperty("total"), "the INOUT parameter: the price in, the total out");
        assertEquals(2, placed.getIntProperty("orderId"), "the OUT parameter: the id the procedure gave the order");
        Message refused = receive("ORDERS.REFUSED", 1).get(0);
        assertEquals("mallory", refused.getStringProperty("customer"));
        String reason = refused.getStringProperty(ExceptionList.PROPERTY);
        assertTrue(reason.contains("Procedure place_order on data source 'orders' failed")
                && reason.contains("customer mallory is blocked"), reason);
        assertFalse(refused.propertyExists("orderId"), "a refused call gives nothing back");
        assertEquals(List.of("1 zed there before", "2 alice 3 at 250"), rows(),
                "alice's order committed with her message; mallory's insert undone with the refused call");
    }

    /**
     * The procedure {@code place_order(customer IN, quantity IN, total INOUT, order_id OUT)}: inserts the order under
     * the next id, then raises an error for a blocked customer; the total is the price times the quantity.
     */
    private void createPlaceOrder(Statement sql) throws SQLException {
        if (database.url().startsWith("jdbc:h2:")) {
            H2Procedures.create(sql);
            return;
        }
        sql.execute("""
                CREATE OR REPLACE PROCEDURE place_order(customer_name TEXT, quantity INTEGER, INOUT total INTEGER,
                                                        OUT order_id INTEGER)
                LANGUAGE plpgsql AS $$
                BEGIN
                    SELECT COALESCE(MAX(id), 0) + 1 INTO order_id FROM orders;
                    INSERT INTO orders (id, customer, note) VALUES (order_id, customer_name, quantity || ' at ' || total);
                    IF EXISTS (SELECT 1 FROM blocked WHERE customer = customer_name) THEN
                        RAISE EXCEPTION 'customer % is blocked', customer_name;
                    END IF;
                    total := total * quantity;
                END $$""");
    }

    private void sendOrder(String customer, int quantity, int price) throws Exception {
        TextMessage message = session.createTextMessage("order");
        message.setStringProperty("customer", customer);
        message.setIntProperty("quantity", quantity);
        message.setIntProperty("price", price);
        producer.send(session.createQueue("ORDERS"), message, DeliveryMode.PERSISTENT, 4, 0);
    }

    @Test
    void aFlowNamingAnUndefinedDataSourceIsRefusedAtDeploy() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> flowHost.deploy(() ->
                FlowDefinition.builder("lost")
                        .node("in", InputNode.queue("LOST"))
                        .node("insert", new DatabaseNode("archive", "INSERT INTO orders (id) VALUES (?)", "UserProperties/id"))
                        .wire("in", "out", "insert")
                        .build(), 1));
        assertTrue(e.getMessage().contains("node 'insert' uses data source 'archive', which is not defined (defined: "
                + "orders). Add it under dataSources:"), e.getMessage());
    }

    @Test
    void aDataSourceNoDriverAcceptsFailsTheStartNamingIt() throws Exception {
        connection.close();
        connection = null;
        testServer.close();
        testServer = null;
        Exception e = assertThrows(Exception.class, () -> startServer(FlowHostSettings.defaults().withDataSources(
                List.of(new DataSourceConfig("ledger", "jdbc:nosuchdb://x/y", "u", "p")))));
        Throwable cause = e;
        while (cause != null && !(cause instanceof ConfigurationException)) {
            cause = cause.getCause();
        }
        assertTrue(cause != null && cause.getMessage().startsWith("Data source 'ledger' (dataSources, url "
                + "jdbc:nosuchdb://x/y) cannot be opened"), String.valueOf(e));
    }

    void send(int id, String customer, String note, boolean fail) throws Exception {
        TextMessage message = order(id, customer, note);
        if (fail) {
            message.setBooleanProperty("fail", true);
        }
        producer.send(session.createQueue("ORDERS"), message, DeliveryMode.PERSISTENT, 4, 0);
    }

    /**
     * Sends an order to {@code queue} that the server holds for {@code delayMillis} before its consumers see it (a JMS
     * delivery delay).
     */
    void sendLater(String queue, int id, String customer, String note, long delayMillis) throws Exception {
        try (MessageProducer later = session.createProducer(session.createQueue(queue))) {
            later.setDeliveryDelay(delayMillis);
            later.send(order(id, customer, note), DeliveryMode.PERSISTENT, 4, 0);
        }
    }

    private TextMessage order(int id, String customer, String note) throws Exception {
        TextMessage message = session.createTextMessage(note);
        message.setIntProperty("id", id);
        message.setStringProperty("customer", customer);
        return message;
    }

    List<Message> receive(String queue, int count) throws Exception {
        List<Message> received = new ArrayList<>();
        try (MessageConsumer consumer = session.createConsumer(session.createQueue(queue))) {
            for (int i = 0; i < count; i++) {
                Message message = consumer.receive(FlowFixture.RECEIVE_MILLIS);
                if (message == null) {
                    throw new AssertionError("Only " + received.size() + " of " + count + " messages arrived on " + queue);
                }
                received.add(message);
            }
        }
        return received;
    }

    private static List<Integer> ids(List<Message> messages) throws Exception {
        return property(messages, "id");
    }

    private static List<Integer> property(List<Message> messages, String name) throws Exception {
        List<Integer> values = new ArrayList<>();
        for (Message m : messages) {
            values.add(m.getIntProperty(name));
        }
        return values;
    }

    /** The customers in the audit table, in order. */
    List<String> audited() throws SQLException {
        List<String> audited = new ArrayList<>();
        try (java.sql.Connection db = database.connect(); Statement select = db.createStatement();
             ResultSet result = select.executeQuery("SELECT customer FROM audit ORDER BY customer")) {
            while (result.next()) {
                audited.add(result.getString(1));
            }
        }
        return audited;
    }

    /** The orders table, a row a line: "id customer note", by id. */
    List<String> rows() throws SQLException {
        List<String> rows = new ArrayList<>();
        try (java.sql.Connection db = database.connect();
             PreparedStatement select = db.prepareStatement("SELECT id, customer, note FROM orders ORDER BY id");
             ResultSet result = select.executeQuery()) {
            while (result.next()) {
                rows.add(result.getInt(1) + " " + result.getString(2) + " " + result.getString(3));
            }
        }
        return rows;
    }
}
