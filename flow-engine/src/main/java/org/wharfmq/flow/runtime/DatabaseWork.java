package org.wharfmq.flow.runtime;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The database side of one flow instance's invocations: the connection an invocation takes from each data source
 * it uses (from the pool, on first use), and their end with the invocation. A transactional instance keeps its
 * connections in manual commit: {@link #commit()} commits them (in the order taken) right before the instance commits
 * the message's transaction, and {@link #rollback()} rolls them back with it. A non-transactional instance's
 * connections commit each statement at once. Either way the connections go back to their pools when the invocation
 * ends, so an instance holds no connection between messages.
 *
 * <p>Not a coordinated (XA) transaction: a crash, or a failed message commit, after the database commit leaves the
 * database work done and the message delivered again (docs/flows.md, "Databases"). A coordinated instance's
 * connections come from XA pools that enlist them in the invocation's transaction, which the transaction manager
 * completes: then {@link #commit()} and {@link #rollback()} only give them back (the pool returns them once the
 * transaction has ended). Confined to its instance's thread.
 */
final class DatabaseWork {

    private static final System.Logger LOG = System.getLogger(DatabaseWork.class.getName());

    private final String flowName;
    private final Map<String, DataSource> dataSources;
    private final boolean transactional;
    /** Whether the transaction manager commits and rolls back (the connections enlisted by their XA pools). */
    private final boolean coordinated;
    /** The invocation's connections, by data source, in the order taken. */
    private final Map<String, Connection> open = new LinkedHashMap<>(4);
    /** A statement that failed in the invocation's transaction and was not undone, or null. */
    private String failedDataSource;
    private SQLException failure;

    DatabaseWork(String flowName, Map<String, DataSource> dataSources, boolean transactional) {
        this(flowName, dataSources, transactional, false);
    }

    /** @param coordinated whether the invocation's transaction manager completes the work (then it is transactional) */
    DatabaseWork(String flowName, Map<String, DataSource> dataSources, boolean transactional, boolean coordinated) {
        this.flowName = flowName;
        this.dataSources = dataSources;
        this.transactional = transactional || coordinated;
        this.coordinated = coordinated;
    }

    /** The invocation's connection to data source {@code name}, taken from its pool on first use. */
    Connection connection(String name) throws SQLException {
        Connection connection = open.get(name);
        if (connection != null) {
            return connection;
        }
        DataSource dataSource = dataSources.get(name);
        if (dataSource == null) {
            throw new IllegalArgumentException(RunningFlow.unknownDataSource(flowName, name, dataSources));
        }
        connection = dataSource.getConnection(); // coordinated: enlisted in the thread's transaction by its pool
        if (!coordinated) { // a coordinated connection's commit mode is its transaction's
            try {
                if (connection.getAutoCommit() == transactional) {
                    connection.setAutoCommit(!transactional);
                }
            } catch (SQLException | RuntimeException e) {
                close(connection);
                throw e;
            }
        }
        open.put(name, connection);
        return connection;
    }

    /** A statement on {@code name} failed in the transaction and was not undone: the work cannot commit. */
    void failed(String name, SQLException cause) {
        if (transactional && failure == null && open.containsKey(name)) {
            failedDataSource = name;
            failure = cause;
        }
    }

    /**
     * Commits the invocation's database work (transactional: each connection in the order taken; once one fails, the
     * rest roll back) and gives the connections back.
     *
     * @throws SQLException the first commit that failed: the caller rolls the message back
     */
    void commit() throws SQLException {
        if (open.isEmpty()) {
            return;
        }
        SQLException failure = null;
        if (this.failure != null) {
            failure = new SQLException("Flow '" + flowName + "': a statement on data source '" + failedDataSource
                    + "' failed earlier in this invocation and was caught, but not undone (" + this.failure
                    + "); that work cannot commit, so the invocation rolls back. Wire the Database node's failure "
                    + "terminal (its statement is then undone alone) instead of catching the failure further on.",
                    this.failure);
        }
        for (Connection connection : open.values()) {
            try {
                // coordinated: the transaction manager commits (or, on a failure, the caller rolls back)
                if (transactional && !coordinated && failure == null) {
                    connection.commit();
                } else if (transactional && !coordinated) {
                    connection.rollback();
                }
            } catch (SQLException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
            close(connection);
        }
        clear();
        if (failure != null) {
            throw failure;
        }
    }

    /** Rolls back the invocation's database work (transactional) and gives the connections back. */
    void rollback() {
        if (open.isEmpty()) {
            return;
        }
        for (Map.Entry<String, Connection> entry : open.entrySet()) {
            try {
                if (transactional && !coordinated) {
                    entry.getValue().rollback();
                }
            } catch (SQLException | RuntimeException e) {
                // the database ends the transaction itself when the connection is gone; the pool drops the connection
                LOG.log(System.Logger.Level.WARNING, "Flow '" + flowName + "': rolling back the work on data source '"
                        + entry.getKey() + "' failed: " + e);
            }
            close(entry.getValue());
        }
        clear();
    }

    private void clear() {
        open.clear();
        failedDataSource = null;
        failure = null;
    }

    private void close(Connection connection) {
        try {
            connection.close();
        } catch (SQLException | RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "Flow '" + flowName + "': giving a connection back failed: " + e);
        }
    }
}
