package org.wharfmq.perf.report;

import org.junit.jupiter.api.Test;
import org.wharfmq.perf.driver.LatencySummary;
import org.wharfmq.perf.workload.StepResult;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The publish/subscribe report: rows like the seeds' pub/sub tables, the seed's rows beside them, ratios. */
class PubSubReportTest {

    private static StepResult step(String workload, String target, int size, int count, double rate) {
        return step(workload, target, size, count, rate, LatencySummary.NONE);
    }

    private static StepResult step(String workload, String target, int size, int count, double rate, LatencySummary latency) {
        return new StepResult(workload, target, size, count, 1, rate, rate, 40.0, 12.5, 30.0, 0.0, latency, true, null, List.of());
    }

    /** A delivery latency of {@code p50Micros} at the median (the other percentiles above it). */
    private static LatencySummary latency(long p50Micros) {
        return new LatencySummary(1000, p50Micros, p50Micros * 2, p50Micros * 3, p50Micros * 4, p50Micros * 5, p50Micros * 8, p50Micros);
    }

    @Test
    void psNRowsStandBesideTheSeedsRowsAndTheRatioPerSubscriberCount() {
        Map<String, List<StepResult>> results = new LinkedHashMap<>();
        results.put("Wharf", List.of(step("PS-N", "Wharf", 4096, 1, 3000), step("PS-N", "Wharf", 4096, 100, 90_000, latency(1500))));
        results.put("Artemis", List.of(step("PS-N", "Artemis", 4096, 1, 1000), step("PS-N", "Artemis", 4096, 100, 30_000, latency(800))));
        String md = PubSubReport.render("PS-N", "pub/sub", false, "bin/wharf perf compare PS-N", results, Map.of(4096, "chart.svg"));
        assertTrue(md.contains("| PS-N 4KB non-persistent | 100 | 90,000 | 1.50ms / 3.00ms / 6.00ms / 12.00ms | 40.00 | 12.5 | 30,000 | "
                + "800us / 1.60ms / 3.20ms / 6.40ms | 40.00 | 12.5 | 8,559 | 51.00 | 0.24 |"), md);
        assertTrue(md.contains("| PS-N 4KB non-persistent | 1 | 3,000 | n/a |"), "no latency recorded: " + md);
        assertTrue(md.contains("| 4KB | 100 | 1 | 90,000 | 90,000 | 1.50ms / 3.00ms / 6.00ms / 12.00ms | 40.00% |"), md);
        assertTrue(md.contains("948"), "seed 002's 1-subscriber row");
        assertEquals(List.of("PS-N 4KB at 1: Wharf / Artemis deliveries/s = 3.00 (3,000 vs 1,000)",
                "PS-N 4KB at 100: Wharf / Artemis deliveries/s = 3.00 (90,000 vs 30,000); median delivery latency 1.50ms vs 800us"),
                PubSubReport.ratioLines("PS-N", results));
    }

    @Test
    void psDShowsTheSeedsPersistentRows() {
        String md = PubSubReport.render("PS-D", "durable", false, "cmd",
                Map.of("Wharf", List.of(step("PS-D", "Wharf", 4096, 10, 500))), Map.of());
        assertTrue(md.contains("| PS-D 4KB persistent | 10 | 500 |"), md);
        assertTrue(md.contains("1,076 | 23.00 | 0.85 |"), md);
    }

    @Test
    void psTComparesEachDummyCountWithNone() {
        String md = PubSubReport.render("PS-T", "topics", false, "cmd", Map.of("Wharf", List.of(
                step("PS-T", "Wharf", 2048, 0, 1000), step("PS-T", "Wharf", 2048, 10_000, 950))), Map.of());
        assertTrue(md.contains("| Test | Dummy subscriptions |"), md);
        assertTrue(md.contains("| PS-T 2KB non-persistent | 10,000 | 950 | n/a | 40.00 | 12.5 | Wharf 0.95 |"), md);
        assertTrue(md.contains("hashed table"), "seed 001's finding is quoted");
    }
}
