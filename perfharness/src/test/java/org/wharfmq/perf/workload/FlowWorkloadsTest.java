package org.wharfmq.perf.workload;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A short run of each flow workload against a server in this JVM: the flow ran once per request and each request got
 * its own output, never how fast. (WorkloadSmokeTest runs the request/reply and one-way workloads; IoFlowWorkloadsTest
 * the flows whose input or output is not a queue of their own server.)
 */
@Tag("slow")
class FlowWorkloadsTest {

    /**
     * The flows whose plain-loop ceiling row the run adds here: one for each kind of loop (a compute node's work on
     * a BLOB, on XML and on records, schema validation, XSLT, an on-demand and an opaque XPath, a JDBC statement, an
     * HTTP exchange; for the records and JDBC rows, also the JMS application beside the loop). The others' loops are the same code on another function, each run by
     * SaleFlowsTest.everyCeilingRunsOnTheMessageAndTheConditionsHoldAsInTheSeed; F-FILE's, F-FILE-OUT's and F-JMS's
     * rows are IoFlowWorkloadsTest's.
     */
    private static final Set<Workload> CEILING_ROW = EnumSet.of(Workload.F_HDR, Workload.F_PARSE, Workload.F_CSV_PARSE,
            Workload.F_VALID, Workload.F_XSLT, Workload.F_FILTER_FIRST, Workload.F_OPAQUE, Workload.F_DB_INSERT,
            Workload.F_HTTP);

    /**
     * A 1-second run of each flow workload at 4 KB with 4 requesters and 2 flow instances, after the warm-up the
     * driver holds until every requester's first round trip has ended (so requests were made, whatever the load): every
     * request got its own output, and the flow ran exactly once per request with nothing left on its queues (the
     * runner's flow check: a message an XML node refused would show as a failure or backout; a database workload's
     * rows inserted or updates made must equal the invocations; F-HTTP's requesters are HTTP clients, each answer a
     * 200 with the body sent); the flows of {@link #CEILING_ROW} also report their ceiling. (F-WRITE is the first flow of
     * this JVM to write XML: its first invocations took longer than a 2 or 3 s run under a load of 35-45, which then
     * counted none, before the driver's warm-up waited for them: WarmUpBarrierTest.)
     */
    @ParameterizedTest
    @EnumSource(value = Workload.class, names = {"F_PASS", "F_HDR", "F_PARSE", "F_WRITE", "F_VALID", "F_FILTER_FIRST",
            "F_FILTER_LAST", "F_OPAQUE", "F_ROUTE", "F_COMPUTE", "F_XSLT", "F_CSV_PARSE", "F_CSV_WRITE", "F_FIXED_PARSE",
            "F_FIXED_WRITE", "F_DB_INSERT", "F_DB_UPDATE", "F_DB_RETRIEVE", "F_DB_ROUTE", "F_HTTP"})
    void eachFlowWorkloadRunsTheFlowOncePerRequest(Workload w, @TempDir Path out) throws Exception {
        RunSettings settings = new RunSettings(w, List.of(4096), List.of(4), List.of(2), 0, 0, 1, 0, 1, 0, 10, false, true, null, null, null,
                null, out, List.of("-Xmx256m"), true);
        List<String> progress = new CopyOnWriteArrayList<>();
        Launcher launcher = new InProcessLauncher(line -> { });
        List<StepResult> steps = CEILING_ROW.contains(w) || !w.flow().hasCeiling()
                ? RunCommand.execute(settings, List.of(Target.WHARF), launcher, progress::add)
                : new WorkloadRunner(settings, launcher, progress::add).run(Target.WHARF);
        StepResult s = steps.get(0);
        assertNull(s.unavailable());
        assertTrue(s.passed(), s.problems().toString());
        assertEquals(2, s.responders(), "the step reports the flow's instances");
        assertTrue(s.meanRate() > 0 && s.latencyMicros().count() > 0, "invocations were counted and timed");
        assertTrue(progress.stream().anyMatch(l -> l.contains("instances=2") && l.contains("invocations/s")), progress.toString());
        if (CEILING_ROW.contains(w)) {
            boolean application = w.flow().hasJmsApplicationLoop();
            assertEquals(application ? 3 : 2, steps.size(), "the flow, its ceiling and (database, records) the JMS "
                    + "application beside it");
            assertEquals(RunCommand.plainLoop(w.flow(), false), steps.get(1).target());
            assertTrue(steps.get(1).medianRate() > 0);
            if (w == Workload.F_DB_INSERT || w == Workload.F_CSV_PARSE) { // the loop issue 36 names: the node's work alone
                assertEquals(w == Workload.F_DB_INSERT ? "Plain loop (JDBC statement, no messaging)"
                        : "Plain loop (the flow's work, no messaging)", steps.get(1).target());
            }
            assertTrue(progress.stream().anyMatch(l -> l.startsWith(w.id() + " 4KB: Wharf / loop = ") && l.contains(
                    "in the plain loop: " + w.flow().plainLoop(false) + "; issue 36's target")),
                    "the target's ratio is against the plain loop: " + progress);
            assertEquals(application, progress.stream().anyMatch(l -> l.startsWith(w.id() + " 4KB against a JMS "
                    + "application doing the same work: Wharf / loop = ") && l.contains("by CPU per operation: the loop's "
                    + "JVM (its thread and its server)")), "the JMS application's ratios, a second line: " + progress);
            if (application) {
                assertEquals(RunCommand.jmsApplicationLoop(w.flow(), false), steps.get(2).target());
                assertTrue(steps.get(2).medianRate() > 0, "the JMS application ran");
            }
        } else if (w == Workload.F_PASS) {
            assertEquals(1, steps.size(), "F-PASS does no work of its own: no ceiling");
        } else {
            assertEquals(1, steps.size(), "the flow alone");
        }
        RunCommand.writeReport(settings, steps, "bin/wharf perf run " + w.id() + " (test)");
        String report = Files.readString(out.resolve("report.md"));
        assertTrue(report.contains("| " + w.id() + " 4KB non-persistent | "), report);
        if (w == Workload.F_PASS) {
            assertTrue(report.contains("7,144 | 68.67 | 0.38"), "the seed's row is shown for reference: " + report);
        }
    }

    /**
     * The report's largest flow row in short: F-PARSE on 8 MB messages, two requesters, one flow instance, with the
     * timeout the runner scales to the size, 1 s measured after the warm-up that waits for each requester's first
     * one. Every request got its output once and the flow ran once per request (its ceiling row is left out).
     * Its own timeout: the cold 8 MB parses took 62 s under a load of 45, 108 s with the other test JVM busy beside it,
     * close to the default 120 s.
     */
    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void anEightMegabyteParseRunsThroughTheFlowWithTheTimeoutScaledToItsSize(@TempDir Path out) throws Exception {
        int size = 8 << 20;
        RunSettings settings = new RunSettings(Workload.F_PARSE, List.of(size), List.of(2), List.of(1), 0, 0, 1, 0, 1, 0, 0, false,
                false, null, null, null, null, out, List.of("-Xmx256m"), true);
        assertEquals(42, settings.timeoutSeconds(size), "no --timeout: 10 s + 4 s per MB");
        // the flow alone: the 4 KB run's ceiling row is the same code, and its plain loop of ten 8 MB parses at a time
        // is seconds of CPU (SaleFlowsTest runs every ceiling's work)
        List<StepResult> steps = new WorkloadRunner(settings, new InProcessLauncher(line -> { }), line -> { }).run(Target.WHARF);
        StepResult s = steps.get(0);
        assertNull(s.unavailable());
        assertEquals(size, s.messageSize());
        assertTrue(s.passed(), s.problems().toString());
    }
}
