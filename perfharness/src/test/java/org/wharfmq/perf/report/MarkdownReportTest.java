package org.wharfmq.perf.report;

import org.junit.jupiter.api.Test;
import org.wharfmq.perf.driver.LatencySummary;
import org.wharfmq.perf.workload.StepResult;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The request/reply report: each row says whether the messages were persistent and stands beside the seed's like row. */
class MarkdownReportTest {

    private static StepResult step(String workload, String target, int size, int clients, double rate) {
        return new StepResult(workload, target, size, clients, clients / 2, rate, rate, 40.0, 12.5, 30.0, 0.0,
                LatencySummary.NONE, true, null, List.of());
    }

    private static Map<String, List<StepResult>> compare(String workload, double wharf, double artemis) {
        Map<String, List<StepResult>> results = new LinkedHashMap<>();
        results.put("Wharf", List.of(step(workload, "Wharf", 2048, 32, wharf)));
        results.put("Artemis", List.of(step(workload, "Artemis", 2048, 32, artemis)));
        return results;
    }

    @Test
    void aPersistentRunIsLabelledSoAndStandsBesideTheSeedsPersistentRow() {
        String md = MarkdownReport.render("RR-1", "local", "round trips/s", true, "cmd", compare("RR-1", 6000, 2000), Map.of());
        assertTrue(md.contains("| RR-1 2KB persistent | 6,000 | 40.00 | 32 | 2,000 | 40.00 | 32 | 18,391 | 27.98 | 17 |"), md);
        assertFalse(md.contains("non-persistent"), md);
        assertTrue(md.contains("RR-1 2KB: Wharf / Artemis peak ratio = 3.00"), md);
    }

    @Test
    void aPersistentRunWithoutAPublishedPersistentRowShowsNoneRatherThanTheNonPersistentOne() {
        String md = MarkdownReport.render("RR-4", "client", "round trips/s", true, "cmd", compare("RR-4", 6000, 2000), Map.of());
        assertTrue(md.contains("| RR-4 2KB persistent | 6,000 |"), md);
        assertTrue(md.contains("no published row"), md);
        assertFalse(md.contains("56,159"), "the seed's non-persistent RR-4 row is no reference for a persistent run");
    }

    @Test
    void aNonPersistentRunStandsBesideTheSeedsNonPersistentRow() {
        String md = MarkdownReport.render("RR-4", "client", "round trips/s", false, "cmd", compare("RR-4", 9000, 3000), Map.of());
        assertTrue(md.contains("| RR-4 2KB non-persistent | 9,000 | 40.00 | 32 | 3,000 | 40.00 | 32 | 56,159 | 45.13 | 65 |"), md);
    }

    @Test
    void aFlowRunStandsBesideTheBrokerReportsRowOfTheSamePersistence() {
        Map<String, List<StepResult>> results = Map.of("Wharf", List.of(step("F-PARSE", "Wharf", 4096, 20, 1500)));
        String persistent = MarkdownReport.render("F-PARSE", "flow", "invocations/s", true, "cmd", results, Map.of());
        assertTrue(persistent.contains("| F-PARSE 4KB persistent | 1,500 |"), persistent);
        assertTrue(persistent.contains("| 363 | 28.67 | 3.16 |"), persistent);
        assertFalse(persistent.contains("973"), "the seed's non-persistent row is no reference for a persistent run");
        String nonPersistent = MarkdownReport.render("F-PARSE", "flow", "invocations/s", false, "cmd", results, Map.of());
        assertTrue(nonPersistent.contains("| 973 | 31.33 | 1.29 |"), nonPersistent);
    }
}
