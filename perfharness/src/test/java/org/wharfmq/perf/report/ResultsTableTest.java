package org.wharfmq.perf.report;

import org.junit.jupiter.api.Test;
import org.wharfmq.perf.driver.LatencySummary;
import org.wharfmq.perf.flow.BenchmarkFlow;
import org.wharfmq.perf.workload.RunCommand;
import org.wharfmq.perf.workload.StepResult;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The lines of {@code wharf perf report}'s table that are more than one rate: a flow beside its plain loop, named by
 * what the loop is; RR-RATED's clients served; the footprint's memory, where less is better.
 */
class ResultsTableTest {

    private static StepResult step(String workload, String target, int clients, double rate, long p50Micros, boolean passed) {
        LatencySummary latency = new LatencySummary(100, p50Micros, p50Micros, p50Micros, p50Micros, p50Micros, p50Micros, p50Micros);
        return new StepResult(workload, target, 4096, clients, 1, rate, rate, 50, 40.0, 80.0, 1, latency, passed, null,
                passed ? List.of() : List.of("loss"));
    }

    @Test
    void aFlowIsSetBesideItsPlainLoopNamedByWhatItIs() {
        StepResult loop = step("F-JMS", RunCommand.plainLoop(BenchmarkFlow.F_JMS, false), 1, 20_000, 0, true);
        ResultsTable.Line line = ResultsTable.line("F-JMS 4 KB", "852 (seed 002)", "F-JMS-4-KB",
                List.of(step("F-JMS", "Wharf", 20, 15_000, 800, true), loop));
        assertEquals(List.of("Wharf"), List.copyOf(line.cells().keySet()), "the loop is no server's cell");
        assertEquals("plain JMS loop, no flow engine", line.loop().name());
        assertEquals(0.75, line.loopRatio(), 1e-9);
        String table = ResultsTable.render(List.of(line), List.of("Artemis"), "bin/wharf perf report", 30, 20);
        assertTrue(table.contains("| [F-JMS 4 KB](F-JMS-4-KB/report.md) | 15,000 | - | - | 40.0 us | 800us "
                + "| 20,000/s, plain JMS loop, no flow engine (0.75) | 852 (seed 002) |"), table);
        assertFalse(table.contains("Ceiling"), table);
        assertEquals("Plain loop (file copy synced per file, no messaging)", RunCommand.plainLoop(BenchmarkFlow.F_FILE, false));
        assertEquals("Plain loop (the flow's work, no messaging)", RunCommand.plainLoop(BenchmarkFlow.F_XSLT, false));
    }

    /**
     * Below 10 a second a cell is the step's mean rate with two decimals: seed 002's 8 MB flows ran at 0.2 to 10
     * invocations a second, where most measured seconds count 0 or 1 and the median of whole counts says 0 or 1.
     */
    @Test
    void aSlowRowShowsItsMeanRateNotAMedianOfWholeCounts() {
        LatencySummary latency = new LatencySummary(10, 1_400_000, 1_400_000, 1_400_000, 1_400_000, 1_400_000, 1_400_000, 1_400_000);
        StepResult slow = new StepResult("F-PARSE", "Wharf", 8 << 20, 2, 1, 0, 0.69, 50, 900_000, 1_200_000, 1, latency, true, null, List.of());
        StepResult fast = step("F-PARSE", "Wharf", 20, 14_568, 1_230, true);
        ResultsTable.Line line = ResultsTable.line("F-PARSE 8 MB, 2 requesters", "0.69 (seed 002)", null, List.of(slow));
        assertEquals("0.69", line.cells().get("Wharf").text());
        assertEquals(0.69, line.cells().get("Wharf").value(), 1e-9, "the mean is what the ratio reads too");
        assertEquals("14,568", ResultsTable.line("F-PARSE 4 KB", null, null, List.of(fast)).cells().get("Wharf").text(),
                "from 10 a second the median, in whole numbers");
        // session 32's quick OW-5: every producer refused at its handshake, the consumers counted no second at all
        StepResult none = new StepResult("OW-5", "Wharf", 2048, 8, 8, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN,
                Double.NaN, LatencySummary.NONE, false, null, List.of("send-Sender-1 failed"));
        ResultsTable.Cell cell = ResultsTable.line("OW-5 2 KB", null, null, List.of(none)).cells().get("Wharf");
        assertEquals("none counted (check FAILED)", cell.text());
        assertEquals(0, cell.value());
    }

    @Test
    void aDatabaseFlowsTargetIsItsPlainLoopAndTheJmsApplicationIsASecondReference() {
        ResultsTable.Line line = ResultsTable.line("F-DB-UPDATE 4 KB", null, "F-DB-UPDATE-4-KB", List.of(
                step("F-DB-UPDATE", "Wharf", 20, 6_000, 800, true),
                step("F-DB-UPDATE", RunCommand.plainLoop(BenchmarkFlow.F_DB_UPDATE, false), 1, 10_000, 0, true),
                step("F-DB-UPDATE", RunCommand.jmsApplicationLoop(BenchmarkFlow.F_DB_UPDATE, false), 1, 5_000, 0, true)));
        assertEquals(List.of("Wharf"), List.copyOf(line.cells().keySet()), "neither loop is a server's cell");
        assertEquals("JDBC statement, no messaging", line.loop().name());
        assertEquals(0.6, line.loopRatio(), 1e-9, "the target's ratio: against the statement alone");
        assertEquals(1.2, line.jmsApplicationRatio(), 1e-9);
        assertTrue(line.summary().endsWith("JDBC statement, no messaging 10,000/s, Wharf / loop 0.60; against a JMS "
                + "application doing the same work (plain JMS loop with a JDBC statement from a HikariCP pool, no flow "
                + "engine) 5,000/s, Wharf / loop 1.20"), line.summary());
        String table = ResultsTable.render(List.of(line), List.of(), "bin/wharf perf report", 30, 20);
        assertTrue(table.contains("| 10,000/s, JDBC statement, no messaging (0.60); against a JMS application doing the "
                + "same work: 5,000/s (1.20) |"), table);
    }

    /** A line whose loops a report timed with an earlier row says so, in its cell and its progress line. */
    @Test
    void aLoopTimedWithAnEarlierRowNamesThatRow() {
        ResultsTable.Line line = ResultsTable.line("F-DB-UPDATE 4 MB persistent, 2 requesters", null, "x", List.of(
                step("F-DB-UPDATE", "Wharf", 2, 12, 800, true),
                step("F-DB-UPDATE", RunCommand.plainLoop(BenchmarkFlow.F_DB_UPDATE, true), 1, 20, 0, true),
                step("F-DB-UPDATE", RunCommand.jmsApplicationLoop(BenchmarkFlow.F_DB_UPDATE, true), 1, 10, 0, true)))
                .withLoopsTimedWith("F-DB-UPDATE 4 MB, 2 requesters", null);
        assertEquals("F-DB-UPDATE 4 MB, 2 requesters", line.loop().timedWith());
        assertEquals(null, line.jmsApplication().timedWith(), "the persistent JMS application: timed with this row");
        assertEquals(0.6, line.loopRatio(), 1e-9);
        String table = ResultsTable.render(List.of(line), List.of(), "bin/wharf perf report", 30, 20);
        assertTrue(table.contains("| 20/s, JDBC statement, no messaging, timed with \"F-DB-UPDATE 4 MB, 2 requesters\" (0.60); "
                + "against a JMS application doing the same work: 10/s (1.20) |"), table);
        assertTrue(table.contains("times it once per flow and message size"), "the legend says why: " + table);
        assertTrue(line.summary().contains("JDBC statement, no messaging 20/s (timed with \"F-DB-UPDATE 4 MB, 2 requesters\"), "
                + "Wharf / loop 0.60"), line.summary());
    }

    @Test
    void aRatedLineGivesTheClientsServedAndWhatStoppedTheStepping() {
        ResultsTable.Line line = ResultsTable.rated("RR-RATED", "35,000 (seed 004)", "RR-RATED", List.of(
                step("RR-RATED", "Wharf", 250, 370, 2_000, true), step("RR-RATED", "Wharf", 1000, 1_490, 20_000, true),
                step("RR-RATED", "Wharf", 2000, 2_900, 60_000, true),
                step("RR-RATED", "ActiveMQ Classic", 250, 370, 3_000, true),
                step("RR-RATED", "ActiveMQ Classic", 1000, 200, 4_000, false),
                step("RR-RATED", "Artemis", 250, 300, 1_400_000, true)));
        assertEquals("2,000 (every step)", line.cells().get("Wharf").text());
        assertEquals(60_000, line.cells().get("Wharf").p50Micros(), "the served step's median");
        assertEquals("250 (1,000: check failed)", line.cells().get("ActiveMQ Classic").text());
        assertTrue(line.cells().get("ActiveMQ Classic").passed(), "a step failed at overload ends the stepping, not the line");
        assertEquals("0 (250: median 1400.00ms)", line.cells().get("Artemis").text(), "served none: its first step was too slow");
        assertEquals(8.0, line.ratio(), 1e-9, "2,000 served against the best peer's 250");
    }

    /**
     * A step past a limit of the machine is not run: the stepping stops before it, and the cell names the limit, so the
     * clients served are read as the machine's bound, not the server's; a first step past it makes the cell n/a.
     */
    @Test
    void aRatedLineNamesTheLimitOfTheMachineThatStoppedTheStepping() {
        String threads = "past the machine's threads: 16,000 requesters and 10 responders need about 33,820 (...)";
        ResultsTable.Line line = ResultsTable.rated("RR-RATED", null, "RR-RATED", List.of(
                step("RR-RATED", "Wharf", 4000, 5_900, 30_000, true), step("RR-RATED", "Wharf", 8000, 11_900, 90_000, true),
                notRun("Wharf", 16000, threads), notRun("Artemis", 250, threads)));
        assertEquals("8,000 (16,000: past the machine's threads)", line.cells().get("Wharf").text());
        assertTrue(line.cells().get("Wharf").passed(), "the machine's limit is not a failure of the server");
        assertEquals(90_000, line.cells().get("Wharf").p50Micros(), "the served step's median");
        assertEquals("n/a", line.cells().get("Artemis").text());
        assertEquals(threads, line.cells().get("Artemis").unavailable(), "the reason under the table");
    }

    private static StepResult notRun(String target, int clients, String why) {
        return new StepResult("RR-RATED", target, 2048, clients, 10, 0, 0, Double.NaN, Double.NaN, Double.NaN, Double.NaN,
                LatencySummary.NONE, false, why, List.of());
    }

    @Test
    void aRowThatFailedToRunFailsTheReportAndSaysSo() {
        ResultsTable.Line line = ResultsTable.failed("RR-RATED", null);
        assertFalse(line.passed());
        assertTrue(ResultsTable.render(List.of(line), List.of(), "c", 1, 1).contains("| RR-RATED | failed to run (check FAILED) |"));
    }

    @Test
    void aMemoryLineIsBetterLowerAndItsRatioStillReadsAboveOneAsWharfAhead() {
        Map<String, ResultsTable.Cell> cells = new LinkedHashMap<>();
        cells.put("Wharf", ResultsTable.memoryCell(10 * 1024, 20 * 1024));
        cells.put("Artemis", ResultsTable.memoryCell(30 * 1024, 40 * 1024));
        cells.put("ActiveMQ Classic", ResultsTable.memoryCell(25 * 1024, 50 * 1024));
        ResultsTable.Line line = ResultsTable.memory("Memory per idle connection", "97.93 KB (seed 004)", cells);
        assertEquals(2.5, line.ratio(), 1e-9, "the best peer's 25 KB over Wharf's 10 KB");
        String table = ResultsTable.render(List.of(line), List.of("Artemis", "ActiveMQ Classic"), "bin/wharf perf report", 30, 20);
        assertTrue(table.contains("| Memory per idle connection | 10.0 KB (RSS 20.0 KB) | 30.0 KB (RSS 40.0 KB) | "
                + "25.0 KB (RSS 50.0 KB) | **2.50** | - | - | - | 97.93 KB (seed 004) |"), table);
    }

    /**
     * A peer that cannot run a row (ActiveMQ Classic has no bridged pair for OW-5) is n/a with the reason under the
     * table, numbered once for every cell of that reason, not a bare n/a the reader must look up in the progress.
     */
    @Test
    void aPeerThatCannotRunARowGivesItsReasonUnderTheTable() {
        String why = "Two brokers joined by bridges are built for Artemis only";
        StepResult none = new StepResult("OW-5", "ActiveMQ Classic", 2048, 8, 8, 0, 0, Double.NaN, Double.NaN, Double.NaN,
                Double.NaN, LatencySummary.NONE, false, why, List.of());
        List<ResultsTable.Line> lines = List.of(
                ResultsTable.line("OW-5 2 KB", null, null, List.of(step("OW-5", "Wharf", 8, 8_000, 300, true),
                        step("OW-5", "Artemis", 8, 7_000, 400, true), none)),
                ResultsTable.line("RR-5 2 KB", null, null, List.of(step("RR-5", "Wharf", 8, 9_000, 300, true),
                        step("RR-5", "Artemis", 8, 2_000, 400, true), none)));
        assertTrue(lines.get(0).passed(), "n/a is no failure");
        String table = ResultsTable.render(lines, List.of("Artemis", "ActiveMQ Classic"), "bin/wharf perf report", 30, 20);
        assertTrue(table.contains("| OW-5 2 KB | 8,000 | 7,000 | n/a (1) | **1.14** |"), table);
        assertTrue(table.contains("| RR-5 2 KB | 9,000 | 2,000 | n/a (1) | **4.50** |"), table);
        assertTrue(table.contains("\nn/a (1): " + why + "  \n"), table);
        assertFalse(table.contains("n/a (2)"), "one note per reason: " + table);
    }
}
