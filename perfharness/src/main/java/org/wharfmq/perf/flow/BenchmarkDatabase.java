package org.wharfmq.perf.flow;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * The database of the database workloads (F-DB-*): an embedded H2 in files of its own (no setup, as the sample
 * configuration's), its tables, and how many rows the flow has written, which the runner checks against the flow's
 * invocations. The flow's data source and the ceiling's plain loop each open one of these in a directory of their own.
 *
 * @param schema the statements that create the tables and the rows the workload's statement needs
 * @param count  a query whose one number is the flow's work so far: rows inserted, or updates made; null when the
 *               flow writes nothing
 */
public record BenchmarkDatabase(List<String> schema, String count) {

    /** The name of the flow host's data source the workloads' Database nodes use. */
    public static final String DATA_SOURCE = "perf";
    /** The database user (H2's default; the database is the harness's own). */
    public static final String USER = "sa";
    /** Its password: none (the database lives in the run's temporary directory only). */
    public static final String PASSWORD = "";

    /** The JDBC URL of the database in {@code directory} (created on first connection). */
    public static String url(Path directory) {
        return "jdbc:h2:" + directory.toAbsolutePath().resolve("perf");
    }

    /** Creates the tables in the database at {@code url}. */
    public void create(String url) throws SQLException {
        try (Connection c = DriverManager.getConnection(url, USER, PASSWORD); Statement s = c.createStatement()) {
            for (String sql : schema) {
                s.execute(sql);
            }
        }
    }

    /** The flow's work so far in the database at {@code url}: rows inserted or updates made. */
    public long count(String url) throws SQLException {
        try (Connection c = DriverManager.getConnection(url, USER, PASSWORD); Statement s = c.createStatement();
             ResultSet rows = s.executeQuery(count)) {
            rows.next();
            return rows.getLong(1);
        }
    }
}
