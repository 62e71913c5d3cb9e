package org.wharfmq.server;

import org.wharfmq.server.config.ServerConfig;

import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

/** Test configurations: loopback, ephemeral port, an in-VM name of their own. */
public final class TestServers {

    private static final AtomicInteger SEQUENCE = new AtomicInteger();

    private TestServers() {
    }

    /**
     * Defaults suitable for one server among many in the same JVM, each with a data directory (journal) of its
     * own under target/, so no test recovers another's messages.
     */
    public static ServerConfig config() {
        int n = SEQUENCE.incrementAndGet();
        return ServerConfig.defaults()
                .dataDirectory(Path.of("target", "test-data", ProcessHandle.current().pid() + "-" + n))
                .name("TESTQM")
                .host("127.0.0.1")
                .port(0)
                .inVmName("wharf-test-" + n);
    }
}
