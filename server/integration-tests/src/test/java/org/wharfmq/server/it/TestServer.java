package org.wharfmq.server.it;

import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.config.ServerConfig;
import org.wharfmq.server.flow.FlowHost;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

/**
 * A real Wharf server for tests, with its flow host as {@code wharf server} runs it: ephemeral TCP port on the loopback interface, an in-VM name no other server in
 * this JVM uses, and a data directory of its own that is deleted when the server is closed.
 */
final class TestServer implements AutoCloseable {

    private static final AtomicInteger SEQUENCE = new AtomicInteger();

    private final WharfServer server;
    private final Path dataDirectory;

    private TestServer(WharfServer server, Path dataDirectory) {
        this.server = server;
        this.dataDirectory = dataDirectory;
    }

    /**
     * Starts a server. {@code customizer} sees a config that already has the test defaults and may override any
     * of them (a fixed in-VM name, limits, predefined queues).
     */
    static TestServer start(UnaryOperator<ServerConfig> customizer) throws Exception {
        Path dataDirectory = Files.createTempDirectory("wharf-it-");
        ServerConfig config = ServerConfig.defaults()
                .host("127.0.0.1")
                .port(0)
                .inVmName("wharf-it-" + SEQUENCE.incrementAndGet())
                .dataDirectory(dataDirectory);
        try {
            // with a flow host, as the distribution runs (the admin command queue: wharf flow, wharf topic list)
            return new TestServer(WharfServer.start(customizer.apply(config), new FlowHost()), dataDirectory);
        } catch (Exception | Error e) {
            deleteRecursively(dataDirectory);
            throw e;
        }
    }

    WharfServer server() {
        return server;
    }

    /** A fresh factory for this server over {@code transport}. */
    WharfConnectionFactory factory(Transport transport) {
        return new WharfConnectionFactory(transport.url(server));
    }

    @Override
    public void close() {
        try {
            server.close();
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
