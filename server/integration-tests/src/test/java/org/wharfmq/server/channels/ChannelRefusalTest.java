package org.wharfmq.server.channels;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.client.core.ClientException;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.protocol.auth.ScramCredential;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.server.FreePorts;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.admin.AdminPlugin;
import org.wharfmq.server.admin.AdminProtocol;
import org.wharfmq.server.config.QueueDefinition;
import org.wharfmq.server.config.QueueReference;
import org.wharfmq.server.it.Receive;
import org.wharfmq.server.queue.SystemQueues;
import org.wharfmq.server.security.file.SecurityFileRealm;

import javax.jms.Connection;
import javax.jms.JMSSecurityException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Session;
import javax.jms.TextMessage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a hostile client or user cannot do to channels: send a channel's frames on a connection whose CHANNEL_OPEN was
 * not accepted (the connection is closed, no one else's work is touched), or run a channel admin command without the
 * admin permission.
 */
class ChannelRefusalTest {

    private final ChannelServers servers = new ChannelServers();

    @TempDir
    Path dir;

    @AfterEach
    void stop() throws Exception {
        servers.close();
    }

    @Test
    void channelFramesBeforeAnAcceptedOpenCloseTheConnectionAndHarmNoOneElse() throws Exception {
        TestServer qm2 = servers.start(c -> c.name("QM2").autoCreate(false).queue("ORDERS"),
                ChannelDefinition.receiver("TO.QM2", null, "QM1"));
        TestServer qm1 = servers.start(c -> c.name("QM1").autoCreate(false)
                .queue(QueueDefinition.transmissionQueue("QM2"))
                .reference(QueueReference.remote("ORDERS", "ORDERS", "QM2", null)),
                ChannelDefinition.sender("TO.QM2", qm2.server().tcpUrl(), "QM2", null, null).withTimes(50, 60_000));
        Session app = servers.connect(qm2.server().tcpUrl()).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer orders = app.createConsumer(app.createQueue("ORDERS"));
        MessageProducer producer = app.createProducer(app.createQueue("ORDERS"));
        producer.send(app.createTextMessage("before"));
        assertEquals("before", ((TextMessage) ChannelServers.next(orders)).getText());

        try (CoreLink hostile = CoreLink.open(qm2.server().tcpUrl(), Map.of(), null, null, "hostile", 0, 5_000)) {
            hostile.write(new Frame.ChannelMessage(ChannelServers.forged(true)));
            ClientException closed = assertThrows(ClientException.class, // the server closes it at the message
                    () -> hostile.call(id -> new Frame.ChannelEndBatch(id, 1, 1), ChannelServers.EXPECTED_MS));
            assertClosedFor(closed, "CHANNEL_MESSAGE before CHANNEL_OPEN was accepted");
        }
        try (CoreLink hostile = CoreLink.open(qm2.server().tcpUrl(), Map.of(), null, null, "hostile", 0, 5_000)) {
            ClientException closed = assertThrows(ClientException.class,
                    () -> hostile.call(id -> new Frame.ChannelEndBatch(id, 1, 1), ChannelServers.EXPECTED_MS));
            assertClosedFor(closed, "CHANNEL_END_BATCH before CHANNEL_OPEN was accepted");
        }
        try (CoreLink hostile = CoreLink.open(qm2.server().tcpUrl(), Map.of(), null, null, "hostile", 0, 5_000)) {
            ClientException closed = assertThrows(ClientException.class,
                    () -> hostile.call(Frame.ChannelFastConfirm::new, ChannelServers.EXPECTED_MS));
            assertClosedFor(closed, "CHANNEL_FAST_CONFIRM before CHANNEL_OPEN was accepted");
        }
        try (CoreLink hostile = CoreLink.open(qm2.server().tcpUrl(), Map.of(), null, null, "hostile", 0, 5_000)) {
            assertThrows(ClientException.class, () -> hostile.call(id -> new Frame.ChannelOpen(id, "TO.QM9", "QM1",
                    true, Frame.ChannelOpen.NO_RESET),
                    ChannelServers.EXPECTED_MS)); // refused: no such receiver; the connection stays, unopened
            hostile.write(new Frame.ChannelMessage(ChannelServers.forged(true)));
            ClientException closed = assertThrows(ClientException.class,
                    () -> hostile.call(id -> new Frame.ChannelEndBatch(id, 1, 1), ChannelServers.EXPECTED_MS));
            assertClosedFor(closed, "CHANNEL_MESSAGE before CHANNEL_OPEN was accepted");
        }

        producer.send(app.createTextMessage("after")); // another client's connection works on
        assertEquals("after", ((TextMessage) ChannelServers.next(orders)).getText());
        Session onQm1 = servers.connect(qm1.server().tcpUrl()).createSession(false, Session.AUTO_ACKNOWLEDGE);
        onQm1.createProducer(onQm1.createQueue("ORDERS")).send(onQm1.createTextMessage("through the channel"));
        assertEquals("through the channel", ((TextMessage) ChannelServers.next(orders)).getText());
        Receive.nothingMore(orders); // no forged message was put
    }

    /**
     * The server closed the hostile connection: the client read its protocol error naming {@code reason}, or, when the
     * close overtook the error frame (the server writes the error, then closes), only that the connection was lost.
     */
    private static void assertClosedFor(ClientException closed, String reason) {
        String m = closed.getMessage();
        assertTrue(m.contains("Protocol error: " + reason) || m.contains("was lost: the connection was closed"), m);
    }

    @Test
    void aUserWithoutTheAdminPermissionIsRefusedEveryChannelCommandAndChangesNothing() throws Exception {
        Path file = dir.resolve("security.yaml");
        Files.writeString(file, "users:\n" + user("ops") + user("app")
                + "permissions:\n  - connect: [user:ops, user:app]\n  - admin: [user:ops]\n");
        SecurityFileRealm realm = servers.keep(SecurityFileRealm.open(file));
        ChannelsPlugin[] plugin = new ChannelsPlugin[1];
        TestServer qm1 = servers.keep(TestServer.start(c -> c.name("QM1").autoCreate(false)
                .queue(QueueDefinition.transmissionQueue("QM2")), config -> {
            plugin[0] = new ChannelsPlugin(new ChannelSettings(List.of(ChannelDefinition.sender("TO.QM2",
                    "tcp://127.0.0.1:" + FreePorts.one(), "QM2", null, null),
                    ChannelDefinition.receiver("TO.QM1", null, "QM2"))));
            return WharfServer.builder(config).authenticator(realm).accessControl(realm.accessControl())
                    .plugins(plugin[0], new AdminPlugin(plugin[0].adminCommands())).start();
        }));
        String url = qm1.server().tcpUrl();
        List<String> commands = new ArrayList<>(plugin[0].adminCommands().commands().keySet());
        assertEquals(List.of("display-chstatus", "display-channel", "define-channel", "alter-channel",
                "delete-channel", "start-channel", "stop-channel", "reset-channel", "resolve-channel"), commands);
        try (Connection connection = new WharfConnectionFactory(url).createConnection("app", "app-pw")) {
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageProducer anyQueue = session.createProducer(null);
            for (String command : commands) {
                Message request = session.createMessage();
                request.setStringProperty(AdminProtocol.COMMAND, command);
                request.setStringProperty(ChannelCommands.CHANNEL, command.equals("define-channel") ? "NEW" : "TO.QM2");
                request.setStringProperty("WharfType", "sender");
                request.setStringProperty("WharfBatchSize", "3");
                request.setStringProperty(ChannelCommands.SEQUENCE, "9");
                request.setStringProperty(ChannelCommands.ACTION, "commit");
                JMSSecurityException refused = assertThrows(JMSSecurityException.class,
                        () -> anyQueue.send(session.createQueue(SystemQueues.ADMIN_COMMAND_QUEUE), request), command);
                assertEquals("User 'app' may not send to queue 'SYSTEM.ADMIN.COMMAND.QUEUE': no 'admin' permission"
                        + " (the SYSTEM.* queues need the admin permission) is granted to it. Ask an administrator to"
                        + " grant 'admin' to user:app in the security file's permissions.", refused.getMessage());
            }
        }
        // nothing changed: an admin sees the sender not stopped, defined as it was, and no new channel
        JsonNode status = AdminCli.request(url, "ops", "display-chstatus", Map.of()).get("result");
        assertEquals("TO.QM2", status.get(0).get("name").asText());
        assertNotEquals("STOPPED", status.get(0).get("state").asText());
        JsonNode channels = AdminCli.request(url, "ops", "display-channel", Map.of()).get("result");
        assertEquals(2, channels.size(), channels.toString());
        assertEquals("50", channels.get(0).get("batchSize").asText());
    }

    private static String user(String name) {
        return "  " + name + ":\n    password: \"" + ScramCredential.create((name + "-pw").toCharArray(), 4096,
                new SecureRandom()).verifier() + "\"\n";
    }
}
