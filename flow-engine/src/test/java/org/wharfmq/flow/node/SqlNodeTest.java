package org.wharfmq.flow.node;

import org.junit.jupiter.api.Test;
import org.wharfmq.flow.FlowDefinition;
import org.wharfmq.flow.FlowValidationException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The Database nodes' checks when a flow is built: one message path per placeholder, a data source, SQL. */
class SqlNodeTest {

    @Test
    void placeholdersInQuotedTextNamesAndCommentsDoNotCount() {
        assertEquals(2, SqlNode.placeholders("INSERT INTO t (a, b) VALUES (?, ?)"));
        assertEquals(1, SqlNode.placeholders("SELECT '?', \"what?\" FROM t WHERE a = ? -- why?\n"));
        assertEquals(1, SqlNode.placeholders("SELECT 'it''s ?' FROM t /* ? */ WHERE a = ?"));
        assertEquals(1, SqlNode.placeholders("SELECT doc ?? 'key' FROM t WHERE id = ?"));
    }

    @Test
    void aFlowWhosePathsDoNotMatchThePlaceholdersIsRefusedWhenBuilt() {
        FlowValidationException e = assertThrows(FlowValidationException.class, () -> flow(
                new DatabaseNode("orders", "INSERT INTO orders (id, customer) VALUES (?, ?)", "UserProperties/id")));
        assertTrue(e.getMessage().contains("node 'db': the SQL statement has 2 placeholder(s) (?) but 1 parameter "
                + "path(s) are given"), e.getMessage());
    }

    @Test
    void aDatabaseNodeNeedsADataSource() {
        FlowValidationException e = assertThrows(FlowValidationException.class, () -> flow(
                new DatabaseRouteNode(" ", "SELECT 1")));
        assertTrue(e.getMessage().contains("needs a data source name"), e.getMessage());
    }

    @Test
    void aRetrieveTakesAtLeastOneRow() {
        FlowValidationException e = assertThrows(FlowValidationException.class, () -> flow(
                new DatabaseRetrieveNode("orders", "SELECT * FROM orders").maxRows(0)));
        assertTrue(e.getMessage().contains("maxRows must be at least 1"), e.getMessage());
    }

    private static FlowDefinition flow(SqlNode node) {
        return FlowDefinition.builder("f").node("in", InputNode.queue("IN")).node("db", node).wire("in", "out", "db")
                .build();
    }
}
