package org.wharfmq.perf.workload;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A short run of each request/reply and one-way workload against a server in this JVM: it checks that the steps run
 * and count every message exactly once, never how fast (the flow workloads: FlowWorkloadsTest). RR-4 in this JVM is
 * run here with users and rules, and without them by EveryOptionTest (metrics, TLS); in child JVMs, beside the
 * Artemis peer, by {@link #compareRunsRr4OnWharfAndTheArtemisPeerAndWritesTheReport}.
 */
@Tag("slow")
class WorkloadSmokeTest {

    /**
     * A step of {@code runSeconds} measured after a 1 s warm-up (held until every client's first operation ended): 2 s
     * where the server's CPU over the measured period is checked (read every 200 ms), else 1 s.
     */
    private static RunSettings settings(Workload w, Path out, boolean inProcess, int runSeconds) {
        return new RunSettings(w, List.of(2048), List.of(2), List.of(1), 0, 2, 1, 100, runSeconds, 1, 10, false, false, null, null,
                null, null, out, List.of("-Xmx256m"), inProcess);
    }

    @ParameterizedTest
    @EnumSource(value = Workload.class, names = {"RR_1", "RR_2", "OW_1"})
    void eachWorkloadRunsAndCountsEveryMessageOnce(Workload w, @TempDir Path out) throws Exception {
        List<StepResult> steps = RunCommand.execute(settings(w, out, true, 2), List.of(Target.WHARF), new InProcessLauncher(line -> { }), line -> { });
        assertEquals(1, steps.size());
        StepResult s = steps.get(0);
        assertNull(s.unavailable());
        assertTrue(s.passed(), s.problems().toString());
        assertTrue(s.meanRate() > 0, "something was counted");
        assertTrue(s.jitPercent() >= 0, "the JIT compilers' share of the measured period is reported: " + s.jitPercent());
        if (w.requestReply()) {
            assertTrue(s.latencyMicros().count() > 0, "round trips were timed");
        }
    }

    /** RR-3 is RR-1's run under the seed's other id: the same drivers in the server, so RR-1's run stands for it. */
    @Test
    void rr3RunsAsRr1(@TempDir Path out) {
        RunSettings settings = settings(Workload.RR_3, out, true, 1);
        List<String> rr1 = new DriverPlan(Workload.RR_1, settings, 2048, 2, 1, out, "plan", null, Target.WHARF).hostedDrivers();
        List<String> rr3 = new DriverPlan(Workload.RR_3, settings, 2048, 2, 1, out, "plan", null, Target.WHARF).hostedDrivers();
        assertEquals(2, rr1.size(), "responders and requesters in the server: " + rr1);
        assertEquals(rr1, rr3);
        assertEquals(Workload.RR_1.requestersInServer(), Workload.RR_3.requestersInServer());
        assertEquals(Workload.RR_1.respondersInServer(), Workload.RR_3.respondersInServer());
    }

    /**
     * {@code --security rules}: the server has a user and permission rules; the network drivers log in as that user
     * (the server refuses anonymous clients once it has users, so a driver left without the credentials fails the
     * step) and every producer, consumer and subscription passes the rules.
     */
    @ParameterizedTest
    @EnumSource(value = Workload.class, names = {"RR_4", "PS_N"})
    void withSecurityRulesTheDriversLogInAndPassTheRules(Workload w, @TempDir Path out) throws Exception {
        RunSettings settings = new RunSettings(w, List.of(2048), List.of(2), List.of(1), 0, 2, 1, 100, w == Workload.PS_N ? 2 : 1, 1,
                10, false, false, null, "rules", null, null, out, List.of("-Xmx256m"), true);
        List<StepResult> steps = RunCommand.execute(settings, List.of(Target.WHARF), new InProcessLauncher(line -> { }), line -> { });
        StepResult s = steps.get(0);
        assertNull(s.unavailable());
        assertTrue(s.passed(), s.problems().toString());
        assertTrue(s.meanRate() > 0, "something was counted");
        if (w.requestReply()) {
            assertTrue(s.latencyMicros().count() > 0, "round trips were timed");
        }
    }

    @Test
    void rr4bRunsWithATemporaryReplyQueuePerRequester(@TempDir Path out) throws Exception {
        List<StepResult> steps = RunCommand.execute(settings(Workload.RR_4B, out, true, 1), List.of(Target.WHARF), new InProcessLauncher(line -> { }), line -> { });
        StepResult s = steps.get(0);
        assertNull(s.unavailable(), "Wharf has temporary queues");
        assertTrue(s.passed(), s.problems().toString());
        assertTrue(s.meanRate() > 0, "round trips were counted");
    }

    /**
     * RR-2b over 2 queue pairs with 4 requesters: requesters 0 and 2 use REQUEST0/REPLY0, 1 and 3 REQUEST1/REPLY1,
     * and the responders in the server take from both. A reply that went to another pair's reply queue would never
     * reach its requester (a loss), and a responder given a request naming another pair's reply queue reports it.
     */
    @Test
    void rr2bAnswersEveryRequestOnItsOwnQueuePair(@TempDir Path out) throws Exception {
        RunSettings settings = new RunSettings(Workload.RR_2B, List.of(2048), List.of(4), List.of(1), 0, 2, 1, 100, 1, 1, 10,
                false, false, null, null, null, null, out, List.of("-Xmx256m"), true);
        DriverPlan plan = new DriverPlan(Workload.RR_2B, settings, 2048, 4, 2, out, "plan", null, Target.WHARF);
        String responders = plan.hostedDrivers().get(0);
        assertTrue(responders.contains("-iq REQUEST -oq REPLY -dn 2"), responders);
        List<String> requesters = plan.clientMeasured().get(0).baseArgs();
        assertEquals("2", requesters.get(requesters.indexOf("-dn") + 1), requesters.toString());
        List<StepResult> steps = RunCommand.execute(settings, List.of(Target.WHARF), new InProcessLauncher(line -> { }), line -> { });
        StepResult s = steps.get(0);
        assertNull(s.unavailable());
        assertTrue(s.passed(), s.problems().toString());
        assertEquals(2, s.responders(), "a responder per pair at least");
        assertTrue(s.meanRate() > 0 && s.latencyMicros().count() > 0, "round trips were counted and timed");
    }

    /**
     * {@code perf compare RR-4 --peer artemis}, its command line as a user types it: RR-4 on Wharf, then on the Artemis
     * peer, every server and driver in a JVM of its own; both pass, the server's CPU is read, and the report sets them
     * side by side with their ratio. ({@code --peer classic}: ClassicPeerMainTest, persistent.)
     */
    // child JVMs one after the other (a server, its drivers, then the peer and its drivers): at load 30-40 such runs
    // took over two minutes, past the default 120 s
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    @Test
    void compareRunsRr4OnWharfAndTheArtemisPeerAndWritesTheReport(@TempDir Path out) throws Exception {
        int status = RunCommand.run(new String[] {"RR-4", "--peer", "artemis", "--sizes", "2k", "--requesters", "2",
                "--warmup", "1", "--run-length", "2", "--out", out.toString(), "--jvm-opts", "-Xmx256m"}, true);
        assertEquals(0, status, "every step passed its checks");
        List<JsonNode> steps = CompareSteps.passedAndCounted(out);
        if (Files.exists(Path.of("/proc/self/stat"))) {
            assertTrue(steps.get(0).get("cpuMicrosPerOp").asDouble() > 0, "Wharf's server CPU is read from /proc: " + steps.get(0));
        }
        List<String> targets = CompareSteps.targets(steps);
        assertEquals(List.of("Wharf", "Artemis"), targets);
        String report = Files.readString(out.resolve("report.md"));
        assertTrue(report.contains("| RR-4 2KB non-persistent | "), report);
        assertTrue(report.contains("56,159"), "the seed's row is shown for reference");
        assertTrue(report.contains("RR-4 2KB: Wharf / Artemis peak ratio = "), report);
        assertTrue(Files.readString(out.resolve("chart-RR-4-2KB.svg")).startsWith("<svg"));
    }
}
