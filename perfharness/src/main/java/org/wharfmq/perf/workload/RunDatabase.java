package org.wharfmq.perf.workload;

import org.wharfmq.perf.flow.BenchmarkDatabase;
import org.wharfmq.server.PostgresServer;

import java.util.List;
import java.util.function.Consumer;

/**
 * The database a run's F-DB-* workload uses, as {@code --database} says: {@code h2}, the default, an embedded H2 for
 * the flow's data source and one for each of its plain loops (nothing to start here); or {@code postgres}, a PostgreSQL
 * server that the runner starts for the run from zonky's binaries ({@link PostgresServer}) and stops after it, used by
 * the flow's data source and then by its plain loops. The server is named to the runner's JVM and to the server JVMs it
 * starts by the system properties {@value BenchmarkDatabase#URL_PROPERTY} and
 * {@value BenchmarkDatabase#USER_PROPERTY} (docs/benchmarks.md, "The F-DB rows on PostgreSQL").
 */
final class RunDatabase implements AutoCloseable {

    /** The database when {@code --database} is not given. */
    static final String DEFAULT = "h2";
    /** The values {@code --database} takes. */
    static final List<String> KINDS = List.of(DEFAULT, "postgres");

    private final PostgresServer postgres;

    private RunDatabase(PostgresServer postgres) {
        this.postgres = postgres;
    }

    /** Starts the database {@code kind} ({@link #KINDS}) names, if it is a server. */
    static RunDatabase start(String kind, Consumer<String> progress) throws Exception {
        if (!kind.equals("postgres")) {
            return new RunDatabase(null);
        }
        PostgresServer postgres = PostgresServer.start();
        System.setProperty(BenchmarkDatabase.URL_PROPERTY, postgres.url());
        System.setProperty(BenchmarkDatabase.USER_PROPERTY, postgres.user());
        progress.accept("database: PostgreSQL at " + postgres.url() + " (zonky's binaries, fsync off), for the flow's "
                + "data source and then its plain loops");
        return new RunDatabase(postgres);
    }

    /** What the server JVMs the runner starts need to find the database: none for H2. */
    List<String> jvmOptions() {
        return postgres == null ? List.of() : List.of("-D" + BenchmarkDatabase.URL_PROPERTY + "=" + postgres.url(),
                "-D" + BenchmarkDatabase.USER_PROPERTY + "=" + postgres.user());
    }

    /** Stops the database server the run started, if any. */
    @Override
    public void close() {
        if (postgres != null) {
            System.clearProperty(BenchmarkDatabase.URL_PROPERTY);
            System.clearProperty(BenchmarkDatabase.USER_PROPERTY);
            postgres.close();
        }
    }
}
