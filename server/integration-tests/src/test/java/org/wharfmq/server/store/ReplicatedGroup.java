package org.wharfmq.server.store;

import org.wharfmq.server.FreePorts;
import org.wharfmq.server.TestCertificates;
import org.wharfmq.server.cli.FlowCommandAccess;
import org.wharfmq.server.it.LoopbackNetwork;
import org.wharfmq.server.it.MemberNetwork;

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
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 35's replicated queue manager as three {@code wharf server --replica ID} processes on this machine, each with
 * its own data directory, a {@code replication:} block naming the three (group TEST), its member certificate and an
 * HTTP listener (metrics), in a {@link MemberNetwork}: loopback and TCP proxies, or network namespaces. The test owns
 * the group and calls it from its own thread; {@link #close} ends what is still running and takes the network down.
 */
final class ReplicatedGroup implements AutoCloseable {

    static final String[] IDS = {"a", "b", "c"};
    /** The members' maxMessageLength unless a test asks for the server's default: small messages, small memory. */
    static final int MAX_MESSAGE_LENGTH = 1048576;
    /** How long an election or a status the test waits for may take on a loaded machine. */
    static final Duration ELECTION = Duration.ofSeconds(90);
    /**
     * How long a member started again may take to be back in sync: its JVM's start, which took 20 s at load 40 and 77 s
     * at load 49 (session 29: the second kill's election, which then waited for that start, failed the test's 90 s).
     */
    static final Duration MEMBER_START = Duration.ofSeconds(180);
    /**
     * How long the first election may take: three JVMs starting at once on a loaded machine (session 29 saw them take
     * 2 min at load 45 to 62 to follow as replicas, and two leaders lose the role within 3 s, past the 3 min then
     * given).
     */
    private static final Duration FIRST_ELECTION = Duration.ofSeconds(300);
    /**
     * How often the test asks the members who is active: each question is a {@code wharf admin} status session on
     * each member, so asking every 20 ms took CPU from the members it waited for on the shared 2-core machine.
     */
    private static final long ASK_EVERY_MILLIS = 100;
    /**
     * The members' {@code electionTimeoutMillis}, for a soak that compares failover times
     * ({@code -Dwharf.it.electionTimeoutMillis=2000}); the default's otherwise.
     */
    private static final Long ELECTION_TIMEOUT_MILLIS = Long.getLong("wharf.it.electionTimeoutMillis");
    /**
     * The members' {@code probeActiveMember}, for runs that compare failover times with and without it
     * ({@code -Dwharf.it.probeActiveMember=false}); the default's (on) otherwise.
     */
    private static final String PROBE_ACTIVE_MEMBER = System.getProperty("wharf.it.probeActiveMember");
    /** {@code display server}'s "last applied N (committed M)". */
    private static final Pattern APPLIED = Pattern.compile("last applied\\s+(-?\\d+) \\(committed (-?\\d+)\\)");
    /** A status line only a queue manager's own status has: a member serving clients, not a replica's. */
    private static final Pattern SERVED = Pattern.compile("(?m)^\\s*connections\\s");

    private final Path dir;
    private final MemberNetwork network;
    private final int[] clientPorts;
    private final int[] httpPorts;
    private final Path[] configs = new Path[3];
    /** Lines of every member's {@code replication:} block beyond the members and TLS (a test's own settings). */
    private final List<String> replicationSettings;
    /** Whether the members take the server's default maxMessageLength, not {@value #MAX_MESSAGE_LENGTH}. */
    private final boolean defaultMaxMessageLength;
    /** Lines of every member's configuration before its replication block (a test's own queues and budgets). */
    private final String serverSettings;
    private final ServerProcess[] members = new ServerProcess[3];
    /** What every member's configuration shares, written once by {@link #writeConfigurations}. */
    private Path trust;
    private String security;
    private String memberBlock;

    /** Opens the network of members listening for each other on {@code replicationPorts}. */
    @FunctionalInterface
    interface Network {
        MemberNetwork open(Path dir, String[] ids, int[] replicationPorts) throws Exception;
    }

    private ReplicatedGroup(Path dir, MemberNetwork network, int[] clientPorts, int[] httpPorts,
                            List<String> replicationSettings, boolean defaultMaxMessageLength, String serverSettings) {
        this.dir = dir;
        this.defaultMaxMessageLength = defaultMaxMessageLength;
        this.serverSettings = serverSettings;
        this.replicationSettings = replicationSettings;
        this.network = network;
        this.clientPorts = clientPorts;
        this.httpPorts = httpPorts;
    }

    /** The configuration files of a group in {@code dir} whose members talk through {@code network}; none started. */
    static ReplicatedGroup configure(Path dir, Network network) throws Exception {
        return configure(dir, network, List.of());
    }

    /**
     * {@link #configure(Path, Network)} with {@code replicationSettings} ({@code "snapshotLogBytes: 1048576"}) in every
     * member's {@code replication:} block.
     */
    static ReplicatedGroup configure(Path dir, Network network, List<String> replicationSettings) throws Exception {
        return configure(dir, network, replicationSettings, false, "");
    }

    private static ReplicatedGroup configure(Path dir, Network network, List<String> replicationSettings,
                                             boolean defaultMaxMessageLength, String serverSettings) throws Exception {
        int[] ports = FreePorts.take(9);
        int[] replicationPorts = {ports[0], ports[1], ports[2]};
        MemberNetwork net = network.open(dir, IDS, replicationPorts);
        ReplicatedGroup group = new ReplicatedGroup(dir, net, new int[] {ports[3], ports[4], ports[5]},
                new int[] {ports[6], ports[7], ports[8]}, List.copyOf(replicationSettings), defaultMaxMessageLength,
                serverSettings);
        try {
            group.writeConfigurations(replicationPorts);
            return group;
        } catch (Exception | Error e) {
            net.close();
            throw e;
        }
    }

    /** A group on this machine's loopback ({@link LoopbackNetwork}). */
    static ReplicatedGroup onLoopback(Path dir) throws Exception {
        return configure(dir, LoopbackNetwork::open);
    }

    /** A group on this machine's loopback with {@code replicationSettings} in every member's replication block. */
    static ReplicatedGroup onLoopback(Path dir, String... replicationSettings) throws Exception {
        return configure(dir, LoopbackNetwork::open, List.of(replicationSettings));
    }

    /**
     * A group on this machine's loopback whose members take the server's default maxMessageLength (100 MiB) instead of
     * {@value #MAX_MESSAGE_LENGTH}: a record larger than a log entry goes through the log in pieces; with
     * {@code serverSettings} (YAML, whole lines: {@code "maxMemoryBytes: 33554432\n"}) at the top of every member's
     * configuration and {@code replicationSettings} in its replication block.
     */
    static ReplicatedGroup onLoopbackWithTheDefaultMaxMessageLength(Path dir, String serverSettings,
                                                                   String... replicationSettings) throws Exception {
        return configure(dir, LoopbackNetwork::open, List.of(replicationSettings), true, serverSettings);
    }

    /** The broker URL of the three members, without options. */
    String addresses() {
        StringBuilder addresses = new StringBuilder();
        for (int i = 0; i < 3; i++) {
            addresses.append(i == 0 ? "" : ",").append("tcp://").append(network.clientHost(i)).append(':')
                    .append(clientPorts[i]);
        }
        return addresses.toString();
    }

    /** The URL of member {@code i} alone. */
    String url(int i) {
        return "tcp://" + network.clientHost(i) + ":" + clientPorts[i];
    }

    /** Member {@code i}'s process: the last one started. */
    ServerProcess member(int i) {
        return members[i];
    }

    /** Starts the three members and waits for one to be elected; returns its position. */
    int startAll() throws Exception {
        for (int i = 0; i < 3; i++) {
            start(i);
        }
        return awaitActive(null, FIRST_ELECTION);
    }

    /** Starts member {@code i} (again), returning at once: it prints its ready line once elected active. */
    void start(int i) throws Exception {
        members[i] = launch(i, configs[i]);
    }

    /**
     * Starts, in member {@code i}'s place (its addresses, its data directory: it must not run), a {@code wharf server
     * --replica} without the group's credentials: its key and certificate, naming member {@code i}'s hosts, come from
     * a CA of its own (subject {@code CN=ID,O=Outsider}), though it trusts the group's CA. The test owns the process.
     */
    ServerProcess startWithoutCredentials(int i) throws Exception {
        assertFalse(members[i] != null && members[i].alive(), "member " + IDS[i] + " still runs");
        TestCertificates.Issued outsider = TestCertificates.ca("outsider");
        Path keys = TestCertificates.issue(outsider, "CN=" + IDS[i] + ",O=Outsider", Duration.ofDays(1),
                MemberNetwork.host(IDS[i]), "127.0.0.1").pkcs12(dir.resolve(IDS[i] + "-outsider.p12"));
        return launch(i, Files.writeString(dir.resolve(IDS[i] + "-outsider.yaml"), configuration(i, keys)));
    }

    private ServerProcess launch(int i, Path config) throws Exception {
        return ServerProcess.launch(network.commandPrefix(i), network.clientHost(i), dir.resolve(IDS[i]),
                clientPorts[i], network.jvmOptions(i), "--config", config.toString(), "--replica", IDS[i]);
    }

    /** Deletes member {@code i}'s data directory (its journal, Raft log and snapshots), as a lost disk; it must not run. */
    void wipe(int i) throws Exception {
        assertFalse(members[i] != null && members[i].alive(), "member " + IDS[i] + " still runs");
        Path data = dir.resolve(IDS[i]);
        if (Files.exists(data)) {
            try (java.util.stream.Stream<Path> files = Files.walk(data)) {
                for (Path file : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    Files.delete(file);
                }
            }
        }
    }

    /** SIGKILL to the three members at once (none has a moment to elect another), then waits until all have ended. */
    void killAll() throws Exception {
        ServerProcess.killAll(members);
    }

    /**
     * A planned switchover to member {@code to} ({@code wharf admin switchover --to}, on the active member), asked
     * again of whichever member is active until {@code to} says it is (should the group elect another, as after a
     * failure); at most three times.
     */
    void switchOver(int to) throws Exception {
        for (int attempt = 0; attempt < 3; attempt++) {
            int active = awaitActive(null);
            if (active == to) {
                return;
            }
            ServerProcess leaving = members[active];
            int stops = leaving.stops();
            FlowCommandAccess.Result switched = FlowCommandAccess.run("admin", "--url", url(active), "switchover",
                    "--to", IDS[to]);
            assertEquals(0, switched.status(), switched.out() + switched.err());
            leaving.awaitStopAfter(stops, ELECTION.toSeconds());
        }
        assertEquals(IDS[to], IDS[awaitActive(null)], "the member active after three switchovers to " + IDS[to]);
    }

    /** Cuts every path between member {@code i} and the others, both ways (not its clients'). */
    void cut(int i) throws Exception {
        network.cut(i);
    }

    /** Heals what {@link #cut} cut. */
    void heal(int i) throws Exception {
        network.heal(i);
    }

    /**
     * Issue 35's partition, the clients of {@code workload} at work throughout: the active member, once it says the
     * others are in sync, is cut off from both ({@link #cut}; its clients' paths stay); it stops taking work, closes
     * its queue manager and follows as a replica again in its process, the other two elect a new active member and
     * the clients go on with it; once the cut heals the old one is back, in sync in the new active member's status.
     * Prints how long the cut-off member took to stop serving, for {@code test}; returns the new active member.
     */
    int partition(ReconnectWorkload workload, String test) throws Exception {
        int active = awaitActiveWith("in sync\\s+3/3");
        ServerProcess cutOff = members[active];
        int stops = cutOff.stops();
        int rejoins = cutOff.rejoins();
        long[] cutAt = new long[1];
        ReconnectWorkload.Outage outage = workload.end(() -> {
            cutAt[0] = System.nanoTime();
            cut(active);
            cutOff.awaitStopAfter(stops, ELECTION.toSeconds());
        });
        long stoppedAfter = System.nanoTime() - cutAt[0];
        outage.release();
        int next = awaitActive(cutOff);
        System.out.printf("%s: %s cut off, stopped serving after %.0f ms, %s took over; %s%n", test, IDS[active],
                stoppedAfter / 1e6, IDS[next], outage.awaitWorking(members[next]));
        workload.awaitRound(members[next]);
        cutOff.awaitRejoinAfter(rejoins, ELECTION.toSeconds()); // in its process, still cut off
        heal(active);
        awaitInSync(next, active);
        workload.awaitRound(members[next]);
        return next;
    }

    /**
     * The active member, once it says the others are in sync, stands still (SIGSTOP, as in a long JVM pause) until
     * another member is elected and takes over; then it goes on (SIGCONT), finds it lost the leadership, stops
     * serving and follows as a replica again in its process: its process never ends, and it is back in sync in the new
     * active member's status. The clients of {@code workload}, at work throughout, fail over to the new active member.
     * Prints the times, for {@code test}; returns the new active member.
     */
    int pause(ReconnectWorkload workload, String test) throws Exception {
        int active = awaitActiveWith("in sync\\s+3/3");
        ServerProcess paused = members[active];
        int stops = paused.stops();
        int rejoins = paused.rejoins();
        long[] resumedAfter = new long[1];
        int[] next = new int[1];
        ReconnectWorkload.Outage outage = workload.end(() -> {
            long pausedAt = System.nanoTime();
            paused.pause();
            try {
                next[0] = awaitActive(paused); // the barrier: the others elected one, and it took over
            } finally {
                paused.resume();
            }
            resumedAfter[0] = System.nanoTime() - pausedAt;
            paused.awaitStopAfter(stops, ELECTION.toSeconds());
        });
        outage.release();
        System.out.printf("%s: %s paused for %.0f ms, %s took over; %s%n", test, IDS[active], resumedAfter[0] / 1e6,
                IDS[next[0]], outage.awaitWorking(members[next[0]]));
        paused.awaitRejoinAfter(rejoins, ELECTION.toSeconds());
        assertTrue(paused.alive(), paused.outputSoFar());
        awaitInSync(next[0], active);
        workload.awaitRound(members[next[0]]);
        return next[0];
    }

    /** Waits until active member {@code active}'s status shows the three in sync, member {@code member} among them. */
    private void awaitInSync(int active, int member) {
        String status = awaitStatus(active, "in sync\\s+3/3");
        assertTrue(Pattern.compile("\\b" + IDS[member] + " in sync").matcher(status).find(), status);
    }

    /**
     * Waits until a member other than {@code ended}'s process (the one killed, paused or cut off; null: none) says it
     * is the active member, asked as an operator would ({@link #saysActive}), and returns its position: that member may
     * be {@code ended}'s, started again, if it was elected. Not its output: a member prints its ready line at each
     * takeover and may lose the role a moment later (fenced under load), which the test must not take for active.
     */
    int awaitActive(ServerProcess ended) {
        return awaitActive(ended, ELECTION);
    }

    private int awaitActive(ServerProcess ended, Duration within) {
        long deadline = System.nanoTime() + within.toNanos();
        while (System.nanoTime() < deadline) {
            for (int i = 0; i < 3; i++) {
                if (members[i] != null && members[i] != ended && members[i].alive() && saysActive(i) != null) {
                    return i;
                }
            }
            for (int i = 0; i < 3; i++) {
                int gone = i;
                assertFalse(members[i] != null && members[i] != ended && !members[i].alive(),
                        () -> "member " + IDS[gone] + " ended:\n" + members[gone].outputSoFar());
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(ASK_EVERY_MILLIS));
        }
        throw new AssertionError("no member became active within " + within + ":\n" + outputs());
    }

    /**
     * Waits until a member says it is the active one ({@link #awaitActive}) and its status matches {@code expected}:
     * under load the member elected may lose the role again, and the next one is asked then. Returns its position.
     */
    int awaitActiveWith(String expected) {
        return awaitActiveWith(expected, ELECTION);
    }

    /** {@link #awaitActiveWith(String)} for at most {@code within} ({@link #MEMBER_START} after a member's start). */
    int awaitActiveWith(String expected, Duration within) {
        return awaitActiveWith(expected, within, status -> { });
    }

    /**
     * {@link #awaitActiveWith(String, Duration)}, handing {@code seen} each active member's status on the way (what
     * the status showed before it matched).
     */
    int awaitActiveWith(String expected, Duration within, java.util.function.Consumer<String> seen) {
        Pattern pattern = Pattern.compile(expected);
        long deadline = System.nanoTime() + within.toNanos();
        String last = "";
        while (System.nanoTime() < deadline) {
            for (int i = 0; i < 3; i++) {
                String status = members[i] != null && members[i].alive() ? saysActive(i) : null;
                if (status != null) {
                    seen.accept(status);
                }
                if (status != null && pattern.matcher(status).find()) {
                    return i;
                }
                last = status != null ? status : last;
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(ASK_EVERY_MILLIS));
        }
        throw new AssertionError("no active member's status showed " + expected + ":\n" + last + "\n" + outputs());
    }

    /**
     * Member {@code i}'s status ({@code wharf admin display server} at its client address) when it says it is the
     * active member: its queue manager answers (a replica's status session shows no connections) and names itself
     * the Raft leader and active; null otherwise, or when it does not answer (a member fenced under the call: wharf
     * admin fails the command as soon as its connection is lost).
     */
    private String saysActive(int i) {
        FlowCommandAccess.Result status = FlowCommandAccess.run("admin", "--url", url(i), "display", "server");
        String out = status.out();
        return status.status() == 0 && out.contains("member " + IDS[i] + " of group TEST, LEADER (active: " + IDS[i]
                + ",") && SERVED.matcher(out).find() ? out : null;
    }

    /** The applied index of a {@code display server} answer ("last applied N (committed M)"), or -1 without one. */
    static long applied(String status) {
        java.util.regex.Matcher m = APPLIED.matcher(status);
        return m.find() ? Long.parseLong(m.group(1)) : -1;
    }

    /** The committed index of a {@code display server} answer ("last applied N (committed M)"). */
    static long committed(String status) {
        java.util.regex.Matcher m = APPLIED.matcher(status);
        assertTrue(m.find(), status);
        return Long.parseLong(m.group(2));
    }

    /** What every member has printed, for a failure's message. */
    String outputs() {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < 3; i++) {
            out.append("---- member ").append(IDS[i])
                    .append(members[i] == null ? "" : " (kept in " + members[i].outputFile() + ")").append(":\n")
                    .append(members[i] == null ? "" : members[i].outputSoFar());
        }
        return out.toString();
    }

    /** Runs {@code wharf admin} against {@code member}. */
    static FlowCommandAccess.Result admin(ServerProcess member, String... command) {
        List<String> args = new ArrayList<>(List.of("admin", "--url", member.url()));
        args.addAll(List.of(command));
        return FlowCommandAccess.run(args.toArray(String[]::new));
    }

    /**
     * Asks member {@code i} ({@code wharf admin display server}) until its answer matches {@code expected}, and
     * returns the last answer.
     */
    String awaitStatus(int i, String expected) {
        Pattern pattern = Pattern.compile(expected);
        return awaitAnswer(i, out -> pattern.matcher(out).find(), expected, "display", "server");
    }

    /**
     * Asks member {@code i} at its client address ({@code wharf admin --url URL COMMAND}; a replica answers
     * {@code display server} for itself there, in a status session) until its answer passes {@code expected}
     * ({@code what} says what that is), and returns that answer.
     */
    String awaitAnswer(int i, java.util.function.Predicate<String> expected, String what, String... command) {
        List<String> args = new ArrayList<>(List.of("admin", "--url", url(i)));
        args.addAll(List.of(command));
        long deadline = System.nanoTime() + ELECTION.toNanos();
        String out = "";
        while (System.nanoTime() < deadline) {
            FlowCommandAccess.Result result = FlowCommandAccess.run(args.toArray(String[]::new));
            out = result.out() + result.err();
            if (result.status() == 0 && expected.test(out)) {
                return out;
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
        }
        throw new AssertionError(String.join(" ", command) + " on member " + IDS[i] + " never showed " + what + ":\n"
                + out + "\n" + outputs());
    }

    /**
     * Scrapes member {@code i}'s metrics (Prometheus's text format) until they match {@code expected}; returns the
     * last scrape.
     */
    String awaitMetrics(int i, String expected) throws Exception {
        Pattern pattern = Pattern.compile(expected);
        HttpClient client = HttpClient.newHttpClient();
        long deadline = System.nanoTime() + ELECTION.toNanos();
        String body = "";
        while (System.nanoTime() < deadline) {
            HttpResponse<String> response = client.send(HttpRequest.newBuilder(URI.create("http://"
                    + network.clientHost(i) + ":" + httpPorts[i] + "/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, response.statusCode(), response.body());
            body = response.body();
            if (pattern.matcher(body).find()) {
                return body;
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
        }
        throw new AssertionError("the metrics never showed " + expected + ":\n" + body);
    }

    /** Ends the members still running (SIGTERM), then takes the network down. */
    @Override
    public void close() throws Exception {
        try {
            for (ServerProcess m : members) {
                if (m != null && m.alive()) {
                    m.close();
                }
            }
        } finally {
            network.close();
        }
    }

    /** One configuration file per member: the same replication block, its own certificate. */
    private void writeConfigurations(int[] replicationPorts) throws Exception {
        TestCertificates.Issued ca = TestCertificates.ca("replication-group");
        trust = TestCertificates.trustStore(dir.resolve("ca.p12"), ca.certificate());
        // clients from another address (a network namespace's) are anonymous too, as local ones are without users
        security = network.clientsLocal() ? "" : "security:\n  file: "
                + Files.writeString(dir.resolve("security.yaml"), "allowAnonymous: true\n") + "\n";
        StringBuilder block = new StringBuilder();
        for (int i = 0; i < 3; i++) {
            block.append("    - id: ").append(IDS[i]).append('\n')
                    .append("      address: ").append(MemberNetwork.host(IDS[i])).append(':')
                    .append(replicationPorts[i]).append('\n')
                    .append("      dataDirectory: ").append(dir.resolve(IDS[i])).append('\n');
        }
        memberBlock = block.toString();
        for (int i = 0; i < 3; i++) {
            Path keys = TestCertificates.issue(ca, "CN=" + IDS[i] + ",O=Wharf Test", Duration.ofDays(1),
                            MemberNetwork.host(IDS[i]), "127.0.0.1")
                    .pkcs12(dir.resolve(IDS[i] + ".p12"));
            configs[i] = Files.writeString(dir.resolve(IDS[i] + ".yaml"), configuration(i, keys));
        }
    }

    /** Whether the test's own replication settings give {@code key} (they win over the system properties). */
    private boolean sets(String key) {
        return replicationSettings.stream().anyMatch(line -> line.startsWith(key + ":"));
    }

    /** Member {@code i}'s configuration file, its key and certificate in {@code keys}. */
    private String configuration(int i, Path keys) {
        return (defaultMaxMessageLength ? "" : "maxMessageLength: " + MAX_MESSAGE_LENGTH + "\n")
                + serverSettings
                + security
                + "http:\n"
                + "  host: " + network.clientHost(i) + "\n"
                + "  port: " + httpPorts[i] + "\n"
                + "replication:\n"
                + "  group: TEST\n"
                + (ELECTION_TIMEOUT_MILLIS == null || sets("electionTimeoutMillis") ? ""
                        : "  electionTimeoutMillis: " + ELECTION_TIMEOUT_MILLIS + "\n")
                + (PROBE_ACTIVE_MEMBER == null || sets("probeActiveMember") ? ""
                        : "  probeActiveMember: " + PROBE_ACTIVE_MEMBER + "\n")
                + replicationSettings.stream().map(line -> "  " + line + "\n").collect(Collectors.joining())
                + "  members:\n" + memberBlock
                + "  tls:\n"
                + "    keyStore: " + keys + "\n"
                + "    keyStorePassword: " + TestCertificates.PASSWORD + "\n"
                + "    trustStore: " + trust + "\n"
                + "    trustStorePassword: " + TestCertificates.PASSWORD + "\n";
    }
}
