package org.wharfmq.server.store;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.server.TestCertificates;
import org.wharfmq.server.cli.FlowCommandAccess;

import java.net.ServerSocket;
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
 * metrics.
 */
@Tag("slow")
class ReplicatedFailoverTest {

    private static final String[] IDS = {"a", "b", "c"};
    private static final Duration ELECTION = Duration.ofSeconds(90);

    @TempDir
    Path dir;

    private final int[] clientPorts = new int[3];
    private final int[] httpPorts = new int[3];
    private final Path[] configs = new Path[3];
    private final ServerProcess[] members = new ServerProcess[3];

    @Test
    @Timeout(value = 600, unit = TimeUnit.SECONDS)
    void transactedPersistentWorkGoesOnAcrossTwoFailoversAndTheKilledMemberRejoins() throws Exception {
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

            int first = active;
            ReconnectWorkload.Outage outage = workload.kill(members[first]);
            outage.release();
            active = awaitActive(first);
            assertNotEquals(first, active);
            System.out.println("ReplicatedFailoverTest: " + IDS[first] + " killed, " + IDS[active] + " took over; "
                    + outage.awaitWorking(members[active]));
            workload.awaitRound(members[active]);

            start(first); // rejoins as a replica: its journal rebuilt from the log
            int second = active;
            outage = workload.kill(members[second]);
            outage.release();
            active = awaitActive(second);
            System.out.println("ReplicatedFailoverTest: " + IDS[second] + " killed, " + IDS[active] + " took over; "
                    + outage.awaitWorking(members[active]));
            workload.awaitRound(members[active]);
            workload.finish();

            // the active member's status: itself and the rejoined member in sync, the killed one not
            String rejoined = IDS[first];
            String status = awaitStatus(members[active], "in sync\\s+2/3");
            assertTrue(Pattern.compile("\\b" + rejoined + " in sync").matcher(status).find(), status);
            assertTrue(status.contains("member " + IDS[active] + " of group TEST, LEADER (active: " + IDS[active]),
                    status);
            assertTrue(Pattern.compile("in sync\\s+2/3").matcher(status).find(), status);
            String metrics = awaitMetrics(httpPorts[active], "(?m)^wharf_replication_in_sync 2\\.0$");
            assertTrue(metrics.contains("wharf_replication_backlog_bytes"), metrics);
        } finally {
            workload.stopNow();
            for (ServerProcess m : members) {
                if (m != null && m.alive()) {
                    m.close();
                }
            }
        }
        workload.verify();
        System.out.println("ReplicatedFailoverTest: " + workload.report());
    }

    private void start(int i) throws Exception {
        members[i] = ServerProcess.launch(dir.resolve(IDS[i]), clientPorts[i], "--config", configs[i].toString(),
                "--replica", IDS[i]);
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

    /** One configuration file per member: the same replication block, its own certificate. */
    private void writeConfigurations() throws Exception {
        TestCertificates.Issued ca = TestCertificates.ca("replication-group");
        Path trust = TestCertificates.trustStore(dir.resolve("ca.p12"), ca.certificate());
        List<Integer> ports = freePorts(9);
        StringBuilder members = new StringBuilder();
        for (int i = 0; i < 3; i++) {
            clientPorts[i] = ports.get(3 + i);
            httpPorts[i] = ports.get(6 + i);
            members.append("    - id: ").append(IDS[i]).append('\n')
                    .append("      address: 127.0.0.1:").append(ports.get(i)).append('\n')
                    .append("      dataDirectory: ").append(dir.resolve(IDS[i])).append('\n');
        }
        for (int i = 0; i < 3; i++) {
            Path keys = TestCertificates.issue(ca, "CN=" + IDS[i] + ",O=Wharf Test", Duration.ofDays(1), "127.0.0.1")
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

    /** Distinct free ports: the sockets are open at once, so the system cannot hand out one twice. */
    private static List<Integer> freePorts(int n) throws Exception {
        List<ServerSocket> sockets = new ArrayList<>();
        try {
            List<Integer> ports = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                ServerSocket s = new ServerSocket(0);
                sockets.add(s);
                ports.add(s.getLocalPort());
            }
            return ports;
        } finally {
            for (ServerSocket s : sockets) {
                s.close();
            }
        }
    }
}
