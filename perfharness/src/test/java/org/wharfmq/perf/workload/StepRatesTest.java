package org.wharfmq.perf.workload;

import org.junit.jupiter.api.Test;
import org.wharfmq.perf.driver.DriverResult;
import org.wharfmq.perf.driver.LatencySummary;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A step's rates; publish/subscribe deliveries added up second by second across the subscriber JVMs. */
class StepRatesTest {

    /** A driver result with its own rates, its measured period and its counts per wall-clock second. */
    private static DriverResult driver(String id, double ownRate, long windowStartMillis, long windowEndMillis,
                                       Map<Long, Long> perWallSecond) {
        return new DriverResult("jms.r11.X", id, 1, 16, false, false, windowStartMillis, windowEndMillis, 10, 10,
                ownRate, ownRate, List.of((long) ownRate), new TreeMap<>(perWallSecond), LatencySummary.NONE, "",
                Map.of(), Map.of(), Map.of(), List.of(), 0, 0, 0, 0, 0, 0, List.of(), null, true);
    }

    /** {@code counts} for the seconds {@code from}, {@code from + 1}, ... in turn. */
    private static Map<Long, Long> seconds(long from, long... counts) {
        Map<Long, Long> m = new TreeMap<>();
        for (int i = 0; i < counts.length; i++) {
            m.put(from + i, counts[i]);
        }
        return m;
    }

    @Test
    void eachSecondIsTheSumOfTheSubscriberJvmsInThePublishersMeasuredPeriod() {
        // the publisher warmed up until 103.4 s and stopped at 107.5 s: whole seconds 104, 105, 106
        DriverResult a = driver("sub1", 0, 0, 0, seconds(100, 1, 2, 3, 4, 10, 20, 30, 40, 50));
        DriverResult b = driver("sub2", 0, 0, 0, seconds(100, 5, 5, 5, 5, 1, 2, 3, 4, 5));
        assertEquals(List.of(11L, 22L, 33L), StepRates.perSecondTotals(List.of(a, b), 103_400, 107_500));
        assertEquals(List.of(11L, 22L, 33L, 44L), StepRates.perSecondTotals(List.of(a, b), 104_000, 108_000),
                "a period on the boundaries holds its first and last second");
    }

    @Test
    void aSecondSomeSubscriberJvmDidNotCountIsLeftOut() {
        DriverResult early = driver("sub1", 0, 0, 0, seconds(100, 10, 10, 10, 10, 10, 10));     // 100..105
        DriverResult late = driver("sub2", 0, 0, 0, seconds(102, 1, 2, 3, 4, 5, 6));           // 102..107
        Map<Long, Long> gap = seconds(100, 7, 7, 7, 7, 7, 7, 7, 7);                              // 100..107
        gap.remove(104L);
        DriverResult gappy = driver("sub3", 0, 0, 0, gap);
        assertEquals(List.of(11L, 12L, 13L, 14L), StepRates.perSecondTotals(List.of(early, late), 100_000, 108_000),
                "only 102..105, which both counted");
        assertEquals(List.of(18L, 19L, 21L), StepRates.perSecondTotals(List.of(early, late, gappy), 100_000, 108_000),
                "and not 104, which the third missed");
    }

    @Test
    void theRatesAreTheMedianAndMeanOfThePerSecondTotals() {
        DriverResult publisher = driver("pub", 0, 100_000, 105_000, Map.of());
        DriverResult a = driver("sub1", 0, 0, 0, seconds(100, 100, 900, 300, 200, 500));
        DriverResult b = driver("sub2", 0, 0, 0, seconds(100, 0, 100, 0, 0, 0));
        StepRates r = StepRates.atSubscribers(List.of(a, b), publisher);   // totals 100, 1000, 300, 200, 500
        assertEquals(300, r.median());
        assertEquals(420, r.mean());
    }

    @Test
    void noWholeSecondCountedGivesNoRate() {
        DriverResult publisher = driver("pub", 0, 100_200, 100_900, Map.of());
        StepRates r = StepRates.atSubscribers(List.of(driver("sub1", 0, 0, 0, seconds(100, 5))), publisher);
        assertTrue(Double.isNaN(r.median()) && Double.isNaN(r.mean()), r.toString());
        assertEquals(List.of(), StepRates.perSecondTotals(List.of(), 100_000, 105_000));
    }

    @Test
    void publishSubscribeStepsCountAtTheSubscribersNotAtThePublisher() {
        // the publisher's own rate (7/s, times any fan-out) must not show through
        DriverResult publisher = driver("pub", 7, 100_000, 103_000, seconds(100, 7, 7, 7));
        DriverResult a = driver("sub1", 0, 0, 0, seconds(99, 0, 500, 600, 700, 0));
        DriverResult b = driver("sub2", 0, 0, 0, seconds(99, 0, 50, 60, 70, 0));
        StepRates r = WorkloadRunner.rates(true, List.of(publisher), List.of(a, b));
        assertEquals(660, r.median());
        assertEquals(660, r.mean());
    }

    @Test
    void otherStepsAddUpTheirMeasuredDriversOwnRates() {
        StepRates r = WorkloadRunner.rates(false, List.of(driver("req", 40, 0, 1000, Map.of()), driver("req2", 2, 0, 1000, Map.of())),
                List.of(driver("resp", 1000, 0, 1000, seconds(0, 1000))));
        assertEquals(new StepRates(42, 42), r);
    }
}
