package org.wharfmq.flow.node;

import org.junit.jupiter.api.Test;
import org.wharfmq.flow.FlowDefinition;
import org.wharfmq.flow.FlowValidationException;

import java.sql.JDBCType;

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

    @Test
    void aDatabaseCallNodeDeclaresOneParameterPerPlaceholderAndCallsAProcedure() {
        FlowValidationException count = assertThrows(FlowValidationException.class, () -> flow(
                new DatabaseCallNode("orders", "CALL place_order(?, ?, ?)").in("UserProperties/customer")
                        .out("LocalEnvironment/orderId", JDBCType.INTEGER)));
        assertTrue(count.getMessage().contains("the SQL statement has 3 placeholder(s) (?) but 2 parameter"),
                count.getMessage());
        FlowValidationException notACall = assertThrows(FlowValidationException.class, () -> flow(
                new DatabaseCallNode("orders", "INSERT INTO orders (id) VALUES (?)").in("UserProperties/id")));
        assertTrue(notACall.getMessage().contains("a DatabaseCall node calls a stored procedure"), notACall.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new DatabaseCallNode("orders", "CALL p(?)")
                .out("JSON/total", JDBCType.INTEGER), "a value cannot be put into the body");
    }

    @Test
    void aDatabaseCallNodeNamesItsProcedureInEachFormOfCall() {
        assertEquals("place_order", new DatabaseCallNode("o", "CALL place_order(?, ?)").procedure());
        assertEquals("shop.place_order", new DatabaseCallNode("o", "  call shop.place_order(?)").procedure());
        assertEquals("place_order", new DatabaseCallNode("o", "{call place_order(?)}").procedure());
        assertEquals("total", new DatabaseCallNode("o", "{ ? = call total(?) }").procedure());
        assertEquals("refresh", new DatabaseCallNode("o", "CALL refresh").procedure());
    }

    private static FlowDefinition flow(SqlNode node) {
        return FlowDefinition.builder("f").node("in", InputNode.queue("IN")).node("db", node).wire("in", "out", "db")
                .build();
    }
}
