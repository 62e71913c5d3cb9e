package org.wharfmq.perf.flow;

import org.wharfmq.flow.Domain;
import org.wharfmq.flow.MessageAssembly;
import org.wharfmq.flow.MessagePath;
import org.wharfmq.flow.Node;
import org.wharfmq.flow.node.DatabaseNode;
import org.wharfmq.flow.node.DatabaseRetrieveNode;
import org.wharfmq.perf.workload.TempFiles;

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

/**
 * The database workloads' statements (seed 002, "Inserting into a Database", "Updating a row in a Database" and
 * "Reading from a Database using the Database Retrieve Node"): a Database or DatabaseRetrieve node runs one statement with a value from the sale message (its last element, so the whole message is
 * parsed, as the seed's compute node read it) bound as a parameter, on the flow host's data source
 * {@value BenchmarkDatabase#DATA_SOURCE}. Their ceiling ({@link Loop}) runs the same statement with the same value on
 * a connection of its own to an H2 of its own, with no flow engine around it.
 */
final class DatabaseFlows {

    /** The value each statement binds: the sale message's last element. */
    static final String VALUE = "XML/Parent/Last";

    /** F-DB-INSERT: a row per message into an archive table. */
    static final Statement INSERT = new Statement(
            new BenchmarkDatabase(List.of("CREATE TABLE sale_archive (id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, "
                    + "last_element VARCHAR(64) NOT NULL)"), "SELECT COUNT(*) FROM sale_archive"),
            "INSERT INTO sale_archive (last_element) VALUES (?)", false);

    /** F-DB-UPDATE: one row changed per message, counting its updates. */
    static final Statement UPDATE = new Statement(
            new BenchmarkDatabase(List.of("CREATE TABLE sale_total (id INT PRIMARY KEY, last_element VARCHAR(64), "
                            + "updates BIGINT NOT NULL)", "INSERT INTO sale_total VALUES (1, NULL, 0)"),
                    "SELECT updates FROM sale_total WHERE id = 1"),
            "UPDATE sale_total SET last_element = ?, updates = updates + 1 WHERE id = 1", false);

    /**
     * F-DB-RETRIEVE: a DatabaseRetrieve node reads the row keyed by the value into the LocalEnvironment (the output
     * message is the input, unchanged). Nothing is written, so there is no work to count: a query that found no row
     * would leave its request unanswered (noMatch is not wired), which the runner counts as a loss.
     */
    static final Statement RETRIEVE = new Statement(
            new BenchmarkDatabase(List.of("CREATE TABLE sale_customer (last_element VARCHAR(64) PRIMARY KEY, "
                    + "tier VARCHAR(16) NOT NULL)", "INSERT INTO sale_customer VALUES ('Test', 'gold')"), null),
            "SELECT tier FROM sale_customer WHERE last_element = ?", true);

    private DatabaseFlows() {
    }

    /**
     * A workload's statement and the database it needs.
     *
     * @param query whether the statement is a query (a DatabaseRetrieve node) rather than a change (a Database node)
     */
    record Statement(BenchmarkDatabase database, String sql, boolean query) {

        /** The flow's node: the statement with the value bound. */
        Node node() {
            return query ? new DatabaseRetrieveNode(BenchmarkDatabase.DATA_SOURCE, sql, VALUE)
                    : new DatabaseNode(BenchmarkDatabase.DATA_SOURCE, sql, VALUE);
        }

        /** The ceiling's work: a plain JDBC loop of the statement on an H2 of its own. */
        ToIntFunction<byte[]> loop() {
            return new Loop(this);
        }
    }

    /**
     * The ceiling of a database workload: the value read from the message as the node reads it (the same
     * {@link MessagePath} on the message the input node would hand over), bound to the same statement prepared on one
     * connection, run with auto-commit, as the flow's non-transactional invocation runs it (a query's row read). The database is an H2 in a
     * temporary directory, deleted when the loop is closed.
     */
    static final class Loop implements ToIntFunction<byte[]>, AutoCloseable {
        private final Path directory;
        private final Connection connection;
        private final PreparedStatement statement;
        private final MessagePath value = MessagePath.compile(VALUE);
        private final boolean query;
        private final ToIntFunction<byte[]> work;

        Loop(Statement s) {
            query = s.query();
            try {
                directory = Files.createTempDirectory("wharf-perf-ceiling-db");
                String url = BenchmarkDatabase.url(directory);
                s.database().create(url);
                connection = DriverManager.getConnection(url, BenchmarkDatabase.USER, BenchmarkDatabase.PASSWORD);
                statement = connection.prepareStatement(s.sql());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (SQLException e) {
                throw new IllegalStateException("the ceiling's database: " + e.getMessage(), e);
            }
            work = BenchmarkFlow.throughNode(Domain.XML, this::run);
        }

        private MessageAssembly run(MessageAssembly assembly) {
            try {
                statement.setObject(1, value.value(assembly));
                if (!query) {
                    statement.executeUpdate();
                    return assembly;
                }
                try (ResultSet row = statement.executeQuery()) {
                    if (!row.next() || row.getString(1) == null) {
                        throw new IllegalStateException("the ceiling's query found no row for " + value.path());
                    }
                }
                return assembly;
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
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
}
