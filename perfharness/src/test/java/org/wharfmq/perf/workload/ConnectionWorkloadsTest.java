package org.wharfmq.perf.workload;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.config.ServerConfig;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Short runs (tens of clients, seconds) of the workloads about many clients: rated request/reply (RR-RATED), short
 * sessions (RR-SHORT) and connect/disconnect (CONNECT), with a server in this JVM. They check that every request
 * got its one reply, that the steps report what the seeds' tables show, and that a rated run stops stepping where the
 * seeds' tables stop, never how fast.
 */
@Tag("slow")
class ConnectionWorkloadsTest {

    /**
     * A step after a 1 s warm-up (held until every client's first operation ended): RR-RATED 3 s measured, for its rate
     * to be held over several of its periods, the others 1 s.
     */
    private static RunSettings settings(Workload w, List<Integer> clients, double rate, String tls, Path out) {
        int runSeconds = w == Workload.RR_RATED ? 3 : 1;
        return new RunSettings(w, List.of(2048), clients, List.of(1), 0, 1, 1, rate, runSeconds, 1, 10, false, false, tls, null, null,
                null, out, List.of("-Xmx256m"), true);
    }

    private static List<StepResult> run(RunSettings settings, List<String> progress) throws Exception {
        return RunCommand.execute(settings, List.of(Target.WHARF), new InProcessLauncher(line -> { }), progress::add);
    }

    /**
     * 20 requesters at 2 round trips/s each, over two requester drivers: every request answered once, the rate held
     * near 40 round trips/s (an unrated run would go hundreds of times faster), the response times and the clients
     * served reported, and the rated report written.
     */
    @Test
    void ratedRequestersAreHeldToTheirRateAndTheStepReportsItsClients(@TempDir Path out) throws Exception {
        RunSettings settings = settings(Workload.RR_RATED, List.of(20), 2, null, out);
        DriverPlan plan = new DriverPlan(Workload.RR_RATED, settings, 2048, 20, 10, out, "plan", null, Target.WHARF);
        assertEquals(2, plan.clientMeasured().size(), "the requesters are spread over two driver JVMs");
        assertTrue(plan.clientMeasured().get(0).baseArgs().containsAll(List.of("-nt", "10", "-rt", "2.0")),
                plan.clientMeasured().get(0).baseArgs().toString());

        List<String> progress = new CopyOnWriteArrayList<>();
        List<StepResult> steps = run(settings, progress);
        assertEquals(1, steps.size());
        StepResult s = steps.get(0);
        assertNull(s.unavailable());
        assertTrue(s.passed(), s.problems().toString());
        assertEquals(20, s.clients(), "the step reports its clients");
        assertEquals(10, s.responders(), "ten responders by default");
        assertTrue(s.meanRate() > 10 && s.meanRate() < 60, "about 20 x 2 round trips/s: " + s.meanRate());
        assertTrue(s.latencyMicros().count() > 0 && s.latencyMicros().p95() >= s.latencyMicros().p50(), s.latencyMicros().toString());
        assertTrue(RatedSteps.served(s), "20 clients are served within a second: " + s.latencyMicros() + " " + s.jvmLatencyMicros());
        assertEquals(20, RatedSteps.clientsServed(steps));
        assertEquals(2, s.jvmLatencyMicros().size(), "each requester JVM's own latencies");
        assertEquals(s.latencyMicros().count(), s.jvmLatencyMicros().stream().mapToLong(l -> l.count()).sum(),
                "the step's round trips are its JVMs' added up");
        assertTrue(progress.stream().anyMatch(l -> l.contains("response time p50") && l.contains("p50 per requester JVM")
                && l.contains("served")), progress.toString());

        RunCommand.writeReport(settings, steps, "bin/wharf perf run RR-RATED (test)");
        String report = Files.readString(out.resolve("report.md"));
        assertTrue(report.contains("### Wharf, 2KB: 20 clients served"), report);
        assertTrue(report.contains("| 20 | 10 | 40 | "), report);
    }

    /**
     * The stepping stops after a step that fails, as after one whose median response passes 1 s (the rule:
     * RatedStepsTest). Here every request is past the maxMessageLength of the running server the run is given
     * ({@code --url}): the first step fails naming the limit and its setting, as the client's refusal does, serves no
     * client, and the second step is not run.
     */
    @Test
    void aRatedRunStopsAfterAFailedStepWhichNamesTheLimitItsRequestsCrossed(@TempDir Path data, @TempDir Path out) throws Exception {
        int limit = 64 * 1024;
        try (WharfServer server = WharfServer.start(ServerConfig.builder().host("127.0.0.1").port(0).inVmName("perf-rated-limit")
                .dataDirectory(data).maxMessageLength(limit).build())) {
            RunSettings settings = RunCommand.parse(new String[] {"RR-RATED", "--url", server.tcpUrl(), "--sizes", "64k",
                    "--requesters", "2,4", "--rate", "2", "--warmup", "1", "--run-length", "1", "--out", out.toString(),
                    "--in-process"}, false).settings();
            List<String> progress = new CopyOnWriteArrayList<>();
            List<StepResult> steps = run(settings, progress);
            assertEquals(1, steps.size(), "no step after the one that failed: " + progress);
            StepResult s = steps.get(0);
            assertFalse(s.passed(), s.toString());
            assertTrue(s.problems().stream().anyMatch(p -> p.contains("maximum message length of " + limit
                    + " bytes (setting maxMessageLength)")), s.problems().toString());
            assertEquals(0, RatedSteps.clientsServed(steps));
            assertTrue(progress.stream().anyMatch(l -> l.contains("not served (the step failed its checks)")), progress.toString());
            assertTrue(progress.stream().anyMatch(l -> l.contains("the step failed its checks: no more steps")), progress.toString());
        }
    }

    /**
     * The stepping stops before a step past a limit of the machine, here a made-up one (file descriptors for 20
     * connections beyond the server's own): that step is reported as not run, naming the limit and its fix, and the
     * step before it ran and served its clients.
     */
    @Test
    void aRatedRunStopsBeforeAStepPastALimitOfTheMachineAndNamesIt(@TempDir Path out) throws Exception {
        RunSettings settings = settings(Workload.RR_RATED, List.of(4, 40), 2, null, out);
        RatedLimits machine = new RatedLimits(RatedLimits.RESERVED_FILE_DESCRIPTORS + 20, -1, -1, -1, -1);
        List<String> progress = new CopyOnWriteArrayList<>();
        List<StepResult> steps = new WorkloadRunner(settings, new InProcessLauncher(line -> { }), progress::add, () -> machine)
                .run(Target.WHARF);
        assertEquals(2, steps.size(), progress.toString());
        assertTrue(steps.get(0).passed() && RatedSteps.served(steps.get(0)), steps.get(0).toString());
        StepResult past = steps.get(1);
        assertEquals(40, past.clients());
        assertTrue(past.unavailable() != null && past.unavailable().startsWith(RatedLimits.FILE_DESCRIPTORS
                + ": 40 requesters and 10 responders need 550 in the server"), past.toString());
        assertEquals(4, RatedSteps.clientsServed(steps));
        assertTrue(progress.stream().anyMatch(l -> l.contains("clients=40: not run, " + RatedLimits.FILE_DESCRIPTORS)
                && l.endsWith("no more steps")), progress.toString());

        RunCommand.writeReport(settings, steps, "bin/wharf perf run RR-RATED (test)");
        String report = Files.readString(out.resolve("report.md"));
        assertTrue(report.contains("### Wharf, 2KB: 4 clients served\n\nStopped: 40 requesters not run, "
                + RatedLimits.FILE_DESCRIPTORS + ": "), report);
        assertTrue(report.contains("| 40 | | | | | | | | | not run: " + RatedLimits.FILE_DESCRIPTORS), report);
    }

    /** Short sessions, plain and over TLS: every session's request answered once, on a connection of its own. */
    @Test
    void shortSessionsAnswerEveryRequestWithAndWithoutTls(@TempDir Path out) throws Exception {
        for (String tls : new String[] {null, "jdk"}) {
            List<StepResult> steps = run(settings(Workload.RR_SHORT, List.of(10), 0, tls, out.resolve(tls == null ? "tcp" : "tls")),
                    new CopyOnWriteArrayList<>());
            StepResult s = steps.get(0);
            assertNull(s.unavailable());
            assertTrue(s.passed(), tls + ": " + s.problems());
            assertTrue(s.meanRate() > 0 && s.latencyMicros().count() > 0, tls + ": sessions were counted and timed");
        }
    }

    /** Connect/disconnect, plain and over TLS: connections are counted per second. */
    @Test
    void connectionsAreOpenedAndClosedWithAndWithoutTls(@TempDir Path out) throws Exception {
        for (String tls : new String[] {null, "jdk"}) {
            List<String> progress = new CopyOnWriteArrayList<>();
            List<StepResult> steps = run(settings(Workload.CONNECT, List.of(10), 0, tls, out.resolve(tls == null ? "tcp" : "tls")), progress);
            StepResult s = steps.get(0);
            assertNull(s.unavailable());
            assertTrue(s.passed(), tls + ": " + s.problems());
            assertTrue(s.meanRate() > 0 && s.latencyMicros().count() > 0, tls + ": connections were counted and timed");
            assertTrue(progress.stream().anyMatch(l -> l.contains("connections/s")), progress.toString());
        }
    }
}
