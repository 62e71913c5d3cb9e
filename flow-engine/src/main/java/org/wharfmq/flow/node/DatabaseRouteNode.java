package org.wharfmq.flow.node;

import org.wharfmq.flow.FlowContext;
import org.wharfmq.flow.MessageAssembly;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

/**
 * Routes on a query's result, as App Connect's DatabaseRoute node: runs a query with values taken from the message,
 * bound as parameters, and passes the assembly unchanged to {@code match} when it returns a row, to {@code noMatch}
 * when it returns none. A query the database refuses goes to {@code failure} (or fails the path when that is
 * unwired).
 *
 * <pre>{@code
 * new DatabaseRouteNode("orders", "SELECT 1 FROM blocked_customers WHERE id = ?", "UserProperties/customerId")
 * }</pre>
 */
public final class DatabaseRouteNode extends SqlNode {

    /**
     * @param dataSource the flow host's data source to run on
     * @param sql        the query, with a {@code ?} per value
     * @param parameters the message paths ({@link org.wharfmq.flow.MessagePath}) of the values, one per {@code ?}
     * @throws IllegalArgumentException when a path is not valid
     */
    public DatabaseRouteNode(String dataSource, String sql, String... parameters) {
        super("DatabaseRoute", List.of("match", "noMatch", "failure"), dataSource, sql, parameters);
    }

    @Override
    public boolean isLoopGuard() {
        return true;
    }

    @Override
    public void receive(String terminal, MessageAssembly assembly, FlowContext context) throws Exception {
        boolean match;
        try {
            match = execute(assembly, context, DatabaseRouteNode::anyRow);
        } catch (SQLException | RuntimeException e) {
            propagateFailure(assembly, e, context);
            return;
        }
        context.propagate(this, match ? "match" : "noMatch", assembly);
    }

    private static boolean anyRow(PreparedStatement statement) throws SQLException {
        statement.setMaxRows(1);
        try (ResultSet result = statement.executeQuery()) {
            return result.next();
        }
    }
}
