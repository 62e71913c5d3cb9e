package org.wharfmq.server.channels;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.server.ServerPlugin;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.admin.AdminPlugin;
import org.wharfmq.server.admin.AdminProtocol;
import org.wharfmq.server.cli.FlowCommandAccess;
import org.wharfmq.server.config.ServerConfig;
import org.wharfmq.server.queue.SystemQueues;

import javax.jms.Connection;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.Session;
import javax.jms.TemporaryQueue;
import javax.jms.TextMessage;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/** {@code wharf admin} in this JVM against a queue manager, and queue managers that serve it with their channels. */
final class AdminCli {

    private static final ObjectMapper JSON = new ObjectMapper();

    private AdminCli() {
    }

    /**
     * Sends admin command {@code command} with {@code properties} as a program would, as {@code user} (password
     * USER-pw; null: anonymous); its JSON answer.
     */
    static JsonNode request(String url, String user, String command, Map<String, String> properties)
            throws Exception {
        WharfConnectionFactory factory = new WharfConnectionFactory(url);
        try (Connection connection = user == null ? factory.createConnection()
                : factory.createConnection(user, user + "-pw")) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            TemporaryQueue replies = session.createTemporaryQueue();
            MessageConsumer answers = session.createConsumer(replies);
            connection.start();
            Message request = session.createMessage();
            request.setStringProperty(AdminProtocol.COMMAND, command);
            for (Map.Entry<String, String> p : properties.entrySet()) {
                request.setStringProperty(p.getKey(), p.getValue());
            }
            request.setJMSReplyTo(replies);
            session.createProducer(session.createQueue(SystemQueues.ADMIN_COMMAND_QUEUE)).send(request);
            TextMessage answer = (TextMessage) answers.receive(ChannelServers.EXPECTED_MS);
            assertNotNull(answer, "no answer to " + command);
            return JSON.readTree(answer.getText());
        }
    }

    /**
     * A queue manager with the channels plugin ({@code channels} from its configuration) and the admin plugin serving
     * its commands, made anew at each (re)start; {@code plugin[0]} is the one running.
     */
    static TestServer start(UnaryOperator<ServerConfig.Builder> config, ChannelsPlugin[] plugin,
                            ChannelDefinition... channels) throws Exception {
        return start(config, plugin, running -> List.of(), channels);
    }

    /**
     * As {@link #start(UnaryOperator, ChannelsPlugin[], ChannelDefinition...)}, with {@code more} plugins (given the
     * channels plugin) after those two.
     */
    static TestServer start(UnaryOperator<ServerConfig.Builder> config, ChannelsPlugin[] plugin,
                            Function<ChannelsPlugin, List<ServerPlugin>> more, ChannelDefinition... channels)
            throws Exception {
        return TestServer.start(config, c -> {
            plugin[0] = new ChannelsPlugin(new ChannelSettings(List.of(channels)));
            List<ServerPlugin> plugins = new ArrayList<>(List.of(plugin[0],
                    new AdminPlugin(plugin[0].adminCommands())));
            plugins.addAll(more.apply(plugin[0]));
            return WharfServer.builder(c).plugins(plugins.toArray(ServerPlugin[]::new)).start();
        });
    }

    /** Runs {@code wharf admin --url URL words...}; it must succeed; what it printed. */
    static String ok(String url, String... words) {
        FlowCommandAccess.Result result = run(url, words);
        assertEquals(0, result.status(), result.err());
        return result.out();
    }

    /** Runs {@code wharf admin --url URL words...}; the server must refuse it; what it said (without "wharf: "). */
    static String refused(String url, String... words) {
        FlowCommandAccess.Result result = run(url, words);
        assertEquals(1, result.status(), "should have been refused: " + result.out());
        return result.err().strip().replaceFirst("^wharf: ", "");
    }

    /** Runs {@code wharf admin --url URL words...}; it must be refused before it is sent; what it said. */
    static String usageError(String url, String... words) {
        FlowCommandAccess.Result result = run(url, words);
        assertEquals(2, result.status(), "should have been refused as a usage error: " + result.out() + result.err());
        return result.err().strip().replaceFirst("^wharf: ", "");
    }

    private static FlowCommandAccess.Result run(String url, String... words) {
        List<String> args = new ArrayList<>(List.of("admin", "--url", url));
        args.addAll(List.of(words));
        return FlowCommandAccess.run(args.toArray(String[]::new));
    }
}
