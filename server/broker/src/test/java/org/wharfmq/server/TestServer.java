package org.wharfmq.server;

import org.wharfmq.server.config.ServerConfig;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

/**
 * The one way tests start a real Wharf server: on the loopback interface at an ephemeral TCP port, under an in-VM
 * name no other server in this JVM uses, with a data directory (journal, kept flows) of its own that is deleted when
 * this is closed, so no test recovers another's messages. A test may stop the server and start it again on the same
 * data directory (recovery, restarts), with its configuration changed if it likes.
 */
public final class TestServer implements AutoCloseable {

    private static final AtomicInteger SEQUENCE = new AtomicInteger();

    private final Path dataDirectory;
    private final Starter starter;
    private ServerConfig config;
    private WharfServer server;

    /** Starts a queue manager from its config: {@link WharfServer#start(ServerConfig)}, or with a test's own store or clock. */
    @FunctionalInterface
    public interface Starter {
        WharfServer start(ServerConfig config) throws Exception;
    }

    private TestServer(Path dataDirectory, ServerConfig config, Starter starter) {
        this.dataDirectory = dataDirectory;
        this.config = config;
        this.starter = starter;
    }

    /** Starts a server with the test defaults. */
    public static TestServer start() throws Exception {
        return start(UnaryOperator.identity());
    }

    /**
     * Starts a server. {@code customizer} sees a config that already has the test defaults and may override any of
     * them (limits, predefined queues, flows); it must keep the data directory.
     */
    public static TestServer start(UnaryOperator<ServerConfig.Builder> customizer) throws Exception {
        return start(customizer, WharfServer::start);
    }

    /** As {@link #start(UnaryOperator)}, started (and restarted) by {@code starter}: a store or a clock of the test's. */
    public static TestServer start(UnaryOperator<ServerConfig.Builder> customizer, Starter starter) throws Exception {
        Path dataDirectory = Files.createTempDirectory("wharf-test-");
        TestServer testServer = null;
        try {
            ServerConfig config = customizer.apply(ServerConfig.builder()
                    .host("127.0.0.1")
                    .port(0)
                    .inVmName("wharf-test-" + SEQUENCE.incrementAndGet())
                    .dataDirectory(dataDirectory)).build();
            testServer = new TestServer(dataDirectory, config, starter);
            testServer.restart();
            return testServer;
        } catch (Exception | Error e) {
            if (testServer != null) {
                testServer.close();
            } else {
                deleteRecursively(dataDirectory);
            }
            throw e;
        }
    }

    /** The running server. */
    public WharfServer server() {
        if (server == null) {
            throw new IllegalStateException("The test server is stopped");
        }
        return server;
    }

    /** The configuration the server was (last) started with; changes take effect at the next {@link #restart}. */
    public ServerConfig config() {
        return config;
    }

    /** Stops the server and keeps its data directory, for a later {@link #restart}. */
    public void stop() {
        WharfServer running = server;
        server = null;
        if (running != null) {
            running.close();
        }
    }

    /** Stops the server if it runs and starts it again on the same data directory. */
    public WharfServer restart() throws Exception {
        return restart(UnaryOperator.identity());
    }

    /** As {@link #restart()}, with the configuration changed by {@code change} (which must keep the data directory). */
    public WharfServer restart(UnaryOperator<ServerConfig.Builder> change) throws Exception {
        stop();
        config = change.apply(config.toBuilder()).build();
        if (!config.dataDirectory().equals(dataDirectory)) {
            throw new IllegalArgumentException("A test server keeps its data directory " + dataDirectory
                    + " (deleted at close); the config names " + config.dataDirectory());
        }
        server = starter.start(config);
        return server;
    }

    /** Stops the server and deletes its data directory. */
    @Override
    public void close() {
        try {
            stop();
        } finally {
            deleteRecursively(dataDirectory);
        }
    }

    private static void deleteRecursively(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
