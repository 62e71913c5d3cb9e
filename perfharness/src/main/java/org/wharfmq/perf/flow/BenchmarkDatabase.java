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
    /**
     * The environment variable that points the database workloads at a database server instead of their own H2s:
     * its JDBC URL (e.g. {@code jdbc:postgresql://127.0.0.1:5432/postgres}), used by the flow's data source and by the
     * plain loop in turn (each drops and creates the workload's table first); {@value #USER_VARIABLE} gives the user.
     * Read by the runner and by the server JVM it launches, which inherits it.
     */
    public static final String URL_VARIABLE = "WHARF_PERF_DATABASE";
    /** The user of {@value #URL_VARIABLE}'s database (no password: trust authentication on the loopback). */
    public static final String USER_VARIABLE = "WHARF_PERF_DATABASE_USER";
    /**
     * The system property that does what {@value #URL_VARIABLE} does, and comes first: set by the runner when it starts
     * a PostgreSQL server of its own ({@code --database postgres}), in its JVM and in the server JVMs it starts.
     */
    public static final String URL_PROPERTY = "wharf.perf.database";
    /** The user of {@value #URL_PROPERTY}'s database. */
    public static final String USER_PROPERTY = "wharf.perf.database.user";
    /**
     * The system property that makes the flow's data source {@code xa: true} when {@code true}: set by the runner for
     * {@code --database h2-xa} and {@code postgres-xa}, in its JVM and in the server JVMs it starts.
     */
    public static final String XA_PROPERTY = "wharf.perf.database.xa";
    /** The user of an H2 of the harness's own (H2's default). */
    private static final String H2_USER = "sa";
    /** Its password: none (the database lives in the run's temporary directory only, or trusts the loopback). */
    public static final String PASSWORD = "";

    /** The database server the workloads use ({@value #URL_PROPERTY}, else {@value #URL_VARIABLE}), or null: H2s. */
    private static String server() {
        String property = System.getProperty(URL_PROPERTY);
        return property != null ? property : System.getenv(URL_VARIABLE);
    }

    /**
     * The JDBC URL of the database in {@code directory} (created on first connection), or the database server
     * {@value #URL_PROPERTY} or {@value #URL_VARIABLE} names.
     */
    public static String url(Path directory) {
        String server = server();
        return server != null ? server : "jdbc:h2:" + directory.toAbsolutePath().resolve("perf");
    }

    /** The database user: the database server's ({@value #USER_PROPERTY} or {@value #USER_VARIABLE}), or H2's. */
    public static String user() {
        if (server() == null) {
            return H2_USER;
        }
        String user = System.getProperty(URL_PROPERTY) != null ? System.getProperty(USER_PROPERTY)
                : System.getenv(USER_VARIABLE);
        return user != null ? user : H2_USER;
    }

    /** Creates the tables in the database at {@code url}, dropping those of an earlier run first. */
    public void create(String url) throws SQLException {
        try (Connection c = DriverManager.getConnection(url, user(), PASSWORD); Statement s = c.createStatement()) {
            for (String sql : schema) {
                if (sql.startsWith("CREATE TABLE ")) {
                    s.execute("DROP TABLE IF EXISTS " + sql.substring("CREATE TABLE ".length(), sql.indexOf(' ', 13)));
                }
                s.execute(sql);
            }
        }
    }

    /** The flow's work so far in the database at {@code url}: rows inserted or updates made. */
    public long count(String url) throws SQLException {
        try (Connection c = DriverManager.getConnection(url, user(), PASSWORD); Statement s = c.createStatement();
             ResultSet rows = s.executeQuery(count)) {
            rows.next();
            return rows.getLong(1);
        }
    }
}
