package org.wharfmq.perf.workload;

import org.wharfmq.perf.flow.BenchmarkDatabase;
import org.wharfmq.server.PostgresServer;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The database a run's F-DB-* workload uses, as {@code --database} says: {@code h2}, the default, an embedded H2 for
 * the flow's data source and one for each of its plain loops (nothing to start here); or {@code postgres}, a PostgreSQL
 * server that the runner starts for the run from zonky's binaries ({@link PostgresServer}) and stops after it, used by
 * the flow's data source and then by its plain loops. The server is named to the runner's JVM and to the server JVMs it
 * starts by the system properties {@value BenchmarkDatabase#URL_PROPERTY} and
 * {@value BenchmarkDatabase#USER_PROPERTY} (docs/benchmarks.md, "The F-DB rows on PostgreSQL"). {@code h2-xa} and
 * {@code postgres-xa} are the same databases with the flow's data source {@code xa: true}
 * ({@value BenchmarkDatabase#XA_PROPERTY}), so that each transactional invocation is an XA transaction.
 */
final class RunDatabase implements AutoCloseable {

    /** The database when {@code --database} is not given. */
    static final String DEFAULT = "h2";
    /** The values {@code --database} takes. */
    static final List<String> KINDS = List.of(DEFAULT, "postgres", "h2-xa", "postgres-xa");

    private final PostgresServer postgres;
    /** Whether the flow's data source is XA. */
    private final boolean xa;

    private RunDatabase(PostgresServer postgres, boolean xa) {
        this.postgres = postgres;
        this.xa = xa;
    }

    /** Starts the database {@code kind} ({@link #KINDS}) names, if it is a server. */
    static RunDatabase start(String kind, Consumer<String> progress) throws Exception {
        boolean xa = kind.endsWith("-xa");
        if (xa) {
            System.setProperty(BenchmarkDatabase.XA_PROPERTY, "true");
            progress.accept("database: the flow's data source is xa: true (an XA transaction per transactional "
                    + "invocation)");
        }
        if (!kind.startsWith("postgres")) {
            return new RunDatabase(null, xa);
        }
        PostgresServer postgres = PostgresServer.start();
        System.setProperty(BenchmarkDatabase.URL_PROPERTY, postgres.url());
        System.setProperty(BenchmarkDatabase.USER_PROPERTY, postgres.user());
        progress.accept("database: PostgreSQL at " + postgres.url() + " (zonky's binaries, fsync off), for the flow's "
                + "data source and then its plain loops");
        return new RunDatabase(postgres, xa);
    }

    /** What the server JVMs the runner starts need to find the database (none for H2), and whether it is XA. */
    List<String> jvmOptions() {
        List<String> options = new ArrayList<>();
        if (postgres != null) {
            options.add("-D" + BenchmarkDatabase.URL_PROPERTY + "=" + postgres.url());
            options.add("-D" + BenchmarkDatabase.USER_PROPERTY + "=" + postgres.user());
        }
        if (xa) {
            options.add("-D" + BenchmarkDatabase.XA_PROPERTY + "=true");
        }
        return options;
    }

    /** Stops the database server the run started, if any. */
    @Override
    public void close() {
        if (xa) {
            System.clearProperty(BenchmarkDatabase.XA_PROPERTY);
        }
        if (postgres != null) {
            System.clearProperty(BenchmarkDatabase.URL_PROPERTY);
            System.clearProperty(BenchmarkDatabase.USER_PROPERTY);
            postgres.close();
        }
    }
}
