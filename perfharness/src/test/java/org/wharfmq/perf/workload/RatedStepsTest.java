package org.wharfmq.perf.workload;

import org.junit.jupiter.api.Test;
import org.wharfmq.perf.driver.LatencySummary;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** RR-RATED's rules: the requesters' JVMs, when the stepping stops, and the clients served. */
class RatedStepsTest {

    private static StepResult step(int clients, long p50Micros, boolean passed) {
        LatencySummary latency = new LatencySummary(100, p50Micros, p50Micros, p50Micros, p50Micros, p50Micros, p50Micros, p50Micros);
        return new StepResult("RR-RATED", "Wharf", 2048, clients, 10, clients, clients, 0, 0, 0, 0, latency, passed, null,
                passed ? List.of() : List.of("loss"));
    }

    @Test
    void requestersAreSpreadOverAtLeastTwoJvms() {
        assertEquals(List.of(1), RatedSteps.split(1));
        assertEquals(List.of(5, 5), RatedSteps.split(10));
        assertEquals(List.of(1000, 1000), RatedSteps.split(2000));
        assertEquals(List.of(834, 833, 833), RatedSteps.split(2500));
    }

    @Test
    void theSteppingStopsWhenTheMedianPassesOneSecondOrAStepFails() {
        assertFalse(RatedSteps.lastStep(step(100, 1_000_000, true)), "exactly 1 s is within the threshold");
        assertTrue(RatedSteps.lastStep(step(100, 1_000_001, true)));
        assertTrue(RatedSteps.lastStep(step(100, 5_000, false)));
    }

    @Test
    void theClientsServedAreThoseOfTheLargestStepWithinTheThreshold() {
        List<StepResult> steps = List.of(step(10, 2_000, true), step(100, 40_000, true), step(1000, 900_000, true),
                step(2000, 1_500_000, true));
        assertEquals(1000, RatedSteps.clientsServed(steps));
        assertEquals(0, RatedSteps.clientsServed(List.of(step(10, 2_000, false))), "a failed step served nobody");
    }
}
