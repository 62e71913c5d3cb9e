package org.wharfmq.perf.workload;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The results table's large-message and 1,000-subscriber rows in short form: each row's own {@code perf run} arguments
 * (as {@code perf report} builds them), no warm-up but the driver's own (until every client's first operation ended),
 * then 1 s measured (2 s for publish/subscribe, whose rate is counted in whole seconds), everything in this JVM. Every
 * request is answered once and whole (a reply shorter than its request fails the step), every publication reaches
 * every subscriber once, every flow input gives one output; counts, never speed. One row per new path (a 2 MB
 * persistent round trip, a 20 MB one, 1,000 subscribers, an 8 MB persistent message through a flow and the journal;
 * an 8 MB parse is FlowWorkloadsTest's): the suite's time allows no more (all sixteen took twelve minutes at load 60);
 * the 100 MB path is LargeMessageProcessTest's, and {@code wharf perf report --quick} runs every row.
 */
@Tag("slow")
class ReportRowsShortFormTest {

    /** Messages from this size on take longer than the short form's 1 s measured per round trip under load. */
    private static final int LONGER_THAN_THE_RUN = 20 << 20;
    /** Seed 002's large flow messages: 4 and 8 MB, one or two invocations a second on its own hardware. */
    private static final int LARGE_FLOW_MESSAGE = 4 << 20;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {
            "RR-4 2 MB persistent, 8 requesters, 4 transacted responders",
            "RR-4 20 MB, 4 requesters",
            "PS-N 2 KB, 1,000 subscribers (deliveries/s)",
            "F-PASS 8 MB persistent, 2 requesters"})
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void theRowRunsAndCountsEveryMessageOnce(String label, @TempDir Path out) throws Exception {
        ResultsPlan.Row row = ResultsPlan.ROWS.stream().filter(r -> r.label().equals(label)).findFirst().orElseThrow();
        int runSeconds = row.workload().publishSubscribe() ? 2 : 1;
        List<String> args = new ArrayList<>(ReportCommand.runArgs(row, false, 0, runSeconds, out, List.of("-Xmx256m")));
        args.add("--in-process");
        RunSettings settings = RunCommand.parse(args.toArray(String[]::new), false).settings();
        List<String> progress = new CopyOnWriteArrayList<>();
        List<StepResult> steps = RunCommand.execute(settings, List.of(Target.WHARF), new InProcessLauncher(line -> { }), progress::add);
        StepResult s = steps.get(0);
        assertNull(s.unavailable());
        assertTrue(s.passed(), () -> s.problems() + " " + progress);
        assertEquals(settings.sizes().get(0), s.messageSize());
        if (row.workload().flow() != null && s.messageSize() >= LARGE_FLOW_MESSAGE) {
            // an 8 MB persistent invocation (two journal writes of 8 MB, a flow's transaction) may outlast the 1 s
            // measured: its check is the warm-up's, every requester's first output received once and the flow run
            // once per input (the runner's flow check), which passed() above holds
            return;
        }
        if (s.messageSize() >= LONGER_THAN_THE_RUN) {
            // a 20 or 100 MB round trip outlasts the 1 s measured here: its check is the warm-up's, which waits until
            // every requester's first round trip ended, whole (a loss or a short reply fails the step)
            assertTrue(progress.stream().anyMatch(l -> l.contains("server memory:")), () -> "the run ended: " + progress);
            return;
        }
        assertTrue(s.meanRate() > 0, () -> "something was counted: " + progress);
        if (row.workload().publishSubscribe()) {
            assertEquals(1000, s.clients(), "every subscriber of the row");
        } else {
            assertTrue(s.latencyMicros().count() > 0, () -> "round trips were timed: " + progress);
        }
        if (!row.workload().twoQueueManagers()) {
            assertTrue(progress.stream().anyMatch(l -> l.contains("server memory:")),
                    () -> "the server's queues were checked against its memory budget: " + progress);
        }
    }
}
