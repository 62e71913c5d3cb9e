package org.wharfmq.server.flow;

import org.junit.jupiter.api.Test;
import org.wharfmq.flow.ExceptionList;
import org.wharfmq.flow.FlowDefinition;
import org.wharfmq.flow.TransactionMode;
import org.wharfmq.flow.node.DatabaseNode;
import org.wharfmq.flow.node.InputNode;
import org.wharfmq.flow.node.OutputNode;

import javax.jms.Message;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The Database nodes against an embedded H2 database, and a data source whose database does not answer. */
class DatabaseFlowH2Test extends DatabaseFlowContract {

    @Override
    TestDatabase database() {
        return TestDatabase.h2();
    }

    /**
     * A database that does not answer does not stop the server; the invocations that need it fail, their messages
     * come again and are then backed out, with the reason.
     */
    @Test
    void aDatabaseThatDoesNotAnswerFailsTheInvocationsNotTheServer() throws Exception {
        // a port nothing listens on (the tests' own PostgreSQL driver): every connection is refused
        restart(FlowHostSettings.defaults().withDataSources(List.of(new DataSourceConfig("down",
                "jdbc:postgresql://127.0.0.1:1/nothing", "wharf", "secret", 2, 250))));
        flowHost.deploy(() -> FlowDefinition.builder("unlucky")
                .node("in", InputNode.queue("ORDERS").transactionMode(TransactionMode.YES).backoutThreshold(1)
                        .backoutQueue("ORDERS.BACKOUT"))
                .node("insert", new DatabaseNode("down", "INSERT INTO orders (id) VALUES (?)", "UserProperties/id"))
                .node("out", OutputNode.queue("ORDERS.DONE"))
                .wire("in", "out", "insert").wire("insert", "out", "out")
                .build(), 1);
        send(7, "alice", "never stored", false);

        Message backedOut = receive("ORDERS.BACKOUT", 1).get(0);
        assertEquals(7, backedOut.getIntProperty("id"));
        String reason = backedOut.getStringProperty(ExceptionList.PROPERTY);
        assertTrue(reason.contains("Database") && reason.contains("Connection is not available"), reason);
        assertFalse(testServer.server().queueManager().exists("ORDERS.DONE"), "nothing was ever sent on");
    }
}
