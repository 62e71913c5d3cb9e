package org.wharfmq.perf.workload;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Short runs of the flows whose input or output is not a Wharf queue of their own server: F-FILE (file feeders write
 * into the FileInput node's folder and take the outputs), F-FILE-OUT (requesters whose messages a FileOutput node
 * appends to a file) and F-JMS (the flow's JMSInput and JMSOutput nodes on a second Wharf server, the requesters on
 * that one), non-persistent and persistent: 1 s measured, after the driver's warm-up that lasts until every feeder's
 * or requester's first one ended. Each step passes only if every file or request came out exactly once, the flow ran
 * once per file or request (F-FILE-OUT: and its files hold one record per invocation), and nothing was left in the
 * folder or on the flow's queues; each reports its plain-loop ceiling.
 */
@Tag("slow")
class IoFlowWorkloadsTest {

    @ParameterizedTest(name = "{0} persistent={1}")
    @CsvSource({"F_FILE,false", "F_FILE,true", "F_FILE_OUT,false", "F_FILE_OUT,true", "F_JMS,false", "F_JMS,true"})
    void everyFileOrRequestComesOutOnceAndTheFlowRanOncePerInput(Workload w, boolean persistent, @TempDir Path out)
            throws Exception {
        RunSettings settings = new RunSettings(w, List.of(4096), List.of(3), List.of(1), 0, 0, 1, 0, 1, 0, 30, persistent,
                true, null, null, null, null, out, List.of("-Xmx256m"), true);
        List<String> progress = new java.util.concurrent.CopyOnWriteArrayList<>();
        List<StepResult> steps = RunCommand.execute(settings, List.of(Target.WHARF), new InProcessLauncher(line -> { }),
                progress::add);
        StepResult s = steps.get(0);
        assertNull(s.unavailable());
        assertTrue(s.passed(), s.problems().toString());
        assertTrue(s.meanRate() > 0 && s.latencyMicros().count() > 0, "outputs were counted and timed: " + progress);
        assertEquals(2, steps.size(), "the flow and its ceiling: " + progress);
        assertEquals(RunCommand.plainLoop(w.flow(), persistent), steps.get(1).target());
        String loop = switch (w) {
            case F_JMS -> persistent ? "persistent JMS loop, a transaction per message, no flow engine"
                    : "plain JMS loop, no flow engine";
            case F_FILE -> "file copy synced per file, no messaging";
            default -> persistent
                    ? "persistent JMS loop with a file append forced to disk, a transaction per message, no flow engine"
                    : "plain JMS loop with a file append, no flow engine";
        };
        assertEquals("Plain loop (" + loop + ")", steps.get(1).target(),
                "the loop is named by what it is, with the durable work it does as the flow does");
        assertTrue(steps.get(1).medianRate() > 0, "the plain loop ran");
        // a loop bound by disk syncs is timed on both sides of the flow's step (the disk's sync time drifts)
        boolean syncBound = w == Workload.F_FILE || persistent;
        assertEquals(syncBound, progress.stream().anyMatch(line -> line.contains("before the flow's steps and")),
                progress.toString());
        // the busy machine's comparison: F-FILE's loop thread, or a JMS loop's whole JVM, against the flow's JVMs
        String cpu = w == Workload.F_FILE ? "by CPU per operation: the loop's thread"
                : "by CPU per operation: the loop's JVM (its thread and its server)";
        assertTrue(progress.stream().anyMatch(line -> line.contains(cpu)), progress.toString());
    }
}
