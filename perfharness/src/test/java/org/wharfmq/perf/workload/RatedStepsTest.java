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
    void theDefaultStepsGoOnPastTheThousandsAndTheRespondersAreTenAtMost() {
        assertEquals(List.of(10, 50, 100, 250, 500, 1000, 2000, 3000, 4000, 6000, 8000, 12000, 16000, 24000, 32000),
                RatedSteps.DEFAULT_STEPS, "past 2,000, where Wharf still served its clients at a 21.8 ms median");
        assertEquals(8, RatedSteps.responders(0, 8));
        assertEquals(10, RatedSteps.responders(0, 8000));
        assertEquals(4, RatedSteps.responders(4, 8000), "--responders");
    }

    /** Each way the stepping ends is said in words (the report) and briefly (the table's cell). */
    @Test
    void whatStoppedTheSteppingIsNamed() {
        StepResult notRun = new StepResult("RR-RATED", "Wharf", 2048, 16000, 10, 0, 0, Double.NaN, Double.NaN, Double.NaN,
                Double.NaN, LatencySummary.NONE, false, "past the machine's memory: 16,000 requesters need ...", List.of());
        List<StepResult> limited = List.of(step(8000, 90_000, true), notRun);
        assertEquals("16,000 requesters not run, past the machine's memory: 16,000 requesters need ...", RatedSteps.stoppedBy(limited));
        assertEquals("(16,000: past the machine's memory)", RatedSteps.stoppedByBrief(limited));
        assertEquals(8000, RatedSteps.clientsServed(limited));

        List<StepResult> slow = List.of(step(4000, 90_000, true), step(8000, 1_500_000, true));
        assertEquals("at 8,000 requesters the median response time, 1500.00ms, passed 1 s", RatedSteps.stoppedBy(slow));
        assertEquals("(8,000: median 1500.00ms)", RatedSteps.stoppedByBrief(slow));

        List<StepResult> failed = List.of(step(250, 9_000, true), step(1000, 9_000, false));
        assertEquals("1,000 requesters failed the step's checks (loss)", RatedSteps.stoppedBy(failed));
        assertEquals("(1,000: check failed)", RatedSteps.stoppedByBrief(failed));

        List<StepResult> every = List.of(step(250, 9_000, true), step(2000, 21_000, true));
        assertTrue(RatedSteps.stoppedBy(every).startsWith("not stopped: every step given served its clients, the largest 2,000"),
                RatedSteps.stoppedBy(every));
        assertEquals("(every step)", RatedSteps.stoppedByBrief(every));
    }

    /**
     * A step whose requests were still queued past the timeout when its run ended was overloaded: it passed its checks
     * (nothing lost) but served nobody, whatever the median of the replies that came in time (the lead's 8,000 step:
     * 312 ms, one requester JVM of eight at its rate, the others' requests waiting), and the stepping stops there,
     * saying so.
     */
    @Test
    void anOverloadedStepServesNobodyAndStopsTheStepping() {
        LatencySummary fast = new LatencySummary(100, 312_000, 312_000, 312_000, 312_000, 312_000, 312_000, 312_000);
        StepResult overloaded = new StepResult("RR-RATED", "Wharf", 2048, 8000, 10, 3745, 3745, 0, 0, 0, 0, fast, true, null,
                List.of(), 1234);
        assertTrue(RatedSteps.overloaded(overloaded));
        assertFalse(RatedSteps.served(overloaded), "its median is within 1 s, but its clients were not served");
        assertTrue(RatedSteps.lastStep(overloaded));
        List<StepResult> steps = List.of(step(4000, 140_000, true), overloaded);
        assertEquals(4000, RatedSteps.clientsServed(steps));
        assertEquals("at 8,000 requesters the server was overloaded: 1,234 requests still queued when the run ended (no"
                + " reply within the timeout; answered after the end or left on the request queue, none lost)",
                RatedSteps.stoppedBy(steps));
        assertEquals("(8,000: overloaded, 1,234 requests still queued at the end)", RatedSteps.stoppedByBrief(steps));
        assertFalse(RatedSteps.overloaded(step(4000, 140_000, true)));
    }

    @Test
    void theClientsServedAreThoseOfTheLargestStepWithinTheThreshold() {
        List<StepResult> steps = List.of(step(10, 2_000, true), step(100, 40_000, true), step(1000, 900_000, true),
                step(2000, 1_500_000, true));
        assertEquals(1000, RatedSteps.clientsServed(steps));
        assertEquals(0, RatedSteps.clientsServed(List.of(step(10, 2_000, false))), "a failed step served nobody");
    }
}
