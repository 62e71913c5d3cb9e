package org.wharfmq.perf.workload;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.jms.jndi.WharfInitialContextFactory;
import org.wharfmq.perf.driver.Driver;
import org.wharfmq.perf.driver.DriverResult;
import org.wharfmq.perf.options.PerfOptions;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.config.ServerConfig;
import org.wharfmq.server.management.QueueStatus;

import javax.naming.Context;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Each option of the harness that changes what runs, run once end to end in a short run (never how fast):
 * persistent request/reply and flows, TLS, metrics, a running server ({@code --url}) with one correlation id per
 * requester, the JNDI provider (by factory and URL, and by properties file) and rated requesters. Every run must pass the
 * harness's exactly-once checks. ({@code perf compare} against the built-in peers: WorkloadSmokeTest's child-JVM run
 * beside Artemis, ClassicPeerMainTest's and DistributedWorkloadsTest's; {@code --security rules}: WorkloadSmokeTest's;
 * {@code --tls} on RR-SHORT and CONNECT: ConnectionWorkloadsTest's, on RR-5's channels: DistributedWorkloadsTest's;
 * {@code --database postgres}: PostgresWorkloadTest's; {@code --peer replicated} and {@code relay}:
 * ReplicatedPeerTest's and RelayPeerTest's; {@code perf report}'s options: ReportCommandTest's; {@code perf footprint
 * --tls}: FootprintCommandTest's.)
 */
@Tag("slow")
class EveryOptionTest {

    private static WharfServer server;

    @BeforeAll
    static void startServer(@TempDir Path data) throws Exception {
        // RR-4's queues defined, so that they stay after a run (an auto-created queue goes once unused) for the checks
        server = WharfServer.start(ServerConfig.builder().host("127.0.0.1").port(0).inVmName("perf-every-option")
                .dataDirectory(data).queue("REQUEST").queue("REPLY").build());
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    /** A 1 s step after a 1 s warm-up, which lasts until every requester's first round trip has ended. */
    private static RunSettings settings(Workload w, boolean persistent, String tls, String metrics, Path out) {
        int requesters = w.flow() != null ? 4 : 2;
        return new RunSettings(w, List.of(w.flow() != null ? 4096 : 2048), List.of(requesters), List.of(1), 0, 2, 1, 100, 1, 1,
                10, persistent, w.flow() != null, tls, null, metrics, null, out, List.of("-Xmx256m"), true);
    }

    private static StepResult runInProcess(RunSettings settings, List<String> serverLines) throws Exception {
        List<StepResult> steps = RunCommand.execute(settings, List.of(Target.WHARF), new InProcessLauncher(serverLines::add),
                line -> { });
        StepResult s = steps.get(0);
        assertNull(s.unavailable());
        assertTrue(s.passed(), s.problems().toString());
        assertTrue(s.meanRate() > 0 && s.latencyMicros().count() > 0, "round trips were counted and timed");
        return s;
    }

    /** {@code --persistent}: persistent requests, each round trip committed by its responder; a flow's get and put in one transaction. */
    @Test
    void persistentRequestReplyAndFlow(@TempDir Path out) throws Exception {
        runInProcess(settings(Workload.RR_4, true, null, null, out.resolve("rr")), new CopyOnWriteArrayList<>());
        runInProcess(settings(Workload.F_PASS, true, null, null, out.resolve("flow")), new CopyOnWriteArrayList<>());
    }

    /** {@code --tls jdk} and {@code --tls openssl}: the clients connect to the server's TLS listener. */
    @Test
    void tlsWithEitherEngine(@TempDir Path out) throws Exception {
        for (String engine : List.of("jdk", "openssl")) {
            List<String> lines = new CopyOnWriteArrayList<>();
            runInProcess(settings(Workload.RR_4, false, engine, null, out.resolve(engine)), lines);
            assertTrue(lines.stream().anyMatch(l -> l.contains(ServerMain.READY_PREFIX) && l.contains(" tls=ssl://")),
                    "the clients were given the TLS listener: " + lines);
        }
    }

    /** {@code --metrics scrape}: the server runs its metrics and scrapes its own /metrics every second, without a failure. */
    @Test
    void metricsScraped(@TempDir Path out) throws Exception {
        List<String> lines = new CopyOnWriteArrayList<>();
        runInProcess(settings(Workload.RR_4, false, null, "scrape", out), lines);
        assertTrue(lines.stream().anyMatch(l -> l.contains(ServerMain.READY_PREFIX) && l.contains(" metrics=http://")), lines.toString());
        assertTrue(lines.stream().noneMatch(l -> l.contains("scraping")), "every scrape answered 200: " + lines);
    }

    /**
     * {@code --url} with {@code --correlation thread}, as a user types them: RR-4 on a server already running (this
     * class's) instead of one the runner starts, each requester with one correlation id and one long-lived reply
     * consumer. Every round trip went through that server's queues, which it says are empty afterwards.
     */
    @Test
    void aRunningServerAndOneCorrelationIdPerRequester(@TempDir Path out) throws Exception {
        RunSettings settings = RunCommand.parse(new String[] {"RR-4", "--url", server.tcpUrl(), "--correlation", "thread",
                "--requesters", "2", "--warmup", "1", "--run-length", "1", "--out", out.toString(), "--in-process"}, false).settings();
        List<String> requesters = new DriverPlan(Workload.RR_4, settings, 2048, 2, 1, out, "plan", null, Target.WHARF)
                .clientMeasured().get(0).baseArgs();
        assertEquals("true", requesters.get(requesters.indexOf("-co") + 1), requesters.toString());
        QueueStatus before = server.management().queue("REQUEST");
        StepResult s = runInProcess(settings, new CopyOnWriteArrayList<>());
        QueueStatus requests = server.management().queue("REQUEST");
        QueueStatus replies = server.management().queue("REPLY");
        long sent = requests.enqueued() - before.enqueued();
        assertTrue(sent >= s.latencyMicros().count(), "the round trips went through this server: " + sent + " requests, "
                + s.latencyMicros().count() + " round trips measured");
        assertEquals(0, requests.depth(), requests.toString());
        assertEquals(0, replies.depth(), replies.toString());
    }

    /**
     * {@code -pc JNDI}: the driver finds its connection factory and queues through a JNDI provider (Wharf's own), named
     * by {@code -ii} and {@code -iu}, or by a JNDI properties file ({@code -jf}) alone. (Artemis's and ActiveMQ
     * Classic's JNDI providers: the {@code perf compare} tests, whose peer drivers reach their brokers through them.)
     */
    @Test
    void jndiProvider(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("jndi.properties"), Context.INITIAL_CONTEXT_FACTORY + "="
                + WharfInitialContextFactory.class.getName() + "\n" + Context.PROVIDER_URL + "=" + server.tcpUrl() + "\n");
        List<List<String>> providers = List.of(
                List.of("-pc", "JNDI", "-ii", WharfInitialContextFactory.class.getName(), "-iu", server.tcpUrl(),
                        "-cf", "ConnectionFactory"),
                List.of("-pc", "JNDI", "-jf", file.toString(), "-cf", "ConnectionFactory"));
        for (int i = 0; i < providers.size(); i++) {
            List<String> jndi = providers.get(i);
            DriverResult r = requestReply(jndi, "JNDI" + i, List.of());
            assertTrue(r.passed(), jndi + ": " + r.problems());
            assertTrue(r.totalIterations() > 0, jndi + ": round trips were made");
        }
    }

    /** {@code -rt R} on requesters: each requester makes R round trips a second, no more, and every one is answered. */
    @Test
    void ratedRequesters() throws Exception {
        int rate = 10;
        int seconds = 1;
        long began = System.nanoTime();
        DriverResult r = requestReply(List.of("-pc", "Wharf", "-url", server.tcpUrl()), "RATED",
                List.of("-rt", Integer.toString(rate)), seconds);
        double ran = (System.nanoTime() - began) / 1e9; // the run, its warm-up held for the first round trips included
        assertTrue(r.passed(), r.problems().toString());
        // two requesters, each paced from its start: one at once, then one per period of the time it ran at most
        long most = 2L * ((long) Math.ceil(rate * ran) + 1);
        assertTrue(r.totalIterations() > 0 && r.totalIterations() <= most, "2 requesters at " + rate + "/s in "
                + String.format(java.util.Locale.ROOT, "%.1f", ran) + " s made " + r.totalIterations()
                + " round trips (at most " + most + ")");
    }

    private static DriverResult requestReply(List<String> provider, String queue, List<String> requesterOptions) throws Exception {
        return requestReply(provider, queue, requesterOptions, 1);
    }

    /**
     * Two responders and two requesters on {@code queue}.REQUEST and .REPLY for {@code seconds} measured, after the
     * driver's warm-up until every requester's first round trip ended; the requesters' result.
     */
    private static DriverResult requestReply(List<String> provider, String queue, List<String> requesterOptions, int seconds)
            throws Exception {
        List<String> responderArgs = new ArrayList<>(List.of("-tc", "jms.r11.Responder", "-nt", "2", "-iq", queue + ".REQUEST",
                "-oq", queue + ".REPLY", "-rl", "0", "-ss", "0", "-su", "false", "-id", "resp"));
        responderArgs.addAll(provider);
        Driver responders = new Driver(PerfOptions.parse(responderArgs.toArray(String[]::new)), quiet());
        Thread t = new Thread(() -> {
            try {
                responders.run();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, "every-option-responders");
        t.start();
        try {
            assertTrue(responders.awaitReady(60, TimeUnit.SECONDS), "the responders connected");
            List<String> requesterArgs = new ArrayList<>(List.of("-tc", "jms.r11.Requestor", "-nt", "2", "-iq", queue + ".REQUEST",
                    "-oq", queue + ".REPLY", "-rl", Integer.toString(seconds), "-ss", "0", "-id", "req"));
            requesterArgs.addAll(requesterOptions);
            requesterArgs.addAll(provider);
            return new Driver(PerfOptions.parse(requesterArgs.toArray(String[]::new)), quiet()).run();
        } finally {
            responders.stop();
            t.join(TimeUnit.MINUTES.toMillis(1));
        }
    }

    private static PrintStream quiet() {
        return new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    }
}
