package org.wharfmq.flow.node;

import org.wharfmq.flow.FlowContext;
import org.wharfmq.flow.MessageAssembly;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;

/**
 * Runs an SQL statement that changes the database (insert, update, delete, a call of a procedure that gives nothing
 * back) with values taken from the message, bound as parameters, as App Connect's Database node. The assembly then
 * goes on to {@code out} unchanged; a statement the database refuses goes to {@code failure} (or fails the path when
 * that is unwired). A procedure's OUT and INOUT values come back into the tree through a {@link DatabaseCallNode}.
 *
 * <pre>{@code
 * new DatabaseNode("orders", "INSERT INTO orders (id, customer) VALUES (?, ?)",
 *         "UserProperties/orderId", "XML/Order/Customer")
 * }</pre>
 *
 * In a transactional invocation the change commits or rolls back with the message ({@link SqlNode}).
 */
public final class DatabaseNode extends SqlNode {

    /**
     * @param dataSource the flow host's data source to run on
     * @param sql        the statement, with a {@code ?} per value
     * @param parameters the message paths ({@link org.wharfmq.flow.MessagePath}) of the values, one per {@code ?}
     * @throws IllegalArgumentException when a path is not valid
     */
    public DatabaseNode(String dataSource, String sql, String... parameters) {
        super("Database", List.of("out", "failure"), dataSource, sql, parameters);
    }

    @Override
    public void receive(String terminal, MessageAssembly assembly, FlowContext context) throws Exception {
        try {
            execute(assembly, context, PreparedStatement::execute);
        } catch (SQLException | RuntimeException e) {
            propagateFailure(assembly, e, context);
            return;
        }
        context.propagate(this, "out", assembly);
    }
}
