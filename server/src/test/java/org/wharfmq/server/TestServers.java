package org.wharfmq.server;

import org.wharfmq.server.config.ServerConfig;

import java.util.concurrent.atomic.AtomicInteger;

/** Test configurations: loopback, ephemeral port, an in-VM name of their own. */
public final class TestServers {

    private static final AtomicInteger SEQUENCE = new AtomicInteger();

    private TestServers() {
    }

    /** Defaults suitable for one server among many in the same JVM. */
    public static ServerConfig config() {
        return ServerConfig.defaults()
                .name("TESTQM")
                .host("127.0.0.1")
                .port(0)
                .inVmName("wharf-test-" + SEQUENCE.incrementAndGet());
    }
}
