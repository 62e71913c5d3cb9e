package org.wharfmq.server.channels;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.admin.AdminPlugin;
import org.wharfmq.server.cli.FlowCommandAccess;
import org.wharfmq.server.config.QueueDefinition;
import org.wharfmq.server.config.QueueReference;

import javax.jms.Message;
import javax.jms.Session;
import javax.jms.TextMessage;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code wharf admin display chstatus}, {@code stop channel} and {@code start channel} on a queue manager's channels. */
class ChannelAdminTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private final ChannelServers servers = new ChannelServers();

    @AfterEach
    void stop() throws Exception {
        servers.close();
    }

    @Test
    void anOperatorSeesStopsAndStartsASenderChannel() throws Exception {
        TestServer qm2 = servers.start(c -> c.name("QM2").autoCreate(false).queue("ORDERS"),
                ChannelDefinition.receiver("TO.QM2", null, "QM1"));
        TestServer qm1 = servers.keep(TestServer.start(c -> c.name("QM1").autoCreate(false)
                .queue(QueueDefinition.transmissionQueue("QM2"))
                .reference(QueueReference.remote("ORDERS", "ORDERS", "QM2", null)), config -> {
            ChannelsPlugin channels = new ChannelsPlugin(new ChannelSettings(List.of(
                    ChannelDefinition.sender("TO.QM2", qm2.server().tcpUrl(), "QM2", null, null),
                    ChannelDefinition.receiver("TO.QM1", null, "QM2"))));
            return WharfServer.builder(config).plugins(channels, new AdminPlugin(channels.adminCommands())).start();
        }));
        String url = qm1.server().tcpUrl();

        String table = admin(url, "display", "chstatus");
        assertTrue(table.contains("TO.QM2") && table.contains("sender") && table.contains("TO.QM1")
                && table.contains("INACTIVE"), table);
        DocTables.assertDocsShowColumnsOf(table, "docs/distributed.md", "docs/operations.md");

        assertEquals("Channel TO.QM2 stopped (its transmission queue keeps what it has not sent)\n",
                admin(url, "stop", "channel", "TO.QM2"));
        assertEquals("STOPPED", sender(url).get("state").asText());
        Session session = servers.connect(url).createSession(false, Session.AUTO_ACKNOWLEDGE);
        session.createProducer(session.createQueue("ORDERS")).send(session.createTextMessage("held"));
        assertEquals(1, qm1.server().queueManager().queue("QM2").depth(), "a stopped channel takes nothing");

        assertEquals("Channel TO.QM2 started\n", admin(url, "start", "channel", "TO.QM2"));
        Session s2 = servers.connect(qm2.server().tcpUrl()).createSession(false, Session.AUTO_ACKNOWLEDGE);
        Message m = ChannelServers.next(s2.createConsumer(s2.createQueue("ORDERS")));
        assertEquals("held", ((TextMessage) m).getText());

        // started again while it runs: refused, naming its state and what to do; --json has the state as a field
        JsonNode running = sender(url);
        String state = running.get("state").asText();
        assertTrue(List.of("RUNNING", "WAITING").contains(state), state);
        String again = AdminCli.refused(url, "start", "channel", "TO.QM2");
        assertTrue(again.startsWith("Channel TO.QM2 is " + state + ", not stopped: nothing to start. ")
                && again.endsWith("'wharf admin stop channel TO.QM2' then 'wharf admin start channel TO.QM2'."),
                again);
        FlowCommandAccess.Result asJson = FlowCommandAccess.run("admin", "--url", url, "--json", "start", "channel",
                "TO.QM2");
        assertEquals(1, asJson.status(), asJson.out());
        JsonNode refusal = JSON.readTree(asJson.out());
        assertEquals("NOT_STOPPED", refusal.get("reason").asText(), asJson.out());
        assertEquals("TO.QM2", refusal.get("channel").asText(), asJson.out());
        assertTrue(List.of("RUNNING", "WAITING").contains(refusal.get("state").asText()), asJson.out());
        assertTrue(refusal.get("error").asText().startsWith("Channel TO.QM2 is " + refusal.get("state").asText()
                + ", not stopped"), asJson.out());
        String receiver = AdminCli.refused(url, "start", "channel", "TO.QM1"); // no partner has connected to it
        assertEquals("Receiver channel TO.QM1 is INACTIVE (it accepts its partner, which is not connected now), not"
                + " stopped: nothing to start. Its sender connects when it has messages to send (on the sending queue"
                + " manager, 'wharf admin display chstatus' shows it and 'wharf admin start channel TO.QM1' starts it"
                + " if an operator stopped it). To end the partner's session and let it in again, 'wharf admin stop"
                + " channel TO.QM1' then 'wharf admin start channel TO.QM1'.", receiver);

        FlowCommandAccess.Result unknown = FlowCommandAccess.run("admin", "--url", url, "stop", "channel", "NOPE");
        assertTrue(unknown.err().contains("No channel named 'NOPE' is defined (its channels: [TO.QM2, TO.QM1])."
                + " Define it with 'wharf admin define channel NOPE'."),
                unknown.err());
    }

    private static JsonNode sender(String url) throws Exception {
        for (JsonNode c : JSON.readTree(admin(url, "--json", "display", "chstatus")).get("result")) {
            if (c.get("name").asText().equals("TO.QM2")) {
                return c;
            }
        }
        throw new AssertionError("no TO.QM2 in display chstatus");
    }

    private static String admin(String url, String... words) {
        List<String> args = new ArrayList<>(List.of("admin", "--url", url));
        args.addAll(List.of(words));
        FlowCommandAccess.Result result = FlowCommandAccess.run(args.toArray(String[]::new));
        assertEquals(0, result.status(), result.err());
        return result.out();
    }
}
