package org.wharfmq.perf.driver;

import org.junit.jupiter.api.Test;
import org.wharfmq.perf.driver.WallClockSeconds.Reading;

import java.util.List;
import java.util.Map;
import java.util.SortedMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Operation counts per wall-clock second, from readings taken about each second's boundary. */
class WallClockSecondsTest {

    @Test
    void readingsOnTheBoundariesGiveEachSecondItsOwnOperations() {
        SortedMap<Long, Long> counts = WallClockSeconds.perSecond(List.of(
                new Reading(99_400, 0), new Reading(100_000, 50), new Reading(101_000, 150), new Reading(102_000, 400),
                new Reading(102_600, 500)));
        assertEquals(Map.of(100L, 100L, 101L, 250L), counts, "only whole seconds: not 99.4-100 nor 102-102.6");
    }

    @Test
    void aLateReadingIsInterpolatedBackToTheBoundary() {
        // 100 operations a second, steadily; the reading for 101 came 100 ms late, when 110 more were counted
        SortedMap<Long, Long> counts = WallClockSeconds.perSecond(List.of(
                new Reading(100_000, 0), new Reading(101_100, 110), new Reading(102_000, 200)));
        assertEquals(Map.of(100L, 100L, 101L, 100L), counts);
    }

    @Test
    void aMissedBoundaryIsEstimatedNotLost() {
        // a 2 s pause: no reading at 101 nor 102; the seconds are still there, the 300 operations spread over them
        SortedMap<Long, Long> counts = WallClockSeconds.perSecond(List.of(
                new Reading(100_000, 0), new Reading(103_000, 300), new Reading(104_000, 350)));
        assertEquals(Map.of(100L, 100L, 101L, 100L, 102L, 100L, 103L, 50L), counts);
    }

    @Test
    void lessThanAWholeSecondGivesNothing() {
        assertEquals(Map.of(), WallClockSeconds.perSecond(List.of()));
        assertEquals(Map.of(), WallClockSeconds.perSecond(List.of(new Reading(100_000, 7))));
        assertEquals(Map.of(), WallClockSeconds.perSecond(List.of(new Reading(100_100, 0), new Reading(100_900, 80))));
        assertEquals(Map.of(), WallClockSeconds.perSecond(List.of(new Reading(100_900, 0), new Reading(101_900, 100))),
                "a second long, but no whole wall-clock second in it");
    }

    @Test
    void theThreadReadsEveryWallClockSecond() throws Exception {
        // an operation a millisecond: every whole second holds about 1000
        long origin = System.currentTimeMillis();
        WallClockSeconds seconds = WallClockSeconds.start(() -> System.currentTimeMillis() - origin, "test");
        Thread.sleep(2_300);
        seconds.stop();
        SortedMap<Long, Long> counts = seconds.perSecond();
        assertTrue(counts.size() >= 1, counts.toString());
        assertEquals(counts.lastKey() - counts.firstKey() + 1, counts.size(), "consecutive seconds: " + counts);
        // wide: the thread may be preempted between reading the count and the clock on a loaded machine
        counts.values().forEach(n -> assertEquals(1000.0, n, 100.0, counts.toString()));
    }
}
