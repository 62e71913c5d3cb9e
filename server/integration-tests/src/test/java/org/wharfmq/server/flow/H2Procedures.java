package org.wharfmq.server.flow;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The stored procedure of the CALL tests on H2, whose procedures are Java methods (CREATE ALIAS): the same as the
 * PostgreSQL one in {@link DatabaseFlowContract}. H2 gives a call's OUT parameter N as column N of the row the method
 * returns, so the row has a column per parameter (a query's row: H2's own result-set class is not on this module's
 * compile class path).
 */
public final class H2Procedures {

    /** Makes the alias {@code place_order} in the database of {@code sql}. */
    static void create(Statement sql) throws SQLException {
        sql.execute("CREATE ALIAS IF NOT EXISTS place_order FOR \"" + H2Procedures.class.getName() + ".placeOrder\"");
    }

    private H2Procedures() {
    }

    /**
     * {@code place_order(customer IN, quantity IN, total INOUT, order_id OUT)}: inserts the order under the next id,
     * then refuses a blocked customer (so that the refusal has work to undo); gives back the total (price times
     * quantity) and the order's id.
     */
    public static ResultSet placeOrder(Connection connection, String customer, Integer quantity, Integer price,
                                       Integer orderId) throws SQLException {
        // the row given back, typed: H2 asks for its columns (with a connection of that URL) when it prepares the call
        PreparedStatement row = connection.prepareStatement("SELECT CAST(? AS VARCHAR(200)) AS CUSTOMER, "
                + "CAST(? AS INTEGER) AS QUANTITY, CAST(? AS INTEGER) AS TOTAL, CAST(? AS INTEGER) AS ORDER_ID");
        if (connection.getMetaData().getURL().equals("jdbc:columnlist:connection")) {
            for (int i = 1; i <= 4; i++) {
                row.setObject(i, null);
            }
            return row.executeQuery();
        }
        int id;
        try (Statement next = connection.createStatement();
             ResultSet max = next.executeQuery("SELECT COALESCE(MAX(id), 0) + 1 FROM orders")) {
            max.next();
            id = max.getInt(1);
        }
        try (PreparedStatement insert = connection.prepareStatement(
                "INSERT INTO orders (id, customer, note) VALUES (?, ?, ?)")) {
            insert.setInt(1, id);
            insert.setString(2, customer);
            insert.setString(3, quantity + " at " + price);
            insert.executeUpdate();
        }
        try (PreparedStatement blocked = connection.prepareStatement("SELECT 1 FROM blocked WHERE customer = ?")) {
            blocked.setString(1, customer);
            try (ResultSet found = blocked.executeQuery()) {
                if (found.next()) {
                    throw new SQLException("customer " + customer + " is blocked", "45000");
                }
            }
        }
        row.setString(1, customer);
        row.setInt(2, quantity);
        row.setInt(3, price * quantity);
        row.setInt(4, id);
        return row.executeQuery();
    }
}
