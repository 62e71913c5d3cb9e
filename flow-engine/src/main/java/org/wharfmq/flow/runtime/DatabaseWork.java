package org.wharfmq.flow.runtime;

import org.wharfmq.flow.DatabaseUnavailableException;

import javax.sql.DataSource;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The database side of one flow reader's invocations: the connection an invocation takes from each data source
 * it uses (from the pool, on first use), the statements its Database nodes prepare on it, and their end with the
 * invocation. A transactional reader keeps its connections in manual commit: {@link #commit()} commits them (in the
 * order taken) right before the reader commits the message's transaction, and {@link #rollback()} rolls them back
 * with it. A non-transactional reader's connections commit each statement at once.
 *
 * <p>A reader that {@linkplain #keepWhileBusy() keeps its connections} does not give a connection back at the end of
 * an invocation that ended well: the next invocation finds it, and the statements prepared on it, as they were (per
 * message no pool borrow and return, no prepare, no commit-mode change and reset). It gives them back when its read
 * finds no message ({@link #idle()}), at the first invocation's end past
 * {@link FlowConfiguration#KEEP_CONNECTION_MILLIS} since it took them (a pool smaller than its readers then makes
 * none wait long), after a failed invocation or commit (a broken connection goes back to the pool, which drops it),
 * and when it stops ({@link #close()}). Between invocations a kept connection holds no transaction: its work was
 * committed. Other readers give their connections back at the end of each invocation.
 *
 * <p>Not a coordinated (XA) transaction: a crash, or a failed message commit, after the database commit leaves the
 * database work done and the message delivered again (docs/flows.md, "Databases"). A coordinated reader's
 * connections come from XA pools that enlist them in the invocation's transaction, which the transaction manager
 * completes: then {@link #commit()} and {@link #rollback()} only give them back (the pool returns them once the
 * transaction has ended), and they are never kept. Confined to its reader's thread.
 */
final class DatabaseWork {

    private static final System.Logger LOG = System.getLogger(DatabaseWork.class.getName());
    private static final long KEEP_NANOS = TimeUnit.MILLISECONDS.toNanos(FlowConfiguration.KEEP_CONNECTION_MILLIS);

    private final String flowName;
    private final Map<String, DataSource> dataSources;
    private final boolean transactional;
    /** Whether the transaction manager commits and rolls back (the connections enlisted by their XA pools). */
    private final boolean coordinated;
    private final LongSupplier clock;
    /** Whether connections are kept from one invocation to the next ({@link #keepWhileBusy()}). */
    private boolean keep;
    /** The invocation's connections, by data source, in the order taken. */
    private final Map<String, Held> open = new LinkedHashMap<>(4);
    /** Connections kept from earlier invocations, by data source, not used by this one yet. */
    private final Map<String, Held> kept = new HashMap<>(4);
    /** A statement that failed in the invocation's transaction and was not undone, or null. */
    private String failedDataSource;
    private SQLException failure;

    DatabaseWork(String flowName, Map<String, DataSource> dataSources, boolean transactional) {
        this(flowName, dataSources, transactional, false);
    }

    /** @param coordinated whether the invocation's transaction manager completes the work (then it is transactional) */
    DatabaseWork(String flowName, Map<String, DataSource> dataSources, boolean transactional, boolean coordinated) {
        this(flowName, dataSources, transactional, coordinated, System::nanoTime);
    }

    /** @param clock the time in ns ({@link System#nanoTime()}), against which a kept connection's age is told */
    DatabaseWork(String flowName, Map<String, DataSource> dataSources, boolean transactional, boolean coordinated,
                 LongSupplier clock) {
        this.flowName = flowName;
        this.dataSources = dataSources;
        this.transactional = transactional || coordinated;
        this.coordinated = coordinated;
        this.clock = clock;
    }

    /**
     * Keeps the connections (and their prepared statements) from one invocation to the next while the reader is
     * busy; the reader then calls {@link #idle()} whenever its read finds nothing, and {@link #close()} when it stops.
     * Not for a coordinated reader, whose connections end with each transaction.
     */
    void keepWhileBusy() {
        keep = !coordinated;
    }

    /** The invocation's connection to data source {@code name}, taken from its pool on first use. */
    Connection connection(String name) throws SQLException {
        return held(name).connection;
    }

    /**
     * The statement {@code sql} prepared on the invocation's connection to data source {@code name}: prepared once
     * per connection taken, and closed when the connection is given back (not by the caller). Set all its
     * parameters before each run: they are those of its last.
     */
    PreparedStatement statement(String name, String sql) throws SQLException {
        return prepared(name, sql, false);
    }

    /**
     * The call {@code sql} prepared ({@link Connection#prepareCall}) on the invocation's connection to data source
     * {@code name}, kept as {@link #statement} keeps its statements.
     */
    CallableStatement call(String name, String sql) throws SQLException {
        return (CallableStatement) prepared(name, sql, true);
    }

    private PreparedStatement prepared(String name, String sql, boolean call) throws SQLException {
        Held held = held(name);
        Map<String, PreparedStatement> prepared = call ? held.calls : held.statements;
        PreparedStatement statement = prepared.get(sql);
        if (statement == null) {
            statement = call ? held.connection.prepareCall(sql) : held.connection.prepareStatement(sql);
            prepared.put(sql, statement);
        }
        return statement;
    }

    private Held held(String name) throws SQLException {
        Held held = open.get(name);
        if (held != null) {
            return held;
        }
        held = kept.remove(name);
        if (held == null) {
            held = take(name);
        }
        open.put(name, held);
        return held;
    }

    private Held take(String name) throws SQLException {
        DataSource dataSource = dataSources.get(name);
        if (dataSource == null) {
            throw new IllegalArgumentException(RunningFlow.unknownDataSource(flowName, name, dataSources));
        }
        Connection connection;
        try {
            connection = dataSource.getConnection(); // coordinated: enlisted in the thread's transaction by its pool
        } catch (DatabaseUnavailableException e) { // the flow host's pools name their timeout
            throw e;
        } catch (SQLException e) {
            throw new DatabaseUnavailableException(name, 0, e);
        }
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
        return new Held(connection, clock.getAsLong());
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
        for (Held held : open.values()) {
            Connection connection = held.connection;
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
        }
        long now = keep && failure == null ? clock.getAsLong() : 0;
        for (Map.Entry<String, Held> entry : open.entrySet()) {
            if (keep && failure == null && now - entry.getValue().taken < KEEP_NANOS && usable(entry.getValue())) {
                kept.put(entry.getKey(), entry.getValue());
            } else {
                giveBack(entry.getValue());
            }
        }
        clear();
        if (failure != null) {
            throw failure;
        }
    }

    /**
     * Rolls back the invocation's database work (transactional) and gives its connections back. After a commit
     * there is none: the kept connections stay kept.
     */
    void rollback() {
        if (open.isEmpty()) {
            return;
        }
        for (Map.Entry<String, Held> entry : open.entrySet()) {
            try {
                if (transactional && !coordinated) {
                    entry.getValue().connection.rollback();
                }
            } catch (SQLException | RuntimeException e) {
                // the database ends the transaction itself when the connection is gone; the pool drops the connection
                LOG.log(System.Logger.Level.WARNING, "Flow '" + flowName + "': rolling back the work on data source '"
                        + entry.getKey() + "' failed: " + e);
            }
            giveBack(entry.getValue());
        }
        clear();
    }

    /** The reader's read found no message: the connections kept from its last invocations go back to their pools. */
    void idle() {
        if (kept.isEmpty()) {
            return;
        }
        kept.values().forEach(this::giveBack);
        kept.clear();
    }

    /** The reader stops: its invocation's work rolls back and every connection goes back. */
    void close() {
        rollback();
        idle();
    }

    private void clear() {
        open.clear();
        failedDataSource = null;
        failure = null;
    }

    /** Whether a connection may be kept: not closed (the pool closes one that a statement found broken). */
    private boolean usable(Held held) {
        try {
            return !held.connection.isClosed();
        } catch (SQLException | RuntimeException e) {
            return false;
        }
    }

    /** Closes the statements prepared on a connection, then gives it back to its pool. */
    private void giveBack(Held held) {
        held.statements.values().forEach(this::close);
        held.calls.values().forEach(this::close);
        close(held.connection);
    }

    private void close(PreparedStatement statement) {
        try {
            statement.close();
        } catch (SQLException | RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "Flow '" + flowName + "': closing a statement failed: " + e);
        }
    }

    private void close(Connection connection) {
        try {
            connection.close();
        } catch (SQLException | RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "Flow '" + flowName + "': giving a connection back failed: " + e);
        }
    }

    /** A connection taken from a pool, when (clock), and the statements and calls prepared on it, by SQL. */
    private static final class Held {
        final Connection connection;
        final long taken;
        final Map<String, PreparedStatement> statements = new HashMap<>(4);
        final Map<String, PreparedStatement> calls = new HashMap<>(2);

        Held(Connection connection, long taken) {
            this.connection = connection;
            this.taken = taken;
        }
    }
}
