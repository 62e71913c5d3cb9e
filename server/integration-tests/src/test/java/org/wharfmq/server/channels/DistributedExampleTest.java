package org.wharfmq.server.channels;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.protocol.auth.ScramCredential;
import org.wharfmq.protocol.message.TransmissionHeader;
import org.wharfmq.server.FreePorts;
import org.wharfmq.server.it.ExampleFolders;
import org.wharfmq.server.it.Receive;
import org.wharfmq.server.security.file.UsersFileEditor;
import org.wharfmq.server.store.ServerProcess;

import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Queue;
import javax.jms.Session;
import javax.jms.TextMessage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The distributed example, {@code config/examples/distributed} (docs/distributed.md, "Worked example: two queue
 * managers, then three"), done as its files say, in a copy of the folder: its {@code make-keys.sh} makes the CA and
 * the queue managers' keys, the users each {@code security.yaml} lists are added (the channels' users with the
 * passwords of the senders' definitions), and QM1, QM2 and then QM3 start as processes from their {@code wharf.yaml}
 * (only the ports made free ones and the data put in the test's directory). Their channels run over TLS, each logged
 * in as its user. A requester on QM1 sends an order to ORDERS, QM2's queue, and gets the reply its responder sends to
 * the order's JMSReplyTo; once QM3 runs, a subscriber on QM2 and one on QM3 each receive every publication made on
 * QM1 once, in order. A change to those files that stops this being true fails here.
 */
@Tag("slow")
class DistributedExampleTest {

    private static final List<String> MEMBERS = List.of("qm1", "qm2", "qm3");
    /** The TLS ports the example's files give QM1, QM2 and QM3, made free ones here. */
    private static final List<String> TLS_PORTS = List.of("7415", "7425", "7435");
    private static final int PUBLICATIONS = 20;
    private static final long ARRIVAL_MS = 30_000;
    /** A JVM starting on a loaded machine (one took 70 s at load 46). */
    private static final long START_SECONDS = 180;

    @TempDir
    Path dir;

    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void stop() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void aRequestAndItsReplyCrossTwoQueueManagersAndEachPublicationOfTheParentReachesBothChildrenOnce()
            throws Exception {
        Path example = ExampleFolders.copy(ExampleFolders.of("distributed"), dir.resolve("distributed"));
        String made = ExampleFolders.makeKeys(example, Map.of());
        for (String member : MEMBERS) {
            assertTrue(Files.exists(example.resolve("tls/" + member + ".p12")), made);
            addUsers(example.resolve(member).resolve("security.yaml"));
        }
        freePorts(example);
        ServerProcess qm1 = start(example, "qm1");
        ServerProcess qm2 = start(example, "qm2");

        // two queue managers: a request from QM1 to ORDERS on QM2, and the reply to its JMSReplyTo
        Session requester = session(qm1);
        TextMessage order = requester.createTextMessage("order 1");
        order.setJMSReplyTo(requester.createQueue("REPLIES"));
        requester.createProducer(requester.createQueue("ORDERS")).send(order);
        Session responder = session(qm2);
        Message request = next(responder.createConsumer(responder.createQueue("ORDERS")));
        assertEquals("order 1", ((TextMessage) request).getText());
        assertEquals("QM1/REPLIES", ((Queue) request.getJMSReplyTo()).getQueueName());
        assertEquals("QM1", request.getStringProperty(TransmissionHeader.SOURCE_QUEUE_MANAGER));
        TextMessage reply = responder.createTextMessage("accepted");
        reply.setJMSCorrelationID(request.getJMSMessageID());
        responder.createProducer(null).send(request.getJMSReplyTo(), reply);
        Message back = next(requester.createConsumer(requester.createQueue("REPLIES")));
        assertEquals("accepted", ((TextMessage) back).getText());
        assertEquals(order.getJMSMessageID(), back.getJMSCorrelationID());
        assertEquals("RUNNING", channel(qm1, "QM1.TO.QM2").get("state").asText());
        assertEquals("RUNNING", channel(qm2, "QM2.TO.QM1").get("state").asText());

        // three: QM3 joins; a subscriber on each child receives each publication of the parent once, in order
        ServerProcess qm3 = start(example, "qm3");
        List<MessageConsumer> subscribers = new ArrayList<>();
        for (ServerProcess child : List.of(qm2, qm3)) {
            Session s = session(child);
            subscribers.add(s.createConsumer(s.createTopic("prices/#")));
        }
        awaitProxySubscriptions(qm1, "QM2");
        awaitProxySubscriptions(qm1, "QM3");
        MessageProducer publisher = requester.createProducer(requester.createTopic("prices/gold"));
        for (int i = 0; i < PUBLICATIONS; i++) {
            publisher.send(requester.createTextMessage("gold " + i), DeliveryMode.PERSISTENT, 4, 0);
        }
        publisher.send(requester.createTextMessage("end"), DeliveryMode.PERSISTENT, 4, 0);
        for (MessageConsumer subscriber : subscribers) {
            for (int i = 0; i < PUBLICATIONS; i++) {
                assertEquals("gold " + i, ((TextMessage) next(subscriber)).getText());
            }
            assertEquals("end", ((TextMessage) next(subscriber)).getText(), "a publication twice comes before it");
            Receive.nothingMore(subscriber);
        }
        assertEquals("RUNNING", channel(qm1, "QM1.TO.QM3").get("state").asText());
    }

    /** Starts member {@code name} from its wharf.yaml, its data in the test's directory; closed at the end. */
    private ServerProcess start(Path example, String name) throws Exception {
        ServerProcess process = ServerProcess.launch(List.of(), "127.0.0.1", dir.resolve(name + "-data"),
                FreePorts.one(), List.of(), "--config", example.resolve(name).resolve("wharf.yaml").toString());
        open.add(process);
        process.awaitReady(START_SECONDS);
        return process;
    }

    /** A started session of user app (password app-pw) on {@code qm}'s plain listener; closed at the end. */
    private Session session(ServerProcess qm) throws Exception {
        Connection connection = new WharfConnectionFactory(qm.url()).createConnection("app", "app-pw");
        open.add(connection);
        connection.start();
        return connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
    }

    private static Message next(MessageConsumer consumer) throws Exception {
        Message m = consumer.receive(ARRIVAL_MS);
        assertTrue(m != null, "nothing arrived within " + ARRIVAL_MS + " ms");
        return m;
    }

    /** The status {@code display chstatus} gives of {@code qm}'s channel {@code name}, asked as user ops. */
    private static JsonNode channel(ServerProcess qm, String name) throws Exception {
        for (JsonNode c : AdminCli.request(qm.url(), "ops", "display-chstatus", Map.of()).get("result")) {
            if (c.get("name").asText().equals(name)) {
                return c;
            }
        }
        throw new AssertionError("no channel " + name + " in display chstatus");
    }

    /** Asks {@code parent} ({@code display pubsub}, as ops) until its child {@code child} has a proxy subscription. */
    private static void awaitProxySubscriptions(ServerProcess parent, String child) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ARRIVAL_MS);
        while (true) {
            JsonNode answer = AdminCli.request(parent.url(), "ops", "display-pubsub", Map.of());
            for (JsonNode partner : answer.get("result").get("partners")) {
                if (partner.get("queueManager").asText().equals(child)
                        && partner.get("proxySubscriptions").asLong() > 0) {
                    return;
                }
            }
            assertTrue(System.nanoTime() < deadline, "no proxy subscription of " + child + " within " + ARRIVAL_MS
                    + " ms: " + answer + "\n" + parent.outputSoFar());
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20)); // asks the queue manager again
        }
    }

    /**
     * Adds the users the file's own comment lists, as {@code bin/wharf user add NAME ...} would: each with password
     * NAME-pw, or the one its line pipes in ({@code printf '%s\n' PASSWORD | ...}: the channels' users).
     */
    private static void addUsers(Path security) throws Exception {
        UsersFileEditor users = UsersFileEditor.open(security);
        List<String> commands = Files.readAllLines(security).stream().map(String::trim)
                .filter(line -> line.startsWith("#") && line.contains("bin/wharf user add ")).toList();
        assertTrue(commands.size() >= 3, "app, ops and the channels' users: " + commands);
        for (String command : commands) {
            List<String> words = Arrays.asList(command.substring(command.indexOf("bin/wharf")).split("\\s+"));
            String name = words.get(3);
            String password = command.contains("--password-stdin")
                    ? command.substring(command.indexOf("'%s\\n' ") + 7, command.indexOf(" |")) : name + "-pw";
            users.put(name, ScramCredential.create(password.toCharArray(), 4096, new SecureRandom()), List.of());
        }
        users.save();
    }

    /** Gives each member's TLS listener a free port, in its own file and in its partners' connections. */
    private static void freePorts(Path example) throws Exception {
        List<String> free = new ArrayList<>();
        for (int i = 0; i < TLS_PORTS.size(); i++) {
            free.add(String.valueOf(FreePorts.one()));
        }
        for (String member : MEMBERS) {
            Path file = example.resolve(member).resolve("wharf.yaml");
            String yaml = Files.readString(file);
            String own = "port: " + TLS_PORTS.get(MEMBERS.indexOf(member)) + "\n";
            assertTrue(yaml.contains(own), file + " has its TLS listener's " + own);
            for (int i = 0; i < TLS_PORTS.size(); i++) {
                yaml = yaml.replace("port: " + TLS_PORTS.get(i) + "\n", "port: " + free.get(i) + "\n")
                        .replace("ssl://localhost:" + TLS_PORTS.get(i) + "\n", "ssl://localhost:" + free.get(i)
                                + "\n");
            }
            Files.writeString(file, yaml);
        }
    }
}
