package org.wharfmq.server.it;

import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.protocol.auth.ScramCredential;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.admin.AdminPlugin;
import org.wharfmq.server.channels.ChannelSettings;
import org.wharfmq.server.channels.ChannelsPlugin;
import org.wharfmq.server.console.ConsolePlugin;
import org.wharfmq.server.http.HttpPlugin;
import org.wharfmq.server.http.HttpSettings;
import org.wharfmq.server.replication.ReplicationCommands;
import org.wharfmq.server.replication.ReplicationMember;
import org.wharfmq.server.security.file.SecurityFileRealm;
import org.wharfmq.server.security.file.UsersFileEditor;

import javax.jms.Connection;
import javax.jms.JMSException;
import javax.jms.MessageProducer;
import javax.jms.QueueBrowser;
import javax.jms.Session;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A secured queue manager with the web console, as {@code wharf server} runs it (channels, admin plugin, console,
 * HTTP listener), for the console's tests: users {@code root} (admin), {@code alice} (monitor) and {@code bob} (may only
 * connect), each with the password {@code NAME-pw}; anyone may connect, until {@link #connectRule} says otherwise.
 */
final class ConsoleServer implements AutoCloseable {

    private final Path security;
    private final SecurityFileRealm realm;
    private final HttpPlugin http = new HttpPlugin(HttpSettings.on("127.0.0.1"));
    private final TestServer server;

    ConsoleServer(Path dir) throws Exception {
        this(dir, null);
    }

    /**
     * As {@link #ConsoleServer(Path)}, the active member of a replicated queue manager when {@code member} is not null
     * (elected, not yet taken over): its journal is the replicated one, and it serves the replication's commands.
     */
    ConsoleServer(Path dir, ReplicationMember member) throws Exception {
        security = dir.resolve("security.yaml");
        Files.writeString(security, """
                users: {}
                allowAnonymous: false
                permissions:
                  - queue: "**"
                    send: [anyone]
                    receive: [anyone]
                    browse: [anyone]
                    create: [anyone]
                  - connect: [anyone]
                  - monitor: [group:ops]
                  - admin: [group:admins]
                """);
        UsersFileEditor users = UsersFileEditor.open(security);
        for (Map.Entry<String, String> user : Map.of("alice", "ops", "bob", "apps", "root", "admins").entrySet()) {
            users.put(user.getKey(), ScramCredential.create(password(user.getKey()).toCharArray(), 4096,
                    new SecureRandom()), List.of(user.getValue()));
        }
        users.save();
        realm = SecurityFileRealm.open(security);
        server = TestServer.start(UnaryOperator.identity(), config -> {
            ChannelsPlugin channels = new ChannelsPlugin(ChannelSettings.none()); // defined at run time, if at all
            AdminPlugin admin = new AdminPlugin(channels.adminCommands(), new ReplicationCommands(member));
            WharfServer.Starter starter = WharfServer.builder(config).authenticator(realm)
                    .accessControl(realm.accessControl()).plugins(channels, admin, new ConsolePlugin(http, admin), http);
            if (member != null) {
                starter.store(member.takeOver()).replication(member::state).definitions(member.definitions());
            }
            WharfServer started = starter.start();
            if (member != null) {
                // fenced (an election under load): its clients go, then the failed batches' waiters hear of it, as in
                // wharf server
                member.fenced().thenRun(() -> {
                    started.disconnectClients();
                    member.stoppedServing();
                });
            }
            return started;
        });
    }

    /** Puts a new rule of who may connect in force ({@code [group:ops]}, as the security file writes it). */
    void connectRule(String grantees) throws java.io.IOException {
        String text = Files.readString(security);
        assertTrue(text.contains("  - connect: [anyone]\n"), text);
        Files.writeString(security, text.replace("  - connect: [anyone]\n", "  - connect: " + grantees + "\n"));
        realm.reload();
    }

    static String password(String user) {
        return user + "-pw";
    }

    /** The HTTP listener's base URL. */
    String url() {
        return http.url();
    }

    int httpPort() {
        return http.port();
    }

    /** The {@code Authorization} header of {@code user}. */
    static String basic(String user) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password(user))
                .getBytes(StandardCharsets.UTF_8));
    }

    /** What GET {@code path} answers {@code user} (it must be 200). */
    String get(String path, String user) throws Exception {
        java.net.http.HttpResponse<String> answer = java.net.http.HttpClient.newHttpClient().send(
                java.net.http.HttpRequest.newBuilder(java.net.URI.create(url() + path))
                        .header("Authorization", basic(user)).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
        assertEquals(200, answer.statusCode(), answer.body());
        return answer.body();
    }

    /** A JMS connection of {@code user} over TCP, not started. */
    Connection connect(String user) throws JMSException {
        return new WharfConnectionFactory(server.server().networkUrls().get(0)).createConnection(user, password(user));
    }

    /** Sends {@code count} text messages ({@code message 0}, ...) to {@code queue} as root. */
    void send(String queue, int count) throws JMSException {
        String[] texts = new String[count];
        for (int i = 0; i < count; i++) {
            texts[i] = "message " + i;
        }
        send(queue, texts);
    }

    /** Sends a text message of each of {@code texts} to {@code queue} as root. */
    void send(String queue, String... texts) throws JMSException {
        try (Connection connection = connect("root")) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageProducer producer = session.createProducer(session.createQueue(queue));
            for (String text : texts) {
                producer.send(session.createTextMessage(text));
            }
        }
    }

    /** How many messages a JMS browser sees on {@code queue}. */
    int browse(String queue) throws JMSException {
        try (Connection connection = connect("root")) {
            connection.start();
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            QueueBrowser browser = session.createBrowser(session.createQueue(queue));
            return Collections.list(browser.getEnumeration()).size();
        }
    }

    @Override
    public void close() {
        server.close();
        realm.close();
    }
}
