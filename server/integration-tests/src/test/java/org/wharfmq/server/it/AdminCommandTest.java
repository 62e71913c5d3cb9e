package org.wharfmq.server.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.admin.AdminPlugin;
import org.wharfmq.server.channels.HierarchyConfiguration;
import org.wharfmq.server.cli.ConfigurationFile;
import org.wharfmq.server.cli.FlowCommandAccess;
import org.wharfmq.server.config.QueueKeys;
import org.wharfmq.server.config.ServerConfig;
import org.wharfmq.server.config.Setting;
import org.wharfmq.server.queue.LocalQueue;
import org.wharfmq.server.store.QueueDefinitionFile;
import org.wharfmq.jms.WharfXAConnectionFactory;

import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.InvalidDestinationException;
import javax.jms.JMSException;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Session;
import javax.jms.TextMessage;
import javax.jms.Topic;
import javax.jms.XAConnection;
import javax.jms.XASession;
import javax.transaction.xa.XAResource;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code wharf admin} against a real server (with its flow host and admin plugin, as the distribution runs them),
 * through the real client: every command, what it prints for people and in JSON, and its refusals.
 */
class AdminCommandTest {

    @RegisterExtension
    static final WharfServerExtension WHARF = WharfServerExtension.withDefaults();
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    /** Runs {@code wharf admin --url URL args...} in this JVM. */
    private static FlowCommandAccess.Result admin(String... args) {
        List<String> all = new ArrayList<>(List.of("admin", "--url", WHARF.server().tcpUrl()));
        all.addAll(List.of(args));
        return FlowCommandAccess.run(all.toArray(String[]::new));
    }

    private static String ok(FlowCommandAccess.Result result) {
        assertEquals(0, result.status(), result.err() + result.out());
        return result.out();
    }

    private static String failed(FlowCommandAccess.Result result) {
        assertEquals(1, result.status(), "should have been refused: " + result.out());
        assertTrue(result.err().startsWith("wharf: "), result.err());
        return result.err().substring("wharf: ".length()).strip();
    }

    /** The settings in force: the queue manager's and every other component's, each by its path in the file. */
    @Test
    void displaySettingsShowsEveryDeclaredSettingInForce() throws Exception {
        ServerConfig config = WHARF.server().config();
        JsonNode answer = JSON.readTree(ok(admin("--json", "display", "settings"))).get("result");
        assertEquals(ConfigurationFile.BUILT_IN, answer.get("source").asText(), answer.toString());
        JsonNode settings = answer.get("settings");
        List<String> keys = new ArrayList<>();
        settings.fieldNames().forEachRemaining(keys::add);
        List<String> declared = new ArrayList<>(ServerConfig.settings().stream().map(Setting::key).toList());
        declared.add("tls");
        declared.addAll(ConfigurationFile.defaults().componentSettings().keySet());
        assertEquals(declared, keys, "every setting Configuration declares, in its order, the TLS listener's (none), "
                + "then the other components'");
        assertTrue(settings.get("http").isNull(), "no HTTP listener: " + settings);
        assertFalse(settings.get("flowHost.remoteDeploy").asBoolean(), settings.toString());
        assertEquals(HierarchyConfiguration.MAX_PROXY_SUBSCRIPTIONS.defaultValue(),
                settings.get("hierarchy.maxProxySubscriptions").asInt());
        assertEquals(config.maxQueues(), settings.get("maxQueues").asInt());
        assertEquals(config.name(), settings.get("name").asText());
        assertEquals(config.durability().toString(), settings.get("durability").asText(), "as wharf.yaml writes it");
        assertTrue(settings.get("defaultTransmissionQueue").isNull(), settings.toString());

        String shown = ok(admin("display", "settings"));
        assertTrue(shown.startsWith("Settings in force, from the built-in defaults (no --config file)\n"), shown);
        assertTrue(shown.contains("\n  maxTemporaryQueuesPerConnection  " + config.maxTemporaryQueuesPerConnection()
                + "\n"), shown);
        assertTrue(shown.contains("\n  defaultTransmissionQueue         -\n"), shown);
    }

    /** A queue's paging settings: given, shown, refused when wrong (naming the setting), and put back to default. */
    @Test
    void pagingSettingsOfAQueue() throws Exception {
        String queue = WHARF.queueName("paged");
        ok(admin("define", "queue", queue, "--policy", "page", "--max-page-bytes", "1048576", "--page-full-policy",
                "fail"));
        JsonNode settings = JSON.readTree(ok(admin("--json", "display", "queue", queue))).get("result").get("settings");
        assertEquals("page", settings.get("policy").asText(), settings.toString());
        assertEquals(1_048_576, settings.get("maxPageBytes").asLong(), settings.toString());
        assertEquals("fail", settings.get("pageFullPolicy").asText(), settings.toString());

        String refused = failed(admin("alter", "queue", queue, "--page-full-policy", "drop"));
        assertTrue(refused.contains("pageFullPolicy") && refused.contains(queue), refused);
        assertTrue(failed(admin("alter", "queue", queue, "--max-page-bytes", "-5")).contains("maxPageBytes"));

        ok(admin("alter", "queue", queue, "--max-page-bytes", "default", "--page-full-policy", "default"));
        settings = JSON.readTree(ok(admin("--json", "display", "queue", queue))).get("result").get("settings");
        assertTrue(settings.get("maxPageBytes").isNull() && settings.get("pageFullPolicy").isNull(),
                settings.toString());
        assertEquals("page", settings.get("policy").asText(), "a setting left out stays");
    }

    @Test
    void defineDisplayAlterAndDeleteAQueue() throws Exception {
        String queue = WHARF.queueName("defined");
        assertEquals("Defined queue " + queue + ": max depth 5.", ok(admin("define", "queue", queue, "--max-depth",
                "5")).strip());
        assertEquals("Queue '" + queue + "' exists already (defined at run time): change its settings with 'alter "
                + "queue " + queue + "'.", failed(admin("define", "queue", queue)));

        Connection connection = WHARF.connect(Transport.TCP);
        Send.texts(connection, queue, "one", "two");
        String shown = ok(admin("display", "queue", queue));
        assertTrue(shown.startsWith("Queue " + queue + " (defined at run time)\n"), shown);
        assertTrue(shown.contains("\n  depth           2\n") && shown.contains("\n  max depth       5 (its own)\n")
                && shown.contains("\n  enqueued        2\n"), shown);

        assertEquals("Altered queue " + queue + ": max depth 1.", ok(admin("alter", "queue", queue, "--max-depth",
                "1")).strip());
        Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageProducer producer = session.createProducer(session.createQueue(queue));
        JMSException full = assertThrows(JMSException.class, () -> producer.send(session.createTextMessage("three")));
        assertTrue(full.getMessage().contains("maximum depth of 1 messages (setting maxDepth of queue"), full.getMessage());

        assertEquals("Queue 'NO.SUCH.QUEUE' does not exist ('display queues' lists the queues; subscriptions' queues"
                + " are under 'display subscriptions').", failed(admin("display", "queue", "NO.SUCH.QUEUE")));
    }

    @Test
    void aQueueWithMessagesOrConsumersIsDeletedOnlyWithForceAndItsConsumersAreTold() throws Exception {
        String queue = WHARF.queueName("busy");
        ok(admin("define", "queue", queue));
        Connection connection = WHARF.connect(Transport.TCP);
        Send.texts(connection, queue, "one", "two");
        Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer consumer = session.createConsumer(session.createQueue(queue), "color = 'none'");
        Receive.nothingMore(consumer); // the consumer is registered

        assertEquals("Queue '" + queue + "' holds 2 messages and has 1 consumer: delete it with force (wharf admin "
                + "delete queue " + queue + " --force), or clear it and close its consumers first.",
                failed(admin("delete", "queue", queue)));
        assertEquals(2, WHARF.depth(queue), "a refusal changes nothing");

        assertEquals("Deleted queue " + queue + " and the 2 messages waiting on it.",
                ok(admin("delete", "queue", queue, "--force")).strip());
        assertFalse(WHARF.server().queueManager().exists(queue));
        InvalidDestinationException told = assertThrows(InvalidDestinationException.class,
                () -> consumer.receive(10_000));
        assertEquals("Queue '" + queue + "' was deleted by an administrator.", told.getMessage());
    }

    @Test
    void theQueueManagersOwnQueuesAreNotDeletedAndAWrongCommandIsAUsageError() {
        FlowCommandAccess.Result system = admin("delete", "queue", "SYSTEM.DEAD.LETTER.QUEUE");
        assertEquals("Queue 'SYSTEM.DEAD.LETTER.QUEUE': names starting with SYSTEM. are the queue manager's own; an "
                + "administrator cannot delete them.", failed(system));
        assertEquals("Missing required parameter: 'NAME' ('help' lists the commands; 'COMMAND --help' shows one)",
                admin("delete", "queue").err().substring("wharf: ".length()).strip());
        assertEquals(2, admin("delete", "queue").status(), "a wrong command is a usage error");

        FlowCommandAccess.Result help = FlowCommandAccess.run("admin", "--url", "tcp://127.0.0.1:1", "help", "display");
        assertEquals(0, help.status(), "help needs no server: " + help.err());
        assertTrue(help.out().startsWith("Usage: wharf admin display [COMMAND]") && help.out().contains("subscriptions"),
                help.out());
    }

    @Test
    void displayQueuesPrintsATableAndJsonForPrograms() throws Exception {
        String a = WHARF.queueName("listed.a");
        String b = WHARF.queueName("listed.b");
        ok(admin("define", "queue", a));
        ok(admin("define", "queue", b, "--max-depth", "9"));
        Send.texts(WHARF.connect(Transport.TCP), b, "x");

        String table = ok(admin("display", "queues", "LISTED.*.**"));
        String[] lines = table.split("\n");
        assertTrue(lines[0].matches("QUEUE\\s+DEPTH\\s+MAX\\s+CONS\\s+PROD\\s+OLDEST\\s+ENQUEUED\\s+DEQUEUED\\s+EXPIRED"
                + "\\s+DEADLETTERED\\s+ORIGIN"), lines[0]);
        assertEquals(3, lines.length, table);
        assertTrue(lines[2].matches(b.replace(".", "\\.") + "\\s+1\\s+9\\s+0\\s+0\\s+\\S+\\s+1\\s+0\\s+0\\s+0\\s+defined"),
                lines[2]);

        JsonNode answer = JSON.readTree(ok(admin("--json", "display", "queues", "LISTED.*.**")));
        assertTrue(answer.get("ok").asBoolean());
        JsonNode queues = answer.get("result");
        assertEquals(2, queues.size());
        assertEquals(b, queues.get(1).get("name").asText());
        assertEquals(1, queues.get(1).get("depth").asLong());
        assertEquals(9, queues.get(1).get("maxDepth").asLong());
        assertTrue(queues.get(1).get("oldestMessageAgeMillis").asLong() >= 0);
        assertTrue(queues.get(0).get("oldestMessageAgeMillis").isNull(), "nothing waits on " + a);

        JsonNode refused = JSON.readTree(admin("display", "queue", "NOWHERE", "--json").out());
        assertFalse(refused.get("ok").asBoolean());
        assertEquals("UNKNOWN", refused.get("reason").asText());
    }

    @Test
    void clearRemovesTheWaitingMessagesAndBrowseShowsThemWithoutTakingThem() throws Exception {
        String queue = WHARF.queueName("browsed");
        Connection connection = WHARF.connect(Transport.TCP);
        Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageProducer producer = session.createProducer(session.createQueue(queue));
        TextMessage text = session.createTextMessage("hello\nworld");
        text.setStringProperty("color", "red");
        text.setIntProperty("size", 3);
        producer.send(text);
        javax.jms.BytesMessage bytes = session.createBytesMessage();
        bytes.writeBytes(new byte[]{0x00, 0x41, (byte) 0xff});
        bytes.setStringProperty("color", "blue");
        producer.send(bytes);

        String shown = ok(admin("browse", "queue", queue));
        assertTrue(shown.startsWith("Message 1 on queue " + queue + "\n  JMSMessageID       " + text.getJMSMessageID()),
                shown);
        assertTrue(shown.contains("\n  color              red\n  size               3\n  body: TEXT, 11 bytes\n    hello\n"
                + "    world\nMessage 2 on queue "), shown);
        assertTrue(shown.contains("  body: BYTES, 3 bytes\n    00000000  00 41 ff"), shown);
        assertTrue(shown.endsWith("|.A.|\n"), shown);

        String blue = ok(admin("browse", "queue", queue, "--selector", "color = 'blue'", "--hex"));
        assertTrue(blue.startsWith("Message 1 on queue " + queue) && !blue.contains("Message 2"), blue);
        String hexText = ok(admin("browse", "queue", queue, "--limit", "1", "--hex"));
        assertTrue(hexText.contains("68 65 6c 6c 6f 0a 77 6f 72 6c 64") && !hexText.contains("Message 2"), hexText);
        assertEquals(2, WHARF.depth(queue), "browsing takes nothing");

        assertEquals("Cleared queue " + queue + ": 2 messages removed.", ok(admin("clear", "queue", queue)).strip());
        assertEquals(0, WHARF.depth(queue));
        assertEquals("No waiting message on queue " + queue + " matches.", ok(admin("browse", "queue", queue)).strip());
    }

    @Test
    void moveAndCopyWithASelectorLeaveTheRightMessagesInEachQueue() throws Exception {
        String source = WHARF.queueName("source");
        String target = WHARF.queueName("target");
        String copies = WHARF.queueName("copies");
        ok(admin("define", "queue", target));
        ok(admin("define", "queue", copies, "--max-depth", "1"));
        Connection connection = WHARF.connect(Transport.TCP);
        Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageProducer producer = session.createProducer(session.createQueue(source));
        producer.setDeliveryMode(DeliveryMode.PERSISTENT);
        for (int i = 1; i <= 6; i++) {
            TextMessage m = session.createTextMessage("m" + i);
            m.setStringProperty("color", i % 2 == 0 ? "red" : "blue");
            producer.send(m);
        }

        assertEquals("Moved 3 messages from " + source + " to " + target + ".",
                ok(admin("move", "--from", source, "--to", target, "--selector", "color = 'red'")).strip());
        FlowCommandAccess.Result copied = admin("copy", "--from", source, "--to", copies, "--selector",
                "color = 'blue'");
        assertEquals(1, copied.status(), "the copy stopped at the full target");
        assertEquals("Copied 1 message from " + source + " to " + copies + ".", copied.out().strip());
        assertTrue(copied.err().startsWith("wharf: stopped before the limit: queue '" + copies + "' is full"),
                copied.err());

        assertEquals(List.of("m2", "m4", "m6"), Receive.texts(session.createConsumer(session.createQueue(target)), 3));
        assertEquals(List.of("m1", "m3", "m5"), Receive.texts(session.createConsumer(session.createQueue(source)), 3));
        MessageConsumer copy = session.createConsumer(session.createQueue(copies));
        assertEquals(List.of("m1"), Receive.texts(copy, 1));
        Receive.nothingMore(copy);

        assertEquals("Queue 'NOWHERE' does not exist ('display queues' lists the queues; subscriptions' queues are "
                + "under 'display subscriptions').", failed(admin("move", "--from", "NOWHERE", "--to", target)));
        assertTrue(failed(admin("move", "--from", source, "--to", target, "--selector", "color = ")).startsWith(
                "Selector 'color = ' is not a JMS message selector"));
    }

    @Test
    void endConnectionEndsItAndItsExceptionListenerSeesIt() throws Exception {
        Connection victim = WHARF.track(WHARF.factory(Transport.TCP).createConnection());
        victim.setClientID("victim-" + WHARF.queueName("c"));
        victim.createSession(false, Session.AUTO_ACKNOWLEDGE);
        CompletableFuture<JMSException> lost = new CompletableFuture<>();
        victim.setExceptionListener(lost::complete);

        JsonNode connections = JSON.readTree(ok(admin("--json", "display", "connections"))).get("result");
        JsonNode mine = null;
        for (JsonNode c : connections) {
            if (victim.getClientID().equals(c.get("clientId").asText())) {
                mine = c;
            }
        }
        assertNotNull(mine, connections.toString());
        assertEquals("tcp", mine.get("transport").asText());
        assertEquals(1, mine.get("sessions").asInt());
        assertTrue(mine.get("bytesIn").asLong() > 0 && mine.get("bytesOut").asLong() > 0, mine.toString());
        String table = ok(admin("display", "connections"));
        assertTrue(table.contains(victim.getClientID()), table);

        long id = mine.get("id").asLong();
        assertTrue(ok(admin("end", "connection", Long.toString(id))).startsWith("Ended connection " + id
                + " (anonymous from /127.0.0.1:"));
        assertNotNull(lost.get(10, TimeUnit.SECONDS), "the client's ExceptionListener is told");
        assertEquals("There is no open connection " + id + " ('display connections' lists the open ones; it may have "
                + "ended already).", failed(admin("end", "connection", Long.toString(id))));
        JsonNode inVm = null;
        for (JsonNode c : connections) {
            if (c.get("transport").asText().equals("vm")) {
                inVm = c;
            }
        }
        assertNotNull(inVm, "the admin plugin's own connection is listed");
        assertTrue(failed(admin("end", "connection", inVm.get("id").asText())).startsWith("Connection "
                + inVm.get("id").asText() + " is an in-VM connection"));
    }

    @Test
    void displayAndDeleteADurableSubscription() throws Exception {
        String clientId = WHARF.queueName("subscriber");
        Connection connection = WHARF.track(WHARF.factory(Transport.TCP).createConnection());
        connection.setClientID(clientId);
        Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        Topic topic = session.createTopic("admin/test/" + clientId);
        MessageConsumer subscriber = session.createDurableSubscriber(topic, "audit", "kind = 'x'", false);
        session.createProducer(topic).send(session.createTextMessage("kept"));

        String table = ok(admin("display", "subscriptions"));
        assertTrue(table.lines().anyMatch(l -> l.matches("admin/test/" + clientId.replace(".", "\\.")
                + "\\s+audit\\s+" + clientId.replace(".", "\\.") + "\\s+durable\\s+1\\s+0\\s+0\\s+-\\s+kind = 'x'")),
                table);
        assertTrue(failed(admin("delete", "subscription", "audit", "--client-id", clientId)).startsWith(
                "Durable subscription 'audit' of client ID '" + clientId + "' has 1 active consumer(s)"));
        subscriber.close();
        assertEquals("Deleted durable subscription audit of client ID " + clientId + ".",
                ok(admin("delete", "subscription", "audit", "--client-id", clientId)).strip());
        assertEquals("There is no durable subscription 'audit' of client ID '" + clientId + "' to delete.",
                failed(admin("delete", "subscription", "audit", "--client-id", clientId)));
    }

    /**
     * A prepared XA branch is listed, with its Xid, when it was prepared, its age and what it holds, until its
     * transaction manager commits it: what an operator needs to see which branch holds the journal back.
     */
    @Test
    void displayPreparedListsTheBranchesInDoubtWithTheirAgeUntilTheyAreCommitted() throws Exception {
        XAConnection connection = new WharfXAConnectionFactory(WHARF.server().tcpUrl()).createXAConnection();
        WHARF.track(connection);
        XASession xa = connection.createXASession();
        XAResource resource = xa.getXAResource();
        XaTest.TestXid xid = XaTest.TestXid.next();
        String gtrid = HexFormat.of().formatHex(xid.gtrid());
        resource.start(xid, XAResource.TMNOFLAGS);
        Session session = xa.getSession();
        session.createProducer(session.createQueue(WHARF.queueName("in-doubt"))).send(session.createTextMessage("held"));
        resource.end(xid, XAResource.TMSUCCESS);
        long before = System.currentTimeMillis();
        assertEquals(XAResource.XA_OK, resource.prepare(xid));
        long after = System.currentTimeMillis();

        JsonNode branch = null;
        for (JsonNode b : JSON.readTree(ok(admin("--json", "display", "prepared"))).get("result")) {
            if (b.get("globalTransactionId").asText().equals(gtrid)) {
                branch = b;
            }
        }
        assertNotNull(branch, "the prepared branch is listed");
        long listed = System.currentTimeMillis();
        assertEquals(0x1234, branch.get("formatId").asInt());
        assertEquals("07", branch.get("branchQualifier").asText());
        assertEquals("", branch.get("owner").asText(), "an anonymous client's branch");
        assertEquals(1, branch.get("sends").asInt());
        assertEquals(0, branch.get("consumed").asInt());
        assertFalse(branch.get("restored").asBoolean());
        long preparedAt = branch.get("preparedAt").asLong();
        assertTrue(preparedAt >= before && preparedAt <= after, preparedAt + " not within " + before + ".." + after);
        long age = branch.get("ageMillis").asLong();
        assertTrue(age >= 0 && age <= listed - before, "age " + age);
        String table = ok(admin("display", "prepared"));
        assertTrue(table.lines().anyMatch(l -> l.matches("\\s*4660\\s+" + gtrid + "\\s+07\\s+\\(anonymous\\)\\s+\\S+\\s+1\\s+0\\s+\\S+")),
                table);

        resource.commit(xid, false);
        assertFalse(ok(admin("display", "prepared")).contains(gtrid), "a committed branch is no longer in doubt");
    }

    @Test
    void displayServer() throws Exception {
        String shown = ok(admin("display", "server"));
        assertTrue(shown.startsWith("Queue manager " + WHARF.server().config().name() + " (Wharf "), shown);
        assertTrue(shown.contains("  listeners       " + WHARF.server().listenUrl() + ", " + WHARF.server().vmUrl()),
                shown);
        JsonNode server = JSON.readTree(ok(admin("--json", "display", "server"))).get("result");
        assertTrue(server.get("uptimeMillis").asLong() >= 0 && server.get("journalBytes").asLong() >= 0, server.toString());
        assertTrue(server.get("connections").asInt() >= 1, "the admin command's own connection at least");
    }

    /** A script: several commands over one connection, each answered; a failing line is named and fails the run. */
    @Test
    void aScriptRunsEveryLineAndNamesTheOneThatFailed() throws Exception {
        String queue = WHARF.queueName("scripted");
        Path script = dir.resolve("setup.txt");
        Files.writeString(script, "# set up\n"
                + "define queue " + queue + " --max-depth 3\n"
                + "\n"
                + "display queue NOT." + queue + "\n"
                + "alter queue " + queue + " --max-depth default\n"
                + "display queues '" + queue + "' --json\n");
        FlowCommandAccess.Result run = admin("--file", script.toString());
        assertEquals(1, run.status(), run.err());
        assertEquals("wharf: " + script + ":4: Queue 'NOT." + queue + "' does not exist ('display queues' lists the "
                + "queues; subscriptions' queues are under 'display subscriptions').", run.err().strip());
        String[] out = run.out().split("\n");
        assertEquals("Defined queue " + queue + ": max depth 3.", out[0]);
        assertEquals("Altered queue " + queue + ": max depth " + WHARF.server().config().maxQueueDepth()
                + " (the server-wide maxQueueDepth).", out[1]);
        JsonNode listed = JSON.readTree(out[2]).get("result").get(0);
        assertEquals(queue, listed.get("name").asText());
        assertFalse(listed.get("ownMaxDepth").asBoolean());
    }

    /**
     * Definitions made at run time are there after a real restart on the same data directory, and so are persistent
     * messages moved between queues, once, on the queue they were moved to.
     */
    @Test
    void queuesDefinedAndAlteredAtRunTimeAndMovedMessagesSurviveARestart() throws Exception {
        try (TestServer server = TestServer.start(c -> c.queue("CONFIGURED", 100),
                config -> WharfServer.start(config, new AdminPlugin()))) {
            String url = server.server().tcpUrl();
            assertEquals(0, FlowCommandAccess.run("admin", "--url", url, "define", "queue", "KEPT", "--max-depth",
                    "7", "--max-bytes", "65536", "--policy", "fail", "--backout-threshold", "3", "--backout-queue",
                    "KEPT.BAD", "--depth-high-event", "80", "--depth-low-event", "20", "--full-event", "on").status());
            assertEquals(0, FlowCommandAccess.run("admin", "--url", url, "alter", "queue", "CONFIGURED",
                    "--max-depth", "50").status());
            try (Connection connection = new org.wharfmq.jms.WharfConnectionFactory(url).createConnection()) {
                Send.texts(connection, "CONFIGURED", "first", "second");
            }
            assertEquals(0, FlowCommandAccess.run("admin", "--url", url, "move", "--from", "CONFIGURED", "--to", "KEPT",
                    "--selector", "JMSDeliveryMode = 'PERSISTENT'", "--limit", "1").status()); // the first one
            WharfServer restarted = server.restart(c -> c.autoCreate(false));
            assertEquals(1, restarted.queueManager().depth("CONFIGURED"));
            assertEquals(1, restarted.queueManager().depth("KEPT"));
            try (Connection connection = new org.wharfmq.jms.WharfConnectionFactory(restarted.tcpUrl())
                    .createConnection()) {
                connection.start();
                Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
                assertEquals("first", Receive.nextText(session.createConsumer(session.createQueue("KEPT"))).getText());
                assertEquals("second", Receive.nextText(session.createConsumer(session.createQueue("CONFIGURED")))
                        .getText());
            }
            JsonNode queues = JSON.readTree(FlowCommandAccess.run("admin", "--url", restarted.tcpUrl(), "--json",
                    "display", "queues").out()).get("result");
            List<String> kept = new ArrayList<>();
            for (JsonNode q : queues) {
                kept.add(q.get("name").asText() + " " + q.get("maxDepth").asLong() + " " + q.get("origin").asText());
            }
            assertTrue(kept.contains("KEPT 7 DEFINED"), kept.toString());
            String shown = FlowCommandAccess.run("admin", "--url", restarted.tcpUrl(), "display", "queue", "KEPT").out();
            assertTrue(shown.contains("\n  backout         after 3 backouts, to KEPT.BAD\n"), shown);
            assertTrue(shown.contains("\n  settings        maxBytes 65536, policy fail, backoutThreshold 3, backoutQueue"
                    + " KEPT.BAD, depthHighEvent 80, depthLowEvent 20, fullEvent true\n"), shown);
            assertEquals(65_536, restarted.queueManager().find("KEPT").memoryLimit().maxBytes(),
                    "every setting is in force again after the restart, not only shown");
            assertEquals(0, FlowCommandAccess.run("admin", "--url", restarted.tcpUrl(), "alter", "queue", "KEPT",
                    "--backout-queue", "default", "--max-bytes", "default").status());
            JsonNode altered = JSON.readTree(FlowCommandAccess.run("admin", "--url", restarted.tcpUrl(), "--json",
                    "display", "queue", "KEPT").out()).get("result").get("settings");
            assertTrue(altered.get("backoutQueue").isNull() && altered.get("maxBytes").isNull(), altered.toString());
            assertEquals(3, altered.get("backoutThreshold").asInt(), "a setting left out stays");
            assertTrue(kept.contains("CONFIGURED 50 ALTERED"), "the run-time definition wins: " + kept);
        }
    }

    /**
     * Every key of a queue ({@code QueueConfiguration}), given by its key ({@code --set KEY=VALUE}), is what display
     * queue shows, what the definitions file keeps, and what the queue has after a restart, read back from the file;
     * alter's {@code default} puts each back. A key declared without a value in {@link QueueKeys} fails the test: a
     * new key is round-tripped as soon as it is declared.
     */
    @Test
    void everyKeyOfAQueueRoundTripsThroughTheAdminCommandAndTheDefinitionsFile() throws Exception {
        Map<String, String> values = QueueKeys.every();
        try (TestServer server = TestServer.start(c -> c, config -> WharfServer.start(config, new AdminPlugin()))) {
            List<String> define = new ArrayList<>(List.of("admin", "--url", server.server().tcpUrl(), "define",
                    "queue", "EVERY"));
            values.forEach((key, value) -> define.addAll(List.of("--set", key + "=" + value)));
            FlowCommandAccess.Result defined = FlowCommandAccess.run(define.toArray(String[]::new));
            assertEquals(0, defined.status(), defined.err());
            assertEquals(values, shownSettings(server.server().tcpUrl(), "EVERY"), "through the admin command");
            Path file = server.config().dataDirectory().resolve(QueueDefinitionFile.FILE_NAME);
            StringBuilder line = new StringBuilder("\nEVERY");
            values.forEach((key, value) -> line.append('\t').append(key).append('=').append(value));
            assertTrue(Files.readString(file).contains(line + "\n"), Files.readString(file));

            WharfServer restarted = server.restart();
            assertEquals(values, shownSettings(restarted.tcpUrl(), "EVERY"), "read back from the definitions file");
            LocalQueue every = restarted.queueManager().find("EVERY");
            assertEquals(values, restarted.queueManager().definition(every).attributes());
            assertEquals(40, every.maxDepth(), "in force, not only shown");
            assertTrue(restarted.queueManager().isTransmissionQueue("EVERY"));

            List<String> alter = new ArrayList<>(List.of("admin", "--url", restarted.tcpUrl(), "alter", "queue",
                    "EVERY"));
            values.keySet().forEach(key -> alter.addAll(List.of("--set", key + "=default")));
            FlowCommandAccess.Result altered = FlowCommandAccess.run(alter.toArray(String[]::new));
            assertEquals(0, altered.status(), altered.err());
            assertEquals(Map.of(), shownSettings(restarted.tcpUrl(), "EVERY"), "default puts every key back");
            assertTrue(Files.readString(file).contains("\nEVERY\n"), Files.readString(file));
            assertFalse(restarted.queueManager().isTransmissionQueue("EVERY"));
        }
    }

    /** The settings of queue {@code queue} that display queue shows set (its name aside), as text. */
    private static Map<String, String> shownSettings(String url, String queue) throws Exception {
        FlowCommandAccess.Result shown = FlowCommandAccess.run("admin", "--url", url, "--json", "display", "queue",
                queue);
        assertEquals(0, shown.status(), shown.err());
        Map<String, String> settings = new LinkedHashMap<>();
        JSON.readTree(shown.out()).get("result").get("settings").fields().forEachRemaining(setting -> {
            if (!setting.getKey().equals("name") && !setting.getValue().isNull()) {
                settings.put(setting.getKey(), setting.getValue().asText());
            }
        });
        return settings;
    }
}
