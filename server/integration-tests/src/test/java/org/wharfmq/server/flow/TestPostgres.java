package org.wharfmq.server.flow;

import org.wharfmq.server.PostgresServer;

import java.io.IOException;

/**
 * A real PostgreSQL server for the flow tests: the test kit's {@link PostgresServer} (zonky's binaries, started with
 * {@code initdb} and {@code pg_ctl}, as {@code nobody} when the tests run as root; trust authentication on 127.0.0.1,
 * a free port, a data directory of its own, deleted by {@link #close()}).
 */
final class TestPostgres implements TestDatabase {

    private final PostgresServer server;

    private TestPostgres(PostgresServer server) {
        this.server = server;
    }

    /** Initialises a database cluster and starts its server; returns once it accepts connections. */
    static TestPostgres start() throws IOException, InterruptedException {
        return new TestPostgres(PostgresServer.start());
    }

    /** Kills the server as a crash of its machine would ({@link PostgresServer#kill()}); its data stays. */
    void kill() throws Exception {
        server.kill();
    }

    /** Starts the server again on its data directory (after {@link #kill()}: its crash recovery first). */
    void restart() throws IOException, InterruptedException {
        server.restart();
    }

    @Override
    public String url() {
        return server.url();
    }

    @Override
    public String user() {
        return server.user();
    }

    @Override
    public String password() {
        return "";
    }

    @Override
    public void close() {
        server.close();
    }

    @Override
    public String toString() {
        return "PostgreSQL";
    }
}
