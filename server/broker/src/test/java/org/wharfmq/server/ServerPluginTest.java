package org.wharfmq.server;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.DefaultEventLoopGroup;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.local.LocalAddress;
import io.netty.channel.local.LocalChannel;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.wharfmq.server.config.ServerConfig;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The life cycle of {@link ServerPlugin}s: after the listeners, before them at close, and a start that fails. */
class ServerPluginTest {

    private static final EventLoopGroup CLIENTS = new DefaultEventLoopGroup(1);

    private final List<String> events = new CopyOnWriteArrayList<>();

    @AfterAll
    static void stopClients() {
        CLIENTS.shutdownGracefully().syncUninterruptibly();
    }

    @Test
    void pluginsStartInOrderOnceTheListenersAcceptAndStopInReverseBeforeTheConnectionsClose() throws Exception {
        try (TestServer test = TestServer.start()) {
            test.stop(); // its config and data directory, for the servers this test starts itself
            ServerConfig config = test.config();
            Recording a = new Recording("a", null);
            Recording b = new Recording("b", null);
            try (WharfServer server = WharfServer.start(config, a, b)) {
                assertEquals(List.of("a starts on " + server.vmUrl(), "b starts on " + server.vmUrl()), events);
            }
            // each connected over the in-VM listener in its start, and found its connection open when it was stopped
            assertEquals(List.of("a starts on vm://" + config.inVmName(), "b starts on vm://" + config.inVmName(),
                    "b stops, connected", "a stops, connected"), events);
        }
    }

    @Test
    void aPluginThatFailsToStartFailsTheServerStartWhichClosesItTheOnesBeforeItAndItself() throws Exception {
        try (TestServer test = TestServer.start()) {
            test.stop(); // its config and data directory, for the servers this test starts itself
            ServerConfig config = test.config();
            IllegalStateException refusal = new IllegalStateException("b cannot start");
            Recording a = new Recording("a", null);
            Recording b = new Recording("b", refusal);
            Recording c = new Recording("c", null);
            assertSame(refusal, assertThrows(IllegalStateException.class, () -> WharfServer.start(config, a, b, c)));
            assertEquals(List.of("a starts on vm://" + config.inVmName(), "b starts on vm://" + config.inVmName(),
                    "b stops, connected", "a stops, connected"), events);
            // the server closed: its in-VM name and its journal are free for the next one
            try (WharfServer again = WharfServer.start(config)) {
                assertEquals(config.inVmName(), again.config().inVmName());
            }
        }
    }

    @Test
    void aPluginThatThrowsWhenStoppedDoesNotKeepTheServerOpen() throws Exception {
        try (TestServer test = TestServer.start()) {
            test.stop(); // its config and data directory, for the servers this test starts itself
            ServerConfig config = test.config();
            ServerPlugin broken = new ServerPlugin() {
                @Override
                public void start(Host server) {
                }

                @Override
                public void close() {
                    throw new IllegalStateException("broken plugin");
                }
            };
            WharfServer.start(config, new Recording("a", null), broken).close();
            assertEquals("a stops, connected", events.get(events.size() - 1), "the plugin before it is stopped too");
            try (WharfServer again = WharfServer.start(config)) {
                assertEquals(config.inVmName(), again.config().inVmName());
            }
        }
    }

    /** Records its start and stop in {@link #events}; connects to the server over the in-VM listener when started. */
    private final class Recording implements ServerPlugin {

        private final String name;
        private final RuntimeException startFailure;
        private Channel connection;

        Recording(String name, RuntimeException startFailure) {
            this.name = name;
            this.startFailure = startFailure;
        }

        @Override
        public void start(Host server) throws Exception {
            events.add(name + " starts on " + server.vmUrl());
            // fails unless the in-VM listener accepts connections
            connection = new Bootstrap().group(CLIENTS).channel(LocalChannel.class)
                    .handler(new ChannelInboundHandlerAdapter())
                    .connect(new LocalAddress(server.config().inVmName())).sync().channel();
            if (startFailure != null) {
                throw startFailure;
            }
        }

        @Override
        public void close() {
            events.add(name + " stops, " + (connection != null && connection.isActive() ? "connected" : "disconnected"));
            if (connection != null) {
                connection.close().syncUninterruptibly();
            }
        }
    }
}
