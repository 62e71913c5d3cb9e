package org.wharfmq.perf.flow;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.wharfmq.flow.Domain;
import org.wharfmq.flow.MessagePath;
import org.wharfmq.flow.Node;
import org.wharfmq.flow.node.DatabaseNode;
import org.wharfmq.flow.node.DatabaseRetrieveNode;
import org.wharfmq.flow.node.DatabaseRouteNode;
import org.wharfmq.perf.workload.TempFiles;
import org.wharfmq.server.flow.DataSourceConfig;

import javax.jms.BytesMessage;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.Session;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.function.ToIntFunction;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The database workloads' statements (seed 002, "Inserting into a Database", "Updating a row in a Database",
 * "Reading from a Database using the Database Retrieve Node" and "Using Database Route Node to Route an Incoming Message
 * Based on Data in a Database"): a Database, DatabaseRetrieve or DatabaseRoute node runs one statement with a value
 * from the sale message (its last element, so the whole message is parsed, as the seed's compute node read it) bound
 * as a parameter, on the flow host's data source
 * {@value BenchmarkDatabase#DATA_SOURCE}. Their plain loop ({@link Loop}), the one issue 36's target is judged
 * against, runs the same statement with the same value on a connection of its own to a database of its own, with no
 * messaging and no flow engine around it. Their second loop is a JMS application with no flow engine
 * ({@link JmsLoop}) that runs the statement through a HikariCP pool of its own ({@link PooledStatement}).
 */
final class DatabaseFlows {

    /** The value each statement binds: the sale message's last element. */
    static final String VALUE = "XML/Parent/Last";

    /** F-DB-INSERT: a row per message into an archive table. */
    static final Statement INSERT = new Statement(
            new BenchmarkDatabase(List.of("CREATE TABLE sale_archive (id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, "
                    + "last_element VARCHAR(64) NOT NULL)"), "SELECT COUNT(*) FROM sale_archive"),
            "INSERT INTO sale_archive (last_element) VALUES (?)", Kind.CHANGE);

    /** F-DB-UPDATE: one row changed per message, counting its updates. */
    static final Statement UPDATE = new Statement(
            new BenchmarkDatabase(List.of("CREATE TABLE sale_total (id INT PRIMARY KEY, last_element VARCHAR(64), "
                            + "updates BIGINT NOT NULL)", "INSERT INTO sale_total VALUES (1, NULL, 0)"),
                    "SELECT updates FROM sale_total WHERE id = 1"),
            "UPDATE sale_total SET last_element = ?, updates = updates + 1 WHERE id = 1", Kind.CHANGE);

    /**
     * F-DB-RETRIEVE: a DatabaseRetrieve node reads the row keyed by the value into the LocalEnvironment (the output
     * message is the input, unchanged). Nothing is written, so there is no work to count: a query that found no row
     * would leave its request unanswered (noMatch is not wired), which the runner counts as a loss.
     */
    static final Statement RETRIEVE = new Statement(customers(),
            "SELECT tier FROM sale_customer WHERE last_element = ?", Kind.RETRIEVE);

    /**
     * F-DB-ROUTE: a DatabaseRoute node looks the value up in the same table as F-DB-RETRIEVE's and sends the message on
     * from its match terminal when the query finds a row (it always does, as in the seed's test); the output message
     * is the input, unchanged. A query that found no row would take the unwired noMatch terminal: a loss, counted.
     */
    static final Statement ROUTE = new Statement(customers(),
            "SELECT 1 FROM sale_customer WHERE last_element = ?", Kind.ROUTE);

    private DatabaseFlows() {
    }

    /** The table F-DB-RETRIEVE and F-DB-ROUTE query: the sale message's last element ({@code Test}) has a row. */
    private static BenchmarkDatabase customers() {
        return new BenchmarkDatabase(List.of("CREATE TABLE sale_customer (last_element VARCHAR(64) PRIMARY KEY, "
                + "tier VARCHAR(16) NOT NULL)", "INSERT INTO sale_customer VALUES ('Test', 'gold')"), null);
    }

    /** What a workload's statement is, and so which node runs it. */
    enum Kind {
        /** A change (insert, update): a Database node, its {@code out} terminal. */
        CHANGE("out"),
        /** A query whose row goes into the LocalEnvironment: a DatabaseRetrieve node, its {@code out} terminal. */
        RETRIEVE("out"),
        /** A query that decides the route: a DatabaseRoute node, its {@code match} terminal. */
        ROUTE("match");

        /** The node's terminal wired to the output. */
        final String terminal;

        Kind(String terminal) {
            this.terminal = terminal;
        }
    }

    /**
     * A workload's statement and the database it needs.
     *
     * @param kind a change (a Database node), a query into the tree (DatabaseRetrieve) or one that routes (DatabaseRoute)
     */
    record Statement(BenchmarkDatabase database, String sql, Kind kind) {

        /** The flow's node: the statement with the value bound. */
        Node node() {
            return switch (kind) {
                case CHANGE -> new DatabaseNode(BenchmarkDatabase.DATA_SOURCE, sql, VALUE);
                case RETRIEVE -> new DatabaseRetrieveNode(BenchmarkDatabase.DATA_SOURCE, sql, VALUE);
                case ROUTE -> new DatabaseRouteNode(BenchmarkDatabase.DATA_SOURCE, sql, VALUE);
            };
        }

        /** The node's terminal the flow's output is wired to. */
        String terminal() {
            return kind.terminal;
        }

        /** The plain loop: the statement alone, on a connection of its own ({@link Loop}). */
        ToIntFunction<byte[]> loop() {
            return new Loop(this);
        }

        /**
         * The second loop: a JMS application receiving the flow's input, running the statement through a pool
         * ({@link PooledStatement}) and replying with the body, persistent and transacted when the run is.
         */
        JmsLoop jmsApplication(SaleFlow flow, boolean persistent) {
            return new JmsLoop(flow.inputQueue(), flow.outputQueue(), persistent, new PooledStatement(this, persistent));
        }

        /** Creates the statement's tables in a database of the loop's own: an H2 in {@code directory}, or the server's. */
        String createDatabase(Path directory) {
            try {
                String url = BenchmarkDatabase.url(directory);
                database.create(url);
                return url;
            } catch (SQLException e) {
                throw new IllegalStateException("the ceiling's database: " + e.getMessage(), e);
            }
        }

        /**
         * Binds {@code value} and runs the statement (a query's row read; for a route, whether there is one), as the
         * node does.
         */
        void execute(PreparedStatement statement, Object value) throws SQLException {
            statement.setObject(1, value);
            if (kind == Kind.CHANGE) {
                statement.executeUpdate();
                return;
            }
            try (ResultSet row = statement.executeQuery()) {
                if (!row.next() || (kind == Kind.RETRIEVE && row.getString(1) == null)) {
                    throw new IllegalStateException("the ceiling's query found no row for " + VALUE);
                }
            }
        }
    }

    /**
     * The plain loop of a database workload, the node's work alone: the value read from the message as the node reads
     * it (the same {@link MessagePath} on the message the input node would hand over), bound to the same statement
     * prepared on one connection, run with auto-commit, as the flow's non-transactional invocation runs it (a query's
     * row read). The database is an H2 in a temporary directory, deleted when the loop is closed, or the database
     * server the run names ({@link BenchmarkDatabase#url}).
     */
    static final class Loop implements ToIntFunction<byte[]>, AutoCloseable {
        private final Path directory;
        private final Connection connection;
        private final PreparedStatement statement;
        private final ToIntFunction<byte[]> work;

        Loop(Statement s) {
            try {
                directory = Files.createTempDirectory("wharf-perf-ceiling-db");
                connection = DriverManager.getConnection(s.createDatabase(directory), BenchmarkDatabase.user(),
                        BenchmarkDatabase.PASSWORD);
                statement = connection.prepareStatement(s.sql());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (SQLException e) {
                throw new IllegalStateException("the ceiling's database: " + e.getMessage(), e);
            }
            MessagePath value = MessagePath.compile(VALUE);
            work = BenchmarkFlow.throughNode(Domain.XML, assembly -> {
                try {
                    s.execute(statement, value.value(assembly));
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
                return assembly;
            });
        }

        @Override
        public int applyAsInt(byte[] body) {
            return work.applyAsInt(body);
        }

        @Override
        public void close() throws SQLException {
            try {
                connection.close();
            } finally {
                TempFiles.deleteTree(directory);
            }
        }
    }

    /**
     * The database work of a database workload's second loop, as a JMS application written without a flow engine does
     * it for each request: the value read from the body as the node reads it (the same {@link MessagePath} on the
     * message the input node would hand over), a connection borrowed from a HikariCP pool set up as the flow host's
     * data sources are (its pool size and connection timeout; {@code DataSourcePools}), the statement prepared, bound,
     * run (a query's row read) and closed, the connection given back; auto-commit, or for a persistent run a local
     * transaction committed before the message's, as the flow's transactional invocation commits it. The reply is a
     * new bytes message with the request's body, as the flow's output is its input. The database is an H2 in a
     * temporary directory, deleted when the loop is closed, or the database server the run names
     * ({@link BenchmarkDatabase#url}).
     */
    static final class PooledStatement implements JmsLoop.FlowWork {
        private final Path directory;
        private final String url;
        private final HikariDataSource pool;
        private final Statement statement;
        private final boolean transactional;
        private final JmsLoop.FlowWork replying;
        /** The pool's INFO lines (its start and shutdown) would land among the runner's progress lines. */
        private final Logger poolLog = Logger.getLogger("com.zaxxer.hikari");
        private final Level poolLogLevel = poolLog.getLevel();

        PooledStatement(Statement s, boolean transactional) {
            this.statement = s;
            this.transactional = transactional;
            try {
                directory = Files.createTempDirectory("wharf-perf-ceiling-db");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            url = s.createDatabase(directory);
            DataSourceConfig settings = new DataSourceConfig(BenchmarkDatabase.DATA_SOURCE, url, BenchmarkDatabase.user(),
                    BenchmarkDatabase.PASSWORD);
            HikariConfig config = new HikariConfig();
            config.setPoolName("wharf-perf-ceiling");
            config.setJdbcUrl(url);
            config.setUsername(settings.user());
            config.setPassword(settings.password());
            config.setMaximumPoolSize(settings.poolSize());
            config.setMinimumIdle(0);
            config.setConnectionTimeout(settings.connectionTimeoutMillis());
            config.setAutoCommit(!transactional);
            poolLog.setLevel(Level.WARNING);
            pool = new HikariDataSource(config);
            MessagePath value = MessagePath.compile(VALUE);
            replying = JmsLoop.FlowWork.replying(BenchmarkFlow.nodeOutput(Domain.XML, assembly -> {
                run(value.value(assembly));
                return assembly;
            }));
        }

        @Override
        public Message apply(BytesMessage read, Session flowSession) throws JMSException {
            return replying.apply(read, flowSession);
        }

        private void run(Object value) {
            try (Connection connection = pool.getConnection();
                 PreparedStatement prepared = connection.prepareStatement(statement.sql())) {
                statement.execute(prepared, value);
                if (transactional) {
                    connection.commit();
                }
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        }

        /** The work done so far in the loop's database: rows inserted or updates made (as the runner counts the flow's). */
        long count() throws SQLException {
            return statement.database().count(url);
        }

        @Override
        public void close() throws IOException {
            try {
                pool.close();
            } finally {
                TempFiles.deleteTree(directory);
                poolLog.setLevel(poolLogLevel);
            }
        }
    }
}
