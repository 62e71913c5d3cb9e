package org.wharfmq.server.channels;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.server.FreePorts;
import org.wharfmq.server.LogCapture;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.config.QueueDefinition;
import org.wharfmq.server.config.QueueReference;
import org.wharfmq.server.security.AuditLog;

import javax.jms.Connection;
import javax.jms.MessageConsumer;
import javax.jms.Session;
import javax.jms.TextMessage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Channels defined, altered, displayed and deleted at run time ({@code wharf admin define|alter|display|delete
 * channel}), kept across restarts with the stopped state of a sender, and the refusals, each naming the channel, the
 * attribute and the fix.
 */
class ChannelDefinitionAdminTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private final ChannelServers servers = new ChannelServers();
    private final ChannelsPlugin[] qm1Channels = new ChannelsPlugin[1];
    private final ChannelsPlugin[] qm2Channels = new ChannelsPlugin[1];

    @TempDir
    Path dir;

    @AfterEach
    void stop() throws Exception {
        servers.close();
    }

    @Test
    void channelsDefinedAtRunTimeMoveMessagesAndSurviveRestartsStoppedOrNot() throws Exception {
        int qm2Port = FreePorts.one();
        TestServer qm2 = servers.keep(AdminCli.start(c -> c.name("QM2").port(qm2Port).autoCreate(false).queue("ORDERS"),
                qm2Channels));
        TestServer qm1 = servers.keep(AdminCli.start(c -> c.name("QM1").autoCreate(false)
                .queue(QueueDefinition.transmissionQueue("QM2"))
                .reference(QueueReference.remote("ORDERS", "ORDERS", "QM2", null)), qm1Channels,
                ChannelDefinition.receiver("TO.QM1", null, "QM2")));
        String url2 = qm2.server().tcpUrl();

        assertEquals("Channel TO.QM2 (receiver, defined at run time)\n  partnerQueueManager           QM1\n"
                + "  nonPersistentSpeed            normal\n  maxBatchAttempts              3\n"
                + "  maxSubscriptionSetsPerMinute  60\n",
                AdminCli.ok(url2, "define", "channel", "TO.QM2", "--type", "receiver", "--partner-qmgr", "QM1",
                        "--non-persistent-speed", "normal", "--max-batch-attempts", "3"));
        // as a program defines one (--json): the definition, and exit status 0 (its "stopped": false is no failure)
        JsonNode defined = JSON.readTree(AdminCli.ok(url2, "--json", "define", "channel", "TO.QM2.B", "--type",
                "receiver")).get("result");
        assertEquals("TO.QM2.B", defined.get("name").asText(), defined.toString());
        assertFalse(defined.get("stopped").asBoolean(), defined.toString());
        AdminCli.ok(url2, "delete", "channel", "TO.QM2.B");
        String[] sender = {"channel", "TO.QM2", "--type", "sender", "--connection", "tcp://127.0.0.1:" + qm2Port,
                "--xmitq", "QM2", "--retry-millis", "50", "--pipeline-length", "2"};
        String shown = AdminCli.ok(qm1.server().tcpUrl(), concat("define", sender));
        assertTrue(shown.startsWith("Channel TO.QM2 (sender, defined at run time)\n  connection "), shown);
        assertTrue(shown.contains("\n  pipelineLength            2\n"), shown);
        send(qm1, "order 1");
        MessageConsumer orders = ordersOn(qm2);
        assertEquals("order 1", ((TextMessage) ChannelServers.next(orders)).getText());

        String url1 = qm1.server().tcpUrl();
        assertEquals("Channel 'TO.QM2' exists already (defined at run time): change it with 'alter channel TO.QM2', or"
                + " give the new channel another name.", AdminCli.refused(url1, concat("define", sender)));
        // a second sender of the same transmission queue would share its messages out of order
        String second = AdminCli.refused(url1, "define", "channel", "TO.QM2.B", "--type", "sender", "--connection",
                "tcp://127.0.0.1:" + qm2Port, "--xmitq", "QM2");
        assertTrue(second.startsWith("Channel 'TO.QM2.B' is not defined: Channels 'TO.QM2' and 'TO.QM2.B' are both"
                + " senders of transmission queue 'QM2': a transmission queue has one sender channel"), second);
        assertTrue(AdminCli.refused(url1, "display", "channel", "TO.QM2.B").contains("No channel named 'TO.QM2.B'"));
        assertEquals("Channel 'TO.QM2' is RUNNING: its [connection] cannot change under it. Stop it first ('wharf admin"
                + " stop channel TO.QM2'), alter it, then start it.",
                AdminCli.refused(url1, "alter", "channel", "TO.QM2", "--connection", "tcp://127.0.0.1:1"));
        assertEquals("Channel 'TO.QM2' is not deleted: it is RUNNING. Stop it first ('wharf admin stop channel"
                + " TO.QM2'), then delete it.",
                AdminCli.refused(url1, "delete", "channel", "TO.QM2"));
        assertEquals("Channel TO.QM2 altered; they take effect when it next starts (it is RUNNING)\n",
                AdminCli.ok(url1, "alter", "channel", "TO.QM2", "--batch-size", "7", "--set", "connectTimeoutMillis=8000"));
        assertTrue(AdminCli.refused(url1, "alter", "channel", "TO.QM2", "--pipeline-length", "3")
                .contains("Setting pipelineLength of channel 'TO.QM2' must be 1 or 2, was 3."));
        // over the admin command queue: a receiver's attributes change while its partner runs (not its partner)
        JsonNode altered = AdminCli.request(url2, null, "alter-channel", Map.of("WharfChannel", "TO.QM2",
                "WharfMaxBatchAttempts", "5", "WharfNonPersistentSpeed", "fast"));
        assertTrue(altered.get("ok").asBoolean(), altered.toString());
        JsonNode receiver = JSON.readTree(AdminCli.ok(url2, "--json", "display", "channel", "TO.QM2"))
                .get("result").get(0);
        assertEquals("5", receiver.get("maxBatchAttempts").asText());
        assertEquals("fast", receiver.get("nonPersistentSpeed").asText());
        assertEquals("Channel 'TO.QM1' is defined in the configuration (channels: in config/wharf.yaml): remove it"
                + " there and restart the queue manager. 'delete channel' deletes the channels defined at run time.",
                AdminCli.refused(url1, "delete", "channel", "TO.QM1"));
        JsonNode unknown = AdminCli.request(url1, null, "define-channel", Map.of("WharfChannel", "OTHER", "WharfType", "sender",
                "WharfColour", "blue"));
        assertFalse(unknown.get("ok").asBoolean());
        assertTrue(unknown.get("error").asText().startsWith("Channel 'OTHER' is not defined: Unknown setting 'colour'"
                + " in the command 'define channel OTHER'. Known settings here: "), unknown.toString());

        // a password is never shown, in the answer, the display or the audit line
        Path secret = dir.resolve("password.txt");
        Files.writeString(secret, "s3cret-pw\n");
        List<String> audit;
        try (LogCapture log = LogCapture.of(AuditLog.NAME)) {
            AdminCli.ok(url1, "define", "channel", "NOWHERE", "--type", "sender", "--connection", "tcp://127.0.0.1:1",
                    "--xmitq", "QM9", "--user", "qm1", "--password-file", secret.toString());
            audit = log.messages();
        }
        assertTrue(audit.stream().anyMatch(l -> l.contains("ran 'define-channel'") && l.contains("password=***")),
                audit.toString());
        assertFalse(audit.toString().contains("s3cret"), audit.toString());
        // nor an argument, which ps shows: refused before anything is sent, naming the way that keeps it out of sight
        assertEquals("--set password=... would show the password in ps: use --password-file FILE or"
                + " --tls-password-file KEY=FILE", AdminCli.usageError(url1, "define", "channel", "SHOWN", "--type",
                "sender", "--connection", "tcp://127.0.0.1:1", "--xmitq", "QM9", "--user", "qm1", "--set",
                "password=s3cret-pw"));
        assertEquals("--set tls.trustStorePassword=... would show the password in ps: use --password-file FILE or"
                + " --tls-password-file KEY=FILE", AdminCli.usageError(url1, "alter", "channel", "NOWHERE", "--set",
                "tls.trustStorePassword=s3cret-pw"));
        assertEquals("--tls trustStorePassword=... would show the password in ps: use --tls-password-file"
                + " trustStorePassword=FILE", AdminCli.usageError(url1, "alter", "channel", "NOWHERE", "--tls",
                "trustStorePassword=s3cret-pw"));
        assertTrue(AdminCli.refused(url1, "display", "channel", "SHOWN").contains("No channel named 'SHOWN'"),
                "the refused definition never reached the queue manager");
        AdminCli.ok(url1, "stop", "channel", "NOWHERE");
        String nowhere = AdminCli.ok(url1, "display", "channel", "NOWHERE");
        assertTrue(nowhere.contains("  password ") && nowhere.contains("***") && !nowhere.contains("s3cret"), nowhere);

        // stopped and altered, across a restart of both queue managers
        assertEquals("Channel TO.QM2 stopped (its transmission queue keeps what it has not sent)\n",
                AdminCli.ok(url1, "stop", "channel", "TO.QM2"));
        send(qm1, "order 2");
        assertEquals(1, qm1.server().queueManager().queue("QM2").depth(), "a stopped channel takes nothing");
        orders.close(); // not reconnected to the restarted QM2 by the client
        qm1.restart();
        qm2.restart();
        url1 = qm1.server().tcpUrl();
        assertEquals("STOPPED", status(url1, "TO.QM2").get("state").asText(), "stopped stays stopped");
        JsonNode definition = JSON.readTree(AdminCli.ok(url1, "--json", "display", "channel", "TO.QM2"))
                .get("result").get(0);
        assertEquals("defined at run time", definition.get("origin").asText());
        assertEquals("7", definition.get("batchSize").asText());
        assertEquals("8000", definition.get("connectTimeoutMillis").asText(), "an attribute by its key (--set)");
        assertEquals("2", definition.get("pipelineLength").asText());
        assertTrue(definition.get("stopped").asBoolean());
        assertEquals(1, qm1.server().queueManager().queue("QM2").depth());
        assertEquals("Channel TO.QM2 started\n", AdminCli.ok(url1, "start", "channel", "TO.QM2"));
        orders = ordersOn(qm2); // the receiver defined at run time is there after QM2's restart
        assertEquals("order 2", ((TextMessage) ChannelServers.next(orders)).getText());

        // deleted: gone, across a restart
        AdminCli.ok(url1, "stop", "channel", "TO.QM2");
        assertEquals("Channel TO.QM2 deleted (its transmission queue QM2 keeps what it holds)\n",
                AdminCli.ok(url1, "delete", "channel", "TO.QM2"));
        assertEquals("Channel NOWHERE deleted (its transmission queue QM9 does not exist: nothing was waiting to be"
                + " sent)\n",
                AdminCli.ok(url1, "delete", "channel", "NOWHERE"));
        qm1.restart();
        url1 = qm1.server().tcpUrl();
        assertEquals(List.of("TO.QM1"), names(JSON.readTree(AdminCli.ok(url1, "--json", "display", "channel"))));
        assertEquals("No channel named 'TO.QM2' is defined (its channels: [TO.QM1]). Define it with 'wharf admin define"
                + " channel TO.QM2'.", AdminCli.refused(url1, "display", "channel", "TO.QM2"));

        // a configuration's channel altered at run time says so, and keeps it
        AdminCli.ok(url1, "alter", "channel", "TO.QM1", "--partner-user", "qm2");
        qm1.restart();
        definition = JSON.readTree(AdminCli.ok(qm1.server().tcpUrl(), "--json", "display", "channel", "TO.QM1"))
                .get("result").get(0);
        assertEquals("configuration, altered at run time", definition.get("origin").asText());
        assertEquals("qm2", definition.get("partnerUser").asText());

        awaitInactive(url2, "TO.QM2"); // the sender's connection has ended there
        long sequence = status(url2, "TO.QM2").get("sequence").asLong();
        assertEquals(2, sequence, "both orders committed");
        assertEquals("Channel TO.QM2 deleted\n", AdminCli.ok(url2, "delete", "channel", "TO.QM2"));
        // defined again, a receiver goes on from its numbers (its sync record stays)
        AdminCli.ok(url2, "define", "channel", "TO.QM2", "--type", "receiver");
        assertEquals(sequence, status(url2, "TO.QM2").get("sequence").asLong());
        assertEquals("Channel TO.QM2 deleted\n", AdminCli.ok(url2, "delete", "channel", "TO.QM2"));
        assertEquals("No channels (channels: in config/wharf.yaml, or wharf admin define channel).\n",
                AdminCli.ok(url2, "display", "chstatus"));
    }

    private static String[] concat(String first, String... rest) {
        String[] all = new String[rest.length + 1];
        all[0] = first;
        System.arraycopy(rest, 0, all, 1, rest.length);
        return all;
    }

    private static List<String> names(JsonNode answer) {
        List<String> names = new java.util.ArrayList<>();
        answer.get("result").forEach(c -> names.add(c.get("name").asText()));
        return names;
    }

    private void send(TestServer qm, String text) throws Exception {
        try (Connection c = new WharfConnectionFactory(qm.server().tcpUrl()).createConnection()) {
            Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            s.createProducer(s.createQueue("ORDERS")).send(s.createTextMessage(text));
        }
    }

    private MessageConsumer ordersOn(TestServer qm) throws Exception {
        Session s = servers.connect(qm.server().tcpUrl()).createSession(false, Session.AUTO_ACKNOWLEDGE);
        return s.createConsumer(s.createQueue("ORDERS"));
    }

    static JsonNode status(String url, String channel) throws Exception {
        for (JsonNode c : JSON.readTree(AdminCli.ok(url, "--json", "display", "chstatus")).get("result")) {
            if (c.get("name").asText().equals(channel)) {
                return c;
            }
        }
        throw new AssertionError("no " + channel + " in display chstatus");
    }

    /** Waits until receiver {@code channel} reports no partner connected (its end of a stopped sender's connection). */
    static void awaitInactive(String url, String channel) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ChannelServers.EXPECTED_MS);
        while (!status(url, channel).get("state").asText().equals("INACTIVE") && System.nanoTime() < deadline) {
            LockSupport.parkNanos(10_000_000); // polls what the receiver reports
        }
        assertEquals("INACTIVE", status(url, channel).get("state").asText());
    }
}
