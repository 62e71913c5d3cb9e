package org.wharfmq.perf.report;

import org.junit.jupiter.api.Test;
import org.wharfmq.perf.driver.LatencySummary;
import org.wharfmq.perf.workload.StepResult;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** The rated report shows each requester JVM's median beside the step's, so that a reader sees the spread. */
class RatedReportTest {

    private static LatencySummary median(long count, long micros) {
        return new LatencySummary(count, micros, micros, micros, micros, micros, micros, micros);
    }

    @Test
    void eachStepShowsEveryRequesterJvmsMedianAndIsServedOnlyIfAllAreWithinTheThreshold() {
        StepResult served = new StepResult("RR-RATED", "Wharf", 2048, 2000, 10, 3000, 3000, 20, 40, 300, 0,
                median(6000, 25_000), true, null, List.of(), 0, List.of(median(3000, 20_000), median(3000, 30_000)));
        StepResult spread = new StepResult("RR-RATED", "Wharf", 2048, 4000, 10, 4378, 4378, 30, 41.6, 300, 0,
                median(4410, 140_000), true, null, List.of(), 0,
                List.of(median(559, 1_200_000), median(312, 2_900_000), median(400, 1_800_000), median(3139, 96_000)));
        String md = RatedReport.render("rated", 1.5, "bin/wharf perf run RR-RATED", Map.of("Wharf", List.of(served, spread)),
                Map.of());
        assertTrue(md.contains("| p50 | p95 | p50 per JVM | Served | Check |"), md);
        assertTrue(md.contains("| 2000 | 10 | 3,000 | 3,000 | 20.00% | 25.00ms | 25.00ms | 20.00ms, 30.00ms | yes | PASSED |"), md);
        assertTrue(md.contains("| 4000 | 10 | 6,000 | 4,378 | 30.00% | 140.00ms | 140.00ms | 1200.00ms, 2900.00ms, 1800.00ms, "
                + "96.00ms | no | PASSED |"), md);
        assertTrue(md.contains("### Wharf, 2KB: 2000 clients served"), md);
        assertTrue(md.contains("Stopped: at 4,000 requesters a requester JVM's median response time, 2900.00ms, passed 1 s"), md);
    }
}
