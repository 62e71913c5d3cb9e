package org.wharfmq.server.store;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.client.core.ClientException;
import org.wharfmq.client.core.ConnectionListener;
import org.wharfmq.client.core.ConnectionSettings;
import org.wharfmq.client.core.CoreConnection;
import org.wharfmq.client.core.transport.BrokerAddress;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.jms.WharfStatusSession;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.auth.ScramCredential;
import org.wharfmq.server.FreePorts;
import org.wharfmq.server.TestCertificates;
import org.wharfmq.server.cli.FlowCommandAccess;

import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Session;
import javax.jms.TextMessage;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A replicated queue manager's members as processes ({@code wharf server --replica}), secured by a security file:
 * each replica answers for itself over its HTTP listener ({@code /api/display-server}, {@code /metrics}) and in a
 * status session on its client port ({@code wharf admin --url tcp://...}) to a user with the monitor permission, and
 * refuses others, applications and any command but display server; a member is added on the active member (through the console's
 * API: the admin command {@code define-member}) after it was started with the new member list, catches up and
 * counts; another is stopped and removed; after a kill -9 of the active member the changed group elects the next and keeps every
 * persistent message; and a member restarted on its old configuration file takes the group's members from its log.
 * Tagged slow (processes, elections).
 */
@Tag("slow")
class ReplicatedMembersTest {

    private static final String[] IDS = {"a", "b", "c", "d"};
    private static final Duration WAIT = Duration.ofSeconds(180); // a member JVM took 100 s to start at load 50
    private static final List<String> BODIES = List.of("one", "two", "three");
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();

    @TempDir
    Path dir;

    private final int[] replicationPorts = new int[4];
    private final int[] clientPorts = new int[4];
    private final int[] httpPorts = new int[4];
    private final Path[] configs = new Path[4];
    private final ServerProcess[] members = new ServerProcess[4];

    @Test
    // four member processes, elections, a catch-up and a wharf admin process: 87 s at load 9 to 20
    @Timeout(value = 480, unit = TimeUnit.SECONDS)
    void aReplicaAnswersForItselfAndMembersAreAddedAndRemovedAtRunTime() throws Exception {
        writeConfigurations();
        try {
            for (int i = 0; i < 3; i++) {
                start(i);
            }
            int active = awaitActive(-1);
            String activeId = IDS[active];
            sendTo(active);
            // d, started with the new member list, is added below: its JVM starts meanwhile
            start(3);

            // each replica answers for itself, to a user with the monitor permission only
            for (int i = 0; i < 3; i++) {
                if (i != active) {
                    JsonNode replica = awaitStatus(i, r -> r.path("role").asText().equals("FOLLOWER")
                            && r.path("active").asText().equals(activeId)
                            && r.path("lastContactMillis").has(activeId)
                            && r.path("journalBytes").asLong() > 0).path("replication"); // the messages applied
                    assertEquals(IDS[i], replica.path("member").asText());
                    assertEquals(Set.of("a", "b", "c"), names(replica.path("members")), replica.toString());
                    assertTrue(replica.path("term").asLong() >= 1, replica.toString());
                    assertTrue(replica.path("appliedIndex").asLong() >= 1, replica.toString());
                    // its own journal, with the messages' records
                    assertTrue(replica.path("journalFiles").asInt() >= 1
                            && replica.path("journalBytes").asLong() > 0, replica.toString());
                    String metrics = get(i, "/metrics", "root").body();
                    assertTrue(metrics.contains("wharf_replication_leader 0.0"), metrics);
                    assertTrue(metrics.contains("wharf_replication_members 3.0"), metrics);
                    assertTrue(metrics.contains("wharf_replication_replica_journal_files "), metrics);
                    HttpResponse<String> bob = get(i, "/api/display-server", "bob");
                    assertEquals(403, bob.statusCode(), bob.body());
                    assertTrue(bob.body().contains("bob"), bob.body());
                    assertEquals(401, get(i, "/api/display-server", null).statusCode(), "no login");
                    assertEquals(403, get(i, "/metrics", "bob").statusCode(), "bob's metrics");
                    // the console's address said only "No resource at '/'" (404) to a browser opening it on a replica,
                    // then named the active member's replication address: its HTTP listener, as the members' list gives it
                    HttpResponse<String> console = get(i, "/", "root");
                    assertEquals(503, console.statusCode(), console.body());
                    assertTrue(console.body().contains("the web console runs on the active member")
                            && console.body().contains("follows the active member " + activeId + ": open the console at "
                            + "its HTTP listener, http://127.0.0.1:" + httpPorts[active] + "/."), console.body());
                }
            }
            statusSessionOnAReplica(active == 0 ? 1 : 0, active);

            // d is added on the active member: an admin only
            awaitStatus(3, r -> r.path("member").asText().equals("d")); // its log listens before its status does
            String address = "127.0.0.1:" + replicationPorts[3];
            HttpResponse<String> refused = post(active, "/api/define-member", "bob",
                    "{\"member\": \"d\", \"address\": \"" + address + "\"}");
            assertEquals(403, refused.statusCode(), refused.body());
            HttpResponse<String> added = post(active, "/api/define-member", "root",
                    "{\"member\": \"d\", \"address\": \"" + address + "\"}");
            assertEquals(200, added.statusCode(), added.body());
            assertTrue(added.body().contains("joined replication group 'TEST'"), added.body());
            long committed = status(active).path("replication").path("committedIndex").asLong();
            JsonNode d = awaitStatus(3, r -> r.path("active").asText().equals(activeId)
                    && r.path("appliedIndex").asLong() >= committed).path("replication");
            assertEquals(Set.of("a", "b", "c", "d"), names(d.path("members")), d.toString());

            // the active member cannot remove itself; a founder is stopped, then removed (as the docs say)
            HttpResponse<String> self = post(active, "/api/delete-member", "root",
                    "{\"member\": \"" + activeId + "\"}");
            assertEquals(400, self.statusCode(), self.body());
            assertTrue(self.body().contains("is the active instance, which cannot remove itself"), self.body());
            int leaving = active == 2 ? 1 : 2;
            members[leaving].close();
            members[leaving] = null;
            HttpResponse<String> removed = post(active, "/api/delete-member", "root",
                    "{\"member\": \"" + IDS[leaving] + "\"}");
            assertEquals(200, removed.statusCode(), removed.body());
            Set<String> group = new TreeSet<>(Set.of("a", "b", "c", "d"));
            group.remove(IDS[leaving]);
            assertEquals(group, names(status(active).path("replication").path("members")));

            // the changed group survives its active member: the next one (d among the candidates) has every message
            members[active].kill();
            members[active] = null;
            int next = awaitActive(active);
            assertEquals(BODIES, receiveFrom(next));

            // the killed member comes back on its old configuration file (listing a, b and c): the log's members win
            start(active);
            JsonNode back = awaitStatus(active, r -> r.path("role").asText().equals("FOLLOWER")
                    && r.path("active").asText().equals(IDS[next])).path("replication");
            assertEquals(group, names(back.path("members")), back.toString());

            // wharf admin asks the rejoined replica over its HTTP listener: its status, as the user, and nothing else
            String url = "http://127.0.0.1:" + httpPorts[active];
            String[] shown = admin("root", "--url", url, "display", "server");
            assertEquals("0", shown[0], shown[2]);
            assertTrue(shown[1].contains("member " + IDS[active] + " of group TEST, FOLLOWER (active: " + IDS[next]),
                    shown[1]);
            String[] elsewhere = admin("root", "--url", url, "define", "queue", "Q");
            assertEquals("1", elsewhere[0], elsewhere[2]);
            assertTrue(elsewhere[2].contains("'define-queue' is not run over HTTP")
                    && elsewhere[2].contains("says the active member is " + IDS[next]), elsewhere[2]);
            String[] denied = admin("bob", "--url", url, "display", "server");
            assertEquals("1", denied[0], denied[2]);
            assertTrue(denied[2].contains("bob") && denied[2].contains("HTTP 403"), denied[2]);
        } finally {
            for (ServerProcess member : members) {
                if (member != null) {
                    member.kill();
                }
            }
        }
    }

    /**
     * Replica {@code i}'s client port: wharf admin's status session shows the replica's own status to a monitor; an
     * application is refused NOT_ACTIVE (and its address list goes on to the active member); a user without the
     * monitor permission is refused; a status session asking for more (an admin command, a JMS session) is refused,
     * and each refusal is an audit line on the replica.
     */
    private void statusSessionOnAReplica(int i, int active) throws Exception {
        String replica = "tcp://127.0.0.1:" + clientPorts[i];
        String[] shown = adminProcess("mon", "--url", replica, "display", "server");
        assertEquals("0", shown[0], shown[2]);
        assertTrue(shown[1].contains("member " + IDS[i] + " of group TEST, FOLLOWER (active: " + IDS[active])
                && shown[1].contains("last applied") && shown[1].contains(" (this replica's)"), shown[1]);

        // an application: refused before it logs in, and its address list finds the active member
        javax.jms.JMSException refused = org.junit.jupiter.api.Assertions.assertThrows(javax.jms.JMSException.class,
                () -> new WharfConnectionFactory(replica).createConnection("root", "root-pw").close());
        assertEquals("NOT_ACTIVE", refused.getErrorCode(), refused.getMessage());
        assertTrue(refused.getMessage().contains("is a replica") && refused.getMessage().contains("every member's "
                + "address"), refused.getMessage());
        try (Connection c = new WharfConnectionFactory(replica + "," + members[active].url())
                .createConnection("root", "root-pw")) {
            c.createSession(false, Session.AUTO_ACKNOWLEDGE).close();
        }

        // no monitor permission: refused at the handshake, audited
        int bobsBefore = members[i].outputSoFar().split("DENIED user 'bob'", -1).length; // the HTTP checks' too
        WharfConnectionFactory asBob = new WharfConnectionFactory(replica);
        asBob.setUserName("bob");
        asBob.setPassword("bob-pw");
        javax.jms.JMSSecurityException bob = org.junit.jupiter.api.Assertions.assertThrows(
                javax.jms.JMSSecurityException.class, asBob::createStatusSession);
        assertTrue(bob.getMessage().contains("bob") && bob.getMessage().contains("'monitor'"), bob.getMessage());
        // an administrator, but on a replica: the command is refused naming the active member, audited
        String[] define = admin("root", "--url", replica, "define", "queue", "Q");
        assertEquals("1", define[0], define[2]);
        assertTrue(define[2].contains("'define-queue' is not run here") && define[2].contains("follows the active "
                + "member " + IDS[active]), define[2]);
        // a status session that asks for a JMS session (what a put, get, subscription or browser needs): refused,
        // the connection closed, audited
        try (WharfStatusSession session = new WharfConnectionFactory(replica).createStatusSession()) {
            org.junit.jupiter.api.Assertions.fail("an anonymous status session was let in: " + session.serverName());
        } catch (javax.jms.JMSException anonymous) {
            assertTrue(anonymous.getMessage().contains("user name"), anonymous.getMessage());
        }
        CoreConnection core = CoreConnection.connect(ConnectionSettings.of(BrokerAddress.tcp("127.0.0.1", clientPorts[i]), "root",
                "root-pw", "test").withHelloFlags(Frame.Hello.STATUS_SESSION), ConnectionListener.NONE);
        try {
            assertTrue(core.statusSession());
            org.junit.jupiter.api.Assertions.assertThrows(ClientException.class, () -> core.requestOk(
                    id -> new Frame.CreateSession(id, 1, false, Session.AUTO_ACKNOWLEDGE), "CREATE_SESSION"));
        } finally {
            core.close();
        }
        // each refusal's audit line is written before its answer goes out; this JVM reads the member's output after
        String log = awaitOutput(i, out -> out.contains("CREATE_SESSION in the status session of a replica")
                && out.contains("'define-queue' in the status session of a replica")
                && out.split("DENIED user 'bob'", -1).length > bobsBefore);
        assertTrue(log.contains("CREATE_SESSION in the status session of a replica"), log);
        assertTrue(log.contains("'define-queue' in the status session of a replica"), log);
        assertTrue(log.split("DENIED user 'bob'", -1).length > bobsBefore, log);
    }

    /**
     * Waits until member {@code i}'s output so far passes {@code test} (for at most {@link #WAIT}) and returns it: the
     * caller's assertions then say what is missing.
     */
    private String awaitOutput(int i, Predicate<String> test) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        String out = members[i].outputSoFar();
        while (!test.test(out) && System.nanoTime() < deadline) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
            out = members[i].outputSoFar();
        }
        return out;
    }

    private static Set<String> names(JsonNode object) {
        Set<String> names = new TreeSet<>();
        object.fieldNames().forEachRemaining(names::add);
        return names;
    }

    private void start(int i) throws Exception {
        members[i] = ServerProcess.launch(dir.resolve(IDS[i]), clientPorts[i], "--config", configs[i].toString(),
                "--replica", IDS[i]);
    }

    /** Waits for a running member other than {@code not} to print its ready line; returns its position. */
    private int awaitActive(int not) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            for (int i = 0; i < members.length; i++) {
                if (i != not && members[i] != null && members[i].ready()) {
                    return i;
                }
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
        }
        StringBuilder out = new StringBuilder();
        for (ServerProcess m : members) {
            out.append(m == null ? "" : m.outputSoFar()).append("\n----\n");
        }
        throw new AssertionError("no member became active within " + WAIT + ":\n" + out);
    }

    /** Asks member {@code i} for its status (as root) until its replication part passes {@code test}. */
    private JsonNode awaitStatus(int i, Predicate<JsonNode> test) throws Exception {
        long deadline = System.nanoTime() + WAIT.toNanos();
        String last = "";
        while (System.nanoTime() < deadline) {
            try {
                HttpResponse<String> answer = get(i, "/api/display-server", "root");
                last = answer.statusCode() + " " + answer.body();
                if (answer.statusCode() == 200) {
                    JsonNode status = JSON.readTree(answer.body());
                    if (test.test(status.path("replication"))) {
                        return status;
                    }
                }
            } catch (java.io.IOException notYetListening) {
                last = notYetListening.toString();
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
        }
        throw new AssertionError("member " + IDS[i] + "'s status never passed: " + last + "\n"
                + members[i].outputSoFar());
    }

    private JsonNode status(int i) throws Exception {
        HttpResponse<String> answer = get(i, "/api/display-server", "root");
        assertEquals(200, answer.statusCode(), answer.body());
        return JSON.readTree(answer.body());
    }

    private HttpResponse<String> get(int i, String path, String user) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPorts[i] + path));
        if (user != null) {
            request.header("Authorization", basic(user));
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /**
     * Runs {@code wharf admin --user USER --password-stdin ARGUMENTS} in this JVM, the password USER-pw on its standard
     * input: its status, output and errors.
     */
    private static String[] admin(String user, String... arguments) {
        FlowCommandAccess.Result result = FlowCommandAccess.runWithInput(user + "-pw\n", adminWords(user, arguments)
                .toArray(String[]::new));
        return new String[] {String.valueOf(result.status()), result.out(), result.err()};
    }

    /** {@link #admin} as a process, as a user runs it (the launcher's class, its exit status). */
    private static String[] adminProcess(String user, String... arguments) throws Exception {
        List<String> words = adminWords(user, arguments);
        Process process = new ProcessBuilder(ServerProcess.wharf(List.of(), words)).start();
        process.getOutputStream().write((user + "-pw\n").getBytes(StandardCharsets.UTF_8));
        process.getOutputStream().close();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS), "wharf admin " + words);
        return new String[] {String.valueOf(process.exitValue()), out, err};
    }

    private static List<String> adminWords(String user, String... arguments) {
        List<String> words = new ArrayList<>(List.of("admin", "--user", user, "--password-stdin"));
        words.addAll(List.of(arguments));
        return words;
    }

    private HttpResponse<String> post(int i, String path, String user, String body) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPorts[i] + path))
                .header("Authorization", basic(user)).header("X-Wharf-Console", "1")
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body))
                .timeout(WAIT).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String basic(String user) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + user + "-pw")
                .getBytes(StandardCharsets.UTF_8));
    }

    /** Sends {@link #BODIES} persistent to queue KEPT through member {@code i}, as root. */
    private void sendTo(int i) throws Exception {
        try (Connection c = new WharfConnectionFactory(members[i].url()).createConnection("root", "root-pw")) {
            Session session = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageProducer producer = session.createProducer(session.createQueue("KEPT"));
            producer.setDeliveryMode(DeliveryMode.PERSISTENT);
            for (String body : BODIES) {
                producer.send(session.createTextMessage(body));
            }
        }
    }

    private List<String> receiveFrom(int i) throws Exception {
        try (Connection c = new WharfConnectionFactory(members[i].url()).createConnection("root", "root-pw")) {
            c.start();
            Session session = c.createSession(true, Session.SESSION_TRANSACTED);
            MessageConsumer consumer = session.createConsumer(session.createQueue("KEPT"));
            List<String> bodies = new ArrayList<>();
            for (int k = 0; k < BODIES.size(); k++) {
                Message m = consumer.receive(WAIT.toMillis());
                assertNotNull(m, "message " + k + " of KEPT on member " + IDS[i]);
                bodies.add(((TextMessage) m).getText());
            }
            session.commit();
            return bodies;
        }
    }

    /**
     * The founders' files list a, b and c; d's lists the four (it joins them). Users root (admins: every admin
     * command, and monitor) and bob (may connect only), each with the password NAME-pw.
     */
    private void writeConfigurations() throws Exception {
        Path security = Files.writeString(dir.resolve("security.yaml"), "users:\n"
                + "  root:\n    password: \"" + verifier("root-pw") + "\"\n    groups: [admins]\n"
                + "  bob:\n    password: \"" + verifier("bob-pw") + "\"\n    groups: [apps]\n"
                + "  mon:\n    password: \"" + verifier("mon-pw") + "\"\n    groups: [apps]\n"
                + "permissions:\n"
                + "  - queue: \"**\"\n    send: [anyone]\n    receive: [anyone]\n    create: [anyone]\n"
                + "  - connect: [anyone]\n"
                + "  - admin: [group:admins]\n"
                + "  - monitor: [user:mon]\n");
        TestCertificates.Issued ca = TestCertificates.ca("replication-group");
        Path trust = TestCertificates.trustStore(dir.resolve("ca.p12"), ca.certificate());
        int[] ports = FreePorts.take(12);
        StringBuilder list = new StringBuilder();
        for (int i = 0; i < 4; i++) {
            replicationPorts[i] = ports[i];
            clientPorts[i] = ports[4 + i];
            httpPorts[i] = ports[8 + i];
            list.append("    - id: ").append(IDS[i]).append('\n')
                    .append("      address: 127.0.0.1:").append(replicationPorts[i]).append('\n')
                    .append("      dataDirectory: ").append(dir.resolve(IDS[i])).append('\n')
                    .append("      httpUrl: http://127.0.0.1:").append(httpPorts[i]).append('\n');
            if (i == 2) {
                list.append("#founders\n");
            }
        }
        String founders = list.substring(0, list.indexOf("#founders\n"));
        String joined = list.toString().replace("#founders\n", "");
        for (int i = 0; i < 4; i++) {
            Path keys = TestCertificates.issue(ca, "CN=" + IDS[i] + ",O=Wharf Test", Duration.ofDays(1), "127.0.0.1")
                    .pkcs12(dir.resolve(IDS[i] + ".p12"));
            configs[i] = Files.writeString(dir.resolve(IDS[i] + ".yaml"), "maxMessageLength: 1048576\n"
                    + "security:\n  file: " + security + "\n"
                    + "http:\n"
                    + "  host: 127.0.0.1\n"
                    + "  port: " + httpPorts[i] + "\n"
                    + "replication:\n"
                    + "  group: TEST\n"
                    + "  members:\n" + (i < 3 ? founders : joined)
                    + "  tls:\n"
                    + "    keyStore: " + keys + "\n"
                    + "    keyStorePassword: " + TestCertificates.PASSWORD + "\n"
                    + "    trustStore: " + trust + "\n"
                    + "    trustStorePassword: " + TestCertificates.PASSWORD + "\n");
        }
    }

    private static String verifier(String password) {
        return ScramCredential.create(password.toCharArray(), 4096, new SecureRandom()).verifier();
    }
}
