package org.wharfmq.server.channels;

import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.config.ServerConfig;

import javax.jms.Connection;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertNotNull;

/** The queue managers and connections of a channel test, closed in the reverse order when the test ends. */
final class ChannelServers implements AutoCloseable {

    /** How long a message that is expected may take to arrive. */
    static final long EXPECTED_MS = 10_000;

    private final List<AutoCloseable> open = new ArrayList<>();

    /** Keeps {@code resource} to close at the end. */
    <T extends AutoCloseable> T keep(T resource) {
        open.add(resource);
        return resource;
    }

    /** A queue manager with the channels plugin running {@code channels}. */
    TestServer start(UnaryOperator<ServerConfig.Builder> config, ChannelDefinition... channels) throws Exception {
        return keep(TestServer.start(config, c -> WharfServer.builder(c)
                .plugins(new ChannelsPlugin(new ChannelSettings(List.of(channels)))).start()));
    }

    /** A started connection, anonymous. */
    Connection connect(String url) throws Exception {
        Connection connection = keep(new WharfConnectionFactory(url).createConnection());
        connection.start();
        return connection;
    }

    static Message next(MessageConsumer consumer) throws Exception {
        Message message = consumer.receive(EXPECTED_MS);
        assertNotNull(message, "no message within " + EXPECTED_MS + " ms");
        return message;
    }

    static int freePort() throws Exception {
        try (ServerSocket free = new ServerSocket(0)) {
            return free.getLocalPort();
        }
    }

    @Override
    public void close() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
        open.clear();
    }
}
