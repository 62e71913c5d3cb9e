package org.wharfmq.perf.workload;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.perf.flow.BenchmarkFlow;
import org.wharfmq.perf.report.ResultsTable;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A report times a flow's plain loop once per flow, message size (and persistence, for a loop that does durable work)
 * and reuses it in its later rows, saying which row it was timed with; a loop bound by disk syncs is timed in every
 * row; {@code wharf perf run} times every loop.
 */
class PlainLoopTimingsTest {

    private static final int FOUR_MB = 4 << 20;
    private static final PlainLoopTimings.Loop PLAIN = PlainLoopTimings.Loop.PLAIN;
    private static final PlainLoopTimings.Loop APPLICATION = PlainLoopTimings.Loop.JMS_APPLICATION;

    /** A timer that counts its timings, each a new rate. */
    private static final class CountingTimer implements Supplier<BenchmarkFlow.Ceiling> {
        final AtomicInteger timings = new AtomicInteger();

        @Override
        public BenchmarkFlow.Ceiling get() {
            return new BenchmarkFlow.Ceiling(100 + timings.incrementAndGet(), 1, 1, 1);
        }
    }

    private static BenchmarkFlow.Ceiling time(PlainLoopTimings loops, BenchmarkFlow flow, PlainLoopTimings.Loop loop, int size,
                                              boolean persistent, CountingTimer timer) {
        return loops.time(flow, loop, size, persistent, 30_000, 10_000, timer);
    }

    @Test
    void aLoopThatDoesNotDependOnPersistenceIsTimedOncePerFlowAndSizeAndReusedNamingItsRow() {
        PlainLoopTimings loops = PlainLoopTimings.shared();
        CountingTimer timer = new CountingTimer();
        loops.startRow("F-WRITE 4 MB, 2 requesters");
        BenchmarkFlow.Ceiling first = time(loops, BenchmarkFlow.F_WRITE, PLAIN, FOUR_MB, false, timer);
        assertEquals(Map.of(), loops.reusedByRow(), "timed with its own row");
        loops.startRow("F-WRITE 4 MB persistent, 2 requesters");
        assertSame(first, time(loops, BenchmarkFlow.F_WRITE, PLAIN, FOUR_MB, true, timer), "the same loop: its timing reused");
        assertEquals(Map.of(PLAIN, "F-WRITE 4 MB, 2 requesters"), loops.reusedByRow());
        assertEquals(1, timer.timings.get());
        loops.startRow("F-WRITE 8 MB, 2 requesters");
        time(loops, BenchmarkFlow.F_WRITE, PLAIN, 8 << 20, false, timer);
        time(loops, BenchmarkFlow.F_VALID, PLAIN, FOUR_MB, false, timer);
        assertEquals(3, timer.timings.get(), "another size, another flow: timed");
        assertEquals(Map.of(), loops.reusedByRow(), "a new row forgets the last one's reuse");
    }

    @Test
    void aLoopOfDurableWorkIsKeptPerPersistenceAndOneBoundByDiskSyncsIsTimedEveryTime() {
        PlainLoopTimings loops = PlainLoopTimings.shared();
        CountingTimer timer = new CountingTimer();
        loops.startRow("a");
        time(loops, BenchmarkFlow.F_JMS, PLAIN, FOUR_MB, false, timer);
        time(loops, BenchmarkFlow.F_JMS, PLAIN, FOUR_MB, false, timer);
        assertEquals(1, timer.timings.get(), "F-JMS's plain JMS loop, not persistent: kept");
        time(loops, BenchmarkFlow.F_JMS, PLAIN, FOUR_MB, true, timer);
        time(loops, BenchmarkFlow.F_JMS, PLAIN, FOUR_MB, true, timer);
        assertEquals(3, timer.timings.get(), "its persistent loop syncs the disk: timed every time, never the other's");
        time(loops, BenchmarkFlow.F_FILE, PLAIN, 4096, false, timer);
        time(loops, BenchmarkFlow.F_FILE, PLAIN, 4096, false, timer);
        assertEquals(5, timer.timings.get(), "F-FILE's copy syncs each file: timed every time");
        time(loops, BenchmarkFlow.F_DB_UPDATE, APPLICATION, FOUR_MB, false, timer);
        time(loops, BenchmarkFlow.F_DB_UPDATE, APPLICATION, FOUR_MB, false, timer);
        time(loops, BenchmarkFlow.F_DB_UPDATE, APPLICATION, FOUR_MB, true, timer);
        assertEquals(7, timer.timings.get(), "the JMS application: kept when not persistent, timed when persistent");
        time(loops, BenchmarkFlow.F_DB_UPDATE, PLAIN, FOUR_MB, true, timer);
        time(loops, BenchmarkFlow.F_DB_UPDATE, PLAIN, FOUR_MB, false, timer);
        assertEquals(8, timer.timings.get(), "its JDBC loop is the same persistent or not");
        assertTrue(loops.reusedByRow().containsKey(PLAIN) && loops.reusedByRow().containsKey(APPLICATION), loops.reusedByRow().toString());
    }

    @Test
    void perfRunTimesEveryLoop() {
        PlainLoopTimings loops = PlainLoopTimings.eachRun();
        CountingTimer timer = new CountingTimer();
        time(loops, BenchmarkFlow.F_WRITE, PLAIN, FOUR_MB, false, timer);
        time(loops, BenchmarkFlow.F_WRITE, PLAIN, FOUR_MB, true, timer);
        assertEquals(2, timer.timings.get());
        assertEquals(Map.of(), loops.reusedByRow());
    }

    /**
     * A line's loop kept for {@code --resume} keeps the row it was timed with; a line kept before loops were shared
     * (no such field) reads as timed with its own row.
     */
    @Test
    void theRowALoopWasTimedWithIsKeptForResume(@TempDir Path out) throws Exception {
        ResultsPlan.Row row = ResultsPlan.ROWS.stream().filter(r -> r.label().equals("F-WRITE 4 MB persistent, 2 requesters"))
                .findFirst().orElseThrow();
        StepResult loop = new StepResult("F-WRITE", RunCommand.plainLoop(BenchmarkFlow.F_WRITE, true), FOUR_MB, 1, 1, 26, 26,
                Double.NaN, 1, Double.NaN, Double.NaN, org.wharfmq.perf.driver.LatencySummary.NONE, true, null, List.of());
        ResultsTable.Line line = ResultsTable.line(row.label(), row.seedRow(), row.slug(), List.of(loop))
                .withLoopsTimedWith("F-WRITE 4 MB, 2 requesters", null);
        RowResults kept = new RowResults(out);
        kept.save(row, line);
        assertEquals("F-WRITE 4 MB, 2 requesters", kept.load(row).loop().timedWith());
        com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
        com.fasterxml.jackson.databind.JsonNode saved = json.readTree(kept.where(row).toFile());
        ((com.fasterxml.jackson.databind.node.ObjectNode) saved.get("loop")).remove("timedWith");
        json.writeValue(kept.where(row).toFile(), saved);
        ResultsTable.Line old = kept.load(row);
        assertEquals(null, old.loop().timedWith(), saved.toString());
        assertEquals(26, old.loop().rate());
    }

    /**
     * The runner asks the report's timings for its loop: two short F-PARSE runs, not persistent then persistent, of one
     * report show the same loop timing (a second timing would not give the same rate to the last bit) and the second
     * names the first's row.
     */
    @Test
    @Tag("slow")
    void aReportsSecondRowOfAFlowAndSizeShowsTheFirstRowsLoop(@TempDir Path out) throws Exception {
        PlainLoopTimings loops = PlainLoopTimings.shared();
        double[] rates = new double[2];
        for (int i = 0; i < 2; i++) {
            boolean persistent = i == 1;
            RunSettings settings = new RunSettings(Workload.F_PARSE, List.of(4096), List.of(2), List.of(1), 0, 0, 1, 0, 1, 0, 10,
                    persistent, true, null, null, null, null, out.resolve("run" + i), List.of("-Xmx256m"), true);
            loops.startRow("row " + i);
            List<StepResult> steps = RunCommand.execute(settings, List.of(Target.WHARF), new InProcessLauncher(line -> { }),
                    loops, line -> { });
            assertTrue(steps.get(0).passed(), steps.get(0).problems().toString());
            assertEquals(RunCommand.plainLoop(BenchmarkFlow.F_PARSE, persistent), steps.get(1).target());
            rates[i] = steps.get(1).medianRate();
        }
        assertTrue(rates[0] > 0, "the loop ran");
        assertEquals(rates[0], rates[1], "the second row shows the first row's timing");
        assertEquals(Map.of(PLAIN, "row 0"), loops.reusedByRow());
    }
}
