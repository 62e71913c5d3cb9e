package org.wharfmq.server.store;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.server.FreePorts;
import org.wharfmq.server.TestCertificates;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.server.cli.FlowCommandAccess;
import org.wharfmq.server.it.TcpProxy;

import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Session;
import javax.jms.TextMessage;

import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 35's failover of a replicated queue manager: three {@code wharf server --replica ID} processes, each with its
 * own data directory, a {@code replication:} block and its member certificate, and the clients of
 * {@link ReconnectWorkload} (request/reply and a transacted persistent producer/consumer pair, with its checks:
 * nothing committed lost, nothing delivered twice unmarked) with the three client addresses. The active member is
 * killed with SIGKILL, a replica is elected and takes over on its own port from its own journal, the clients find
 * it; the killed member is started again and rejoins as a replica; then the second active member is killed too, so
 * the next one can only be elected with the rejoined member's vote and log, and the work goes on there; its
 * {@code display server} shows it LEADER with two of three in sync, the rejoined member among them, and so do its
 * metrics. A queue defined at run time on the first active member, with its messages, is on every later one. Then a
 * planned switchover to the rejoined member (to the third if the rejoined one was elected), and a partition cutting
 * the active member off from both others: it ends, the other two go on, and restarted it rejoins once the cut heals
 * (docs/resilience.md lists the steps).
 */
@Tag("slow")
class ReplicatedFailoverTest {

    private static final String[] IDS = {"a", "b", "c"};
    private static final Duration ELECTION = Duration.ofSeconds(90);
    private static final String RUNTIME_QUEUE = "RUNTIME.Q";
    private static final List<String> RUNTIME_QUEUE_MESSAGES = List.of("one", "two", "three");

    @TempDir
    Path dir;

    private final int[] clientPorts = new int[3];
    private final int[] httpPorts = new int[3];
    private final Path[] configs = new Path[3];
    private final ServerProcess[] members = new ServerProcess[3];
    private final Path[] hostsFiles = new Path[3];
    /** The paths between members, [from][to]: the proxy member FROM reaches member TO through. */
    private final TcpProxy[][] links = new TcpProxy[3][3];

    @Test
    @Timeout(value = 900, unit = TimeUnit.SECONDS)
    void transactedPersistentWorkGoesOnAcrossFailoversASwitchoverAndAPartition() throws Exception {
        writeConfigurations();
        StringBuilder addresses = new StringBuilder();
        for (int i = 0; i < 3; i++) {
            addresses.append(i == 0 ? "" : ",").append("tcp://127.0.0.1:").append(clientPorts[i]);
        }
        ReconnectWorkload workload = new ReconnectWorkload(addresses.toString());
        try {
            for (int i = 0; i < 3; i++) {
                start(i);
            }
            int active = awaitActive(-1);
            workload.start();
            workload.awaitRound(members[active]);

            // a queue defined at run time, holding persistent messages: its definition travels through the log too
            FlowCommandAccess.Result defined = admin(members[active], "define", "queue", RUNTIME_QUEUE, "--max-depth",
                    "1234");
            assertEquals(0, defined.status(), defined.out() + defined.err());
            sendTo(active, RUNTIME_QUEUE_MESSAGES);

            int first = active;
            ReconnectWorkload.Outage outage = workload.kill(members[first]);
            outage.release();
            active = awaitActive(first);
            assertNotEquals(first, active);
            System.out.println("ReplicatedFailoverTest: " + IDS[first] + " killed, " + IDS[active] + " took over; "
                    + outage.awaitWorking(members[active]));
            workload.awaitRound(members[active]);
            // the new active member has the queue as it was defined (its own max depth), and its messages
            String queue = admin(members[active], "--json", "display", "queue", RUNTIME_QUEUE).out();
            assertTrue(queue.contains("\"maxDepth\":1234"), queue);
            assertTrue(queue.contains("\"depth\":" + RUNTIME_QUEUE_MESSAGES.size()), queue);

            start(first); // rejoins as a replica: its journal rebuilt from the log
            int second = active;
            outage = workload.kill(members[second]);
            outage.release();
            active = awaitActive(second);
            System.out.println("ReplicatedFailoverTest: " + IDS[second] + " killed, " + IDS[active] + " took over; "
                    + outage.awaitWorking(members[active]));
            workload.awaitRound(members[active]);

            // the active member's status: itself and the rejoined member in sync, the killed one not
            String rejoined = IDS[first];
            String status = awaitStatus(members[active], "in sync\\s+2/3");
            assertTrue(Pattern.compile("\\b" + rejoined + " in sync").matcher(status).find(), status);
            assertTrue(status.contains("member " + IDS[active] + " of group TEST, LEADER (active: " + IDS[active]),
                    status);
            assertTrue(Pattern.compile("in sync\\s+2/3").matcher(status).find(), status);
            String metrics = awaitMetrics(httpPorts[active], "(?m)^wharf_replication_in_sync 2\\.0$");
            assertTrue(metrics.contains("wharf_replication_backlog_bytes"), metrics);

            // a planned switchover, with the member killed second back as a replica: the active one hands over and
            // ends with status 3, the clients go on with the new one
            start(second);
            awaitStatus(members[active], "in sync\\s+3/3");
            int old = active;
            ServerProcess leaving = members[old];
            // to the rejoined member, unless the election made it the active one: then to the third
            int to = active != first ? first : 3 - first - second;
            outage = workload.end(() -> {
                FlowCommandAccess.Result switched = admin(leaving, "switchover", "--to", IDS[to]);
                assertEquals(0, switched.status(), switched.out() + switched.err());
                assertTrue(switched.out().contains("to member " + IDS[to]), switched.out());
                assertEquals(3, leaving.awaitExit(90), leaving.outputSoFar());
            });
            outage.release();
            assertTrue(leaving.outputSoFar().contains("(switchover)"), leaving.outputSoFar());
            active = awaitActive(old);
            if (active != to) {
                // the named member asks for the votes first (ReplicationMemberTest holds it to that under load); if
                // its election fails, the group elects another member, as after a failure: the clients go on there.
                // Printed, with what the members said, since it should be rare (CI saw it once, before the leaving
                // member waited for a successor before it ended)
                StringBuilder out = new StringBuilder();
                for (int i = 0; i < 3; i++) {
                    out.append("---- member ").append(IDS[i]).append(i == old ? " (leaving)" : "").append(":\n")
                            .append(i == old ? leaving.outputSoFar() : members[i].outputSoFar());
                }
                System.out.println("ReplicatedFailoverTest: the switchover to " + IDS[to] + " made " + IDS[active]
                        + " active:\n" + out);
            }
            System.out.println("ReplicatedFailoverTest: switched over from " + IDS[old] + " to " + IDS[active] + "; "
                    + outage.awaitWorking(members[active]));
            workload.awaitRound(members[active]);
            assertEquals(RUNTIME_QUEUE_MESSAGES, receiveFrom(active, RUNTIME_QUEUE_MESSAGES.size()));
            queue = admin(members[active], "--json", "display", "queue", RUNTIME_QUEUE).out();
            assertTrue(queue.contains("\"maxDepth\":1234") && queue.contains("\"depth\":0"), queue);

            // a partition: the active member cut off from both replicas (the paths between members, not its clients),
            // the clients at work throughout. It stops taking work and ends (status 3), the other two elect a new
            // active member; restarted while still cut off (as a service manager would), it rejoins as a replica
            // once the cut heals
            start(old);
            awaitStatus(members[active], "in sync\\s+3/3");
            int isolated = active;
            long[] cutAt = new long[1];
            outage = workload.end(() -> {
                cutAt[0] = System.nanoTime();
                isolate(isolated, true);
                assertEquals(3, members[isolated].awaitExit(90), members[isolated].outputSoFar());
            });
            long stoppedAfter = System.nanoTime() - cutAt[0];
            outage.release();
            active = awaitActive(isolated);
            System.out.printf("ReplicatedFailoverTest: %s cut off, ended after %.0f ms, %s took over; %s%n",
                    IDS[isolated], stoppedAfter / 1e6, IDS[active], outage.awaitWorking(members[active]));
            workload.awaitRound(members[active]);
            start(isolated);
            isolate(isolated, false);
            status = awaitStatus(members[active], "in sync\\s+3/3");
            assertTrue(Pattern.compile("\\b" + IDS[isolated] + " in sync").matcher(status).find(), status);
            workload.awaitRound(members[active]);
            workload.finish();
        } finally {
            workload.stopNow();
            for (ServerProcess m : members) {
                if (m != null && m.alive()) {
                    m.close();
                }
            }
            for (TcpProxy[] from : links) {
                for (TcpProxy link : from) {
                    if (link != null) {
                        link.close();
                    }
                }
            }
        }
        workload.verify();
        System.out.println("ReplicatedFailoverTest: " + workload.report());
    }

    /** Runs {@code wharf admin} against {@code member}. */
    private static FlowCommandAccess.Result admin(ServerProcess member, String... command) {
        List<String> args = new ArrayList<>(List.of("admin", "--url", member.url()));
        args.addAll(List.of(command));
        return FlowCommandAccess.run(args.toArray(String[]::new));
    }

    /** Sends {@code bodies} to the runtime queue, persistent, through member {@code i}. */
    private void sendTo(int i, List<String> bodies) throws Exception {
        try (Connection c = new WharfConnectionFactory("tcp://127.0.0.1:" + clientPorts[i]).createConnection()) {
            Session session = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageProducer producer = session.createProducer(session.createQueue(RUNTIME_QUEUE));
            producer.setDeliveryMode(DeliveryMode.PERSISTENT);
            for (String body : bodies) {
                producer.send(session.createTextMessage(body));
            }
        }
    }

    /** Receives {@code n} messages from the runtime queue through member {@code i}, in a transaction. */
    private List<String> receiveFrom(int i, int n) throws Exception {
        try (Connection c = new WharfConnectionFactory("tcp://127.0.0.1:" + clientPorts[i]).createConnection()) {
            c.start();
            Session session = c.createSession(true, Session.SESSION_TRANSACTED);
            MessageConsumer consumer = session.createConsumer(session.createQueue(RUNTIME_QUEUE));
            List<String> bodies = new ArrayList<>();
            for (int k = 0; k < n; k++) {
                Message m = consumer.receive(ELECTION.toMillis());
                assertNotNull(m, "message " + k + " of the runtime queue");
                bodies.add(((TextMessage) m).getText());
            }
            session.commit();
            return bodies;
        }
    }

    private void start(int i) throws Exception {
        members[i] = ServerProcess.launch(dir.resolve(IDS[i]), clientPorts[i],
                List.of("-Djdk.net.hosts.file=" + hostsFiles[i]), "--config", configs[i].toString(), "--replica",
                IDS[i]);
    }

    /** Cuts (or heals) every path between member {@code i} and the others, both ways. */
    private void isolate(int i, boolean cut) {
        for (int j = 0; j < 3; j++) {
            if (j != i) {
                for (TcpProxy link : new TcpProxy[] {links[i][j], links[j][i]}) {
                    if (cut) {
                        link.cut();
                    } else {
                        link.heal();
                    }
                }
            }
        }
    }

    /**
     * Scrapes the metrics of the member whose HTTP listener is on {@code port} (Prometheus's text format) until they
     * match {@code expected}; returns the last scrape.
     */
    private static String awaitMetrics(int port, String expected) throws Exception {
        Pattern pattern = Pattern.compile(expected);
        HttpClient client = HttpClient.newHttpClient();
        long deadline = System.nanoTime() + ELECTION.toNanos();
        String body = "";
        while (System.nanoTime() < deadline) {
            HttpResponse<String> response = client.send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + port + "/metrics")).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, response.statusCode(), response.body());
            body = response.body();
            if (pattern.matcher(body).find()) {
                return body;
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
        }
        throw new AssertionError("the metrics never showed " + expected + ":\n" + body);
    }

    /**
     * Asks {@code member} ({@code wharf admin display server}) until its answer matches {@code expected}, and returns
     * the last answer.
     */
    private static String awaitStatus(ServerProcess member, String expected) {
        Pattern pattern = Pattern.compile(expected);
        long deadline = System.nanoTime() + ELECTION.toNanos();
        String out = "";
        while (System.nanoTime() < deadline) {
            FlowCommandAccess.Result result = FlowCommandAccess.run("admin", "--url", member.url(), "display", "server");
            out = result.out() + result.err();
            if (result.status() == 0 && pattern.matcher(out).find()) {
                return out;
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
        }
        throw new AssertionError("display server never showed " + expected + ":\n" + out);
    }

    /** Waits for a running member other than {@code not} to print its ready line; returns its position. */
    private int awaitActive(int not) {
        long deadline = System.nanoTime() + ELECTION.toNanos();
        while (System.nanoTime() < deadline) {
            for (int i = 0; i < 3; i++) {
                if (i != not && members[i] != null && members[i].ready()) {
                    return i;
                }
            }
            for (int i = 0; i < 3; i++) {
                assertFalse(i != not && members[i] != null && !members[i].alive(),
                        () -> "a member ended:\n" + members[List.of(0, 1, 2).stream()
                                .filter(j -> j != not && members[j] != null && !members[j].alive()).findFirst()
                                .orElseThrow()].outputSoFar());
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
        }
        StringBuilder out = new StringBuilder();
        for (ServerProcess m : members) {
            out.append(m == null ? "" : m.outputSoFar()).append("\n----\n");
        }
        throw new AssertionError("no member became active within " + ELECTION + ":\n" + out);
    }

    /**
     * One configuration file per member: the same replication block, its own certificate. A member's address names
     * host {@code member-ID}, which each member's JVM resolves through a hosts file of its own
     * ({@code jdk.net.hosts.file}): to 127.0.0.1 for itself, and for another member to a loopback address of the path
     * between the two (127.0.FROM.TO), where a {@link TcpProxy} relays to that member. So every path, each way, can be
     * cut on its own, without root and without network namespaces.
     */
    private void writeConfigurations() throws Exception {
        TestCertificates.Issued ca = TestCertificates.ca("replication-group");
        Path trust = TestCertificates.trustStore(dir.resolve("ca.p12"), ca.certificate());
        int[] ports = FreePorts.take(9);
        StringBuilder members = new StringBuilder();
        for (int i = 0; i < 3; i++) {
            clientPorts[i] = ports[3 + i];
            httpPorts[i] = ports[6 + i];
            members.append("    - id: ").append(IDS[i]).append('\n')
                    .append("      address: ").append(host(i)).append(':').append(ports[i]).append('\n')
                    .append("      dataDirectory: ").append(dir.resolve(IDS[i])).append('\n');
        }
        String localHost = InetAddress.getLocalHost().getHostName();
        for (int i = 0; i < 3; i++) {
            StringBuilder hosts = new StringBuilder("127.0.0.1 localhost " + localHost + " " + host(i) + "\n");
            for (int j = 0; j < 3; j++) {
                if (j != i) {
                    InetAddress path = InetAddress.getByAddress(new byte[] {127, 0, (byte) (i + 1), (byte) (j + 1)});
                    links[i][j] = TcpProxy.start(path, ports[j], ports[j]);
                    hosts.append(path.getHostAddress()).append(' ').append(host(j)).append('\n');
                }
            }
            hostsFiles[i] = Files.writeString(dir.resolve(IDS[i] + ".hosts"), hosts);
        }
        for (int i = 0; i < 3; i++) {
            Path keys = TestCertificates.issue(ca, "CN=" + IDS[i] + ",O=Wharf Test", Duration.ofDays(1), host(i),
                            "127.0.0.1")
                    .pkcs12(dir.resolve(IDS[i] + ".p12"));
            configs[i] = Files.writeString(dir.resolve(IDS[i] + ".yaml"), "maxMessageLength: 1048576\n"
                    + "http:\n"
                    + "  host: 127.0.0.1\n"
                    + "  port: " + httpPorts[i] + "\n"
                    + "replication:\n"
                    + "  group: TEST\n"
                    + "  members:\n" + members
                    + "  tls:\n"
                    + "    keyStore: " + keys + "\n"
                    + "    keyStorePassword: " + TestCertificates.PASSWORD + "\n"
                    + "    trustStore: " + trust + "\n"
                    + "    trustStorePassword: " + TestCertificates.PASSWORD + "\n");
        }
    }

    /** The host name of member {@code i}'s replication address. */
    private static String host(int i) {
        return "member-" + IDS[i];
    }
}
