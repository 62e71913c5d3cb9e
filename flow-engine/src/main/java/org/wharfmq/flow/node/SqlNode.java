package org.wharfmq.flow.node;

import org.wharfmq.flow.DatabaseUnavailableException;
import org.wharfmq.flow.FlowContext;
import org.wharfmq.flow.FlowValidationException;
import org.wharfmq.flow.MessageAssembly;
import org.wharfmq.flow.Node;
import org.wharfmq.flow.MessagePath;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the Database nodes share: a data source of the flow host (by name), one SQL statement with {@code ?}
 * placeholders, and a {@link MessagePath} per placeholder whose value is bound to it. Values from the message are only
 * ever bound as parameters of a prepared statement, never written into the SQL text, so a value cannot change what
 * the statement does (SQL injection). The statement runs on the invocation's connection
 * ({@link FlowContext#connection(String)}), prepared once per connection its reader takes
 * ({@link FlowContext#statement(String, String)}): in a transactional invocation it commits or rolls back with the
 * message.
 */
public abstract class SqlNode extends Node {

    /**
     * The name of the savepoint a statement runs in when its node's failure terminal is wired (named, so that it can
     * be rolled back to in SQL too: {@value}). Each statement's replaces the one before, released or rolled back to.
     */
    static final String SAVEPOINT = "wharf_statement";

    private final String dataSource;
    private final String sql;
    private final List<MessagePath> parameters;

    /**
     * @param parameters paths of the values bound to the statement's placeholders, in order
     * @throws IllegalArgumentException when a path is not valid
     */
    protected SqlNode(String kind, List<String> outputTerminals, String dataSource, String sql, String... parameters) {
        super(kind, List.of("in"), outputTerminals);
        this.dataSource = dataSource;
        this.sql = sql;
        List<MessagePath> paths = new ArrayList<>(parameters.length);
        for (String parameter : parameters) {
            paths.add(MessagePath.compile(parameter));
        }
        this.parameters = List.copyOf(paths);
    }

    /** The name of the flow host's data source the statement runs on. */
    public final String dataSource() {
        return dataSource;
    }

    /** The SQL statement. */
    public final String sql() {
        return sql;
    }

    /** True: a database call may block. */
    @Override
    public final boolean mayBlock() {
        return true;
    }

    @Override
    public Map<String, Object> properties() {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("dataSource", dataSource);
        p.put("sql", sql);
        p.put("parameters", parameters.stream().map(MessagePath::path).toList());
        return p;
    }

    @Override
    protected void validate() {
        if (dataSource == null || dataSource.isBlank()) {
            throw new FlowValidationException("a " + kind() + " node needs a data source name (one of the flow host's "
                    + "dataSources).");
        }
        if (sql == null || sql.isBlank()) {
            throw new FlowValidationException("a " + kind() + " node needs an SQL statement.");
        }
        int placeholders = placeholders(sql);
        if (placeholders != parameterCount()) {
            throw new FlowValidationException("the SQL statement has " + placeholders + " placeholder(s) (?) but "
                    + parameterCount() + " parameter path(s) are given: give one path per ? (values from the message are "
                    + "bound to placeholders, never written into the SQL). SQL: " + sql);
        }
    }

    /** How many parameters the node binds: one per {@code ?} of its statement. */
    protected int parameterCount() {
        return parameters.size();
    }

    /** What a node does with its prepared, bound statement. */
    @FunctionalInterface
    protected interface Execution<T> {
        /** Runs the statement and reads its result. */
        T run(PreparedStatement statement) throws SQLException;
    }

    /** Statement work on the invocation's connection: takes its statement, binds it, runs it, reads its result. */
    @FunctionalInterface
    protected interface Work<T> {
        T run() throws SQLException;
    }

    /**
     * Takes the statement prepared on the invocation's connection to the data source, binds each parameter's value from
     * {@code assembly}, and runs it with {@code execution}, as {@link #inStatementScope} says.
     */
    protected final <T> T execute(MessageAssembly assembly, FlowContext context, Execution<T> execution)
            throws SQLException {
        return inStatementScope(context, () -> {
            PreparedStatement statement = context.statement(dataSource, sql);
            for (int i = 0; i < parameters.size(); i++) {
                statement.setObject(i + 1, parameters.get(i).value(assembly));
            }
            return execution.run(statement);
        });
    }

    /**
     * Runs {@code work} on the invocation's connection to the data source. When the connection is in a transaction
     * and the node's {@code failure} terminal is wired, it runs inside a savepoint, and work that fails is undone to
     * it: the invocation's earlier work on the data source stays, and the failure path may go on using the database
     * (PostgreSQL would otherwise refuse every later statement of the transaction, and its commit). A failure of the
     * connection itself (SQLState class 08) is thrown as a {@link DatabaseUnavailableException}.
     */
    protected final <T> T inStatementScope(FlowContext context, Work<T> work) throws SQLException {
        Connection connection = context.connection(dataSource);
        boolean inTransaction = !connection.getAutoCommit();
        StatementSavepoint savepoint = inTransaction && context.isWired(this, "failure")
                ? new StatementSavepoint(connection) : null;
        try {
            T result = work.run();
            if (savepoint != null) {
                savepoint.release();
            }
            return result;
        } catch (SQLException e) {
            if (inTransaction) {
                undo(savepoint, e, context);
            }
            if (!(e instanceof DatabaseUnavailableException) && DatabaseUnavailableException.isConnectionFailure(e)) {
                throw DatabaseUnavailableException.lost(dataSource, e);
            }
            throw e;
        } catch (RuntimeException e) { // a message path that cannot be read: the statement did not run
            if (savepoint != null) {
                undo(savepoint, new SQLException(e), context);
            }
            throw e;
        }
    }

    /**
     * Undoes a failed statement to its savepoint; without one (or when that fails), tells the invocation that the
     * data source's work cannot commit ({@link FlowContext#databaseFailed}).
     */
    private void undo(StatementSavepoint savepoint, SQLException failure, FlowContext context) {
        if (savepoint != null) {
            try {
                savepoint.rollback();
                return;
            } catch (SQLException undo) {
                failure.addSuppressed(undo);
            }
        }
        context.databaseFailed(dataSource, failure);
    }

    /**
     * The savepoint a statement runs in: the driver's, or the same in SQL where the connection refuses the driver's
     * savepoint calls, as an XA connection in a coordinated invocation does (PostgreSQL's XA connection refuses
     * setSavepoint, the XA pool rollback to a savepoint); H2 and PostgreSQL run the SQL inside an XA transaction.
     */
    private static final class StatementSavepoint {
        private final Connection connection;
        /** The driver's savepoint, or null: the savepoint was set in SQL. */
        private final Savepoint savepoint;

        StatementSavepoint(Connection connection) throws SQLException {
            this.connection = connection;
            Savepoint driver = null;
            try {
                driver = connection.setSavepoint(SAVEPOINT);
            } catch (SQLException refused) {
                inSql("SAVEPOINT");
            }
            this.savepoint = driver;
        }

        void release() throws SQLException {
            if (savepoint != null) {
                connection.releaseSavepoint(savepoint);
            } else {
                inSql("RELEASE SAVEPOINT");
            }
        }

        void rollback() throws SQLException {
            if (savepoint != null) {
                try {
                    connection.rollback(savepoint);
                    return;
                } catch (SQLException refused) {
                    // refused by the XA pool inside a transaction: the same in SQL, below
                }
            }
            inSql("ROLLBACK TO SAVEPOINT");
        }

        private void inSql(String command) throws SQLException {
            try (Statement statement = connection.createStatement()) {
                statement.execute(command + " \"" + SAVEPOINT + "\"");
            }
        }
    }

    /**
     * The number of {@code ?} placeholders in {@code sql}: those outside quoted text ({@code '...'}), quoted names
     * ({@code "..."}) and comments; {@code ??} is a literal question mark (the PostgreSQL driver's escape).
     */
    static int placeholders(String sql) {
        int count = 0;
        int n = sql.length();
        for (int i = 0; i < n; i++) {
            char c = sql.charAt(i);
            if (c == '\'' || c == '"') {
                int end = sql.indexOf(c, i + 1);
                while (end >= 0 && end + 1 < n && sql.charAt(end + 1) == c) { // doubled quote inside
                    end = sql.indexOf(c, end + 2);
                }
                i = end < 0 ? n : end;
            } else if (c == '-' && i + 1 < n && sql.charAt(i + 1) == '-') {
                int end = sql.indexOf('\n', i);
                i = end < 0 ? n : end;
            } else if (c == '/' && i + 1 < n && sql.charAt(i + 1) == '*') {
                int end = sql.indexOf("*/", i + 2);
                i = end < 0 ? n : end + 1;
            } else if (c == '?') {
                if (i + 1 < n && sql.charAt(i + 1) == '?') {
                    i++;
                } else {
                    count++;
                }
            }
        }
        return count;
    }
}
