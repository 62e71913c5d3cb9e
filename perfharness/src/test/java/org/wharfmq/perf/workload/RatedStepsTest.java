package org.wharfmq.perf.workload;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.wharfmq.perf.driver.LatencyHistograms;
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
                List.of(), 1234, List.of());
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

    /** A requester JVM's histogram: {@code count} round trips of {@code micros} each. */
    private static String jvm(long count, long micros) {
        Histogram h = LatencyHistograms.create();
        h.recordValueWithCount(micros, count);
        return LatencyHistograms.encode(h);
    }

    /** A step of {@code clients} whose requester JVMs recorded {@code jvms}, judged as the runner builds it. */
    private static StepResult stepOf(int clients, List<String> jvms) {
        return new StepResult("RR-RATED", "Wharf", 2048, clients, 10, 4410, 4410, 0, 0, 0, 0,
                LatencyHistograms.summaryOf(jvms), true, null, List.of(), 0,
                jvms.stream().map(j -> LatencySummary.of(LatencyHistograms.decode(j))).toList());
    }

    /**
     * Wharf's 4,000 step on 2 cores (session 39): one requester JVM catching up made 3,139 quick round trips a second,
     * the three others 312 to 559 at medians of 1.2 to 2.9 s. Their histograms added up give the quick JVM's median
     * (140 ms then), within 1 s; but three JVMs of four, three quarters of the clients, mostly waited past it: the step
     * did not serve its clients, and the stepping stops there, saying which JVM and every JVM's median. Judged by the
     * added-up median alone, as before, it served them.
     */
    @Test
    void aStepIsServedOnlyIfEveryRequesterJvmsMedianIsWithinTheThreshold() {
        StepResult step = stepOf(4000, List.of(jvm(559, 1_200_000), jvm(312, 2_900_000), jvm(400, 1_800_000),
                jvm(3139, 96_000)));
        assertEquals(96_000, step.latencyMicros().p50(), 100, "the added-up median is the quick JVM's");
        assertEquals(4, step.jvmLatencyMicros().size());
        assertFalse(RatedSteps.served(step), "three JVMs of four past 1 s");
        assertTrue(RatedSteps.lastStep(step));
        assertEquals("a requester JVM's median past the threshold", RatedSteps.notServed(step));
        List<StepResult> steps = List.of(stepOf(3000, List.of(jvm(1500, 40_000), jvm(1500, 60_000), jvm(1500, 900_000))), step);
        assertEquals(3000, RatedSteps.clientsServed(steps), "every JVM of 3,000 within 1 s");
        String medians = RatedSteps.jvmMedians(step);
        assertTrue(medians.matches("12\\d\\d\\.\\d\\dms, 29\\d\\d\\.\\d\\dms, 18\\d\\d\\.\\d\\dms, 96\\.\\d\\dms"), medians);
        assertEquals("at 4,000 requesters a requester JVM's median response time, " + Sizes.micros(step.jvmLatencyMicros().get(1).p50())
                + ", passed 1 s, though the step's over all its requesters was " + Sizes.micros(step.latencyMicros().p50())
                + " (per requester JVM: " + medians + ")", RatedSteps.stoppedBy(steps));
        assertEquals("(4,000: a requester JVM's median " + Sizes.micros(step.jvmLatencyMicros().get(1).p50()) + ")",
                RatedSteps.stoppedByBrief(steps));
    }

    /** A requester JVM none of whose round trips ended in the measured period served none of its clients. */
    @Test
    void aRequesterJvmWithoutARoundTripServedNobody() {
        StepResult step = stepOf(2000, List.of(jvm(3000, 1_500), ""));
        assertEquals(1_500, step.latencyMicros().p50());
        assertFalse(RatedSteps.served(step));
        assertEquals("1.50ms, none", RatedSteps.jvmMedians(step));
        assertEquals("(2,000: a requester JVM without a round trip)", RatedSteps.stoppedByBrief(List.of(step)));
        assertTrue(RatedSteps.served(stepOf(2000, List.of(jvm(3000, 20_000), jvm(2900, 30_000)))));
    }

    @Test
    void theClientsServedAreThoseOfTheLargestStepWithinTheThreshold() {
        List<StepResult> steps = List.of(step(10, 2_000, true), step(100, 40_000, true), step(1000, 900_000, true),
                step(2000, 1_500_000, true));
        assertEquals(1000, RatedSteps.clientsServed(steps));
        assertEquals(0, RatedSteps.clientsServed(List.of(step(10, 2_000, false))), "a failed step served nobody");
    }
}
