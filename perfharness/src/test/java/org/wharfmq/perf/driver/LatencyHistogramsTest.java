package org.wharfmq.perf.driver;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Delivery latency across processes: the clock both sides read, and histograms added up across JVMs. */
class LatencyHistogramsTest {

    @Test
    void percentilesAreThoseOfEveryJvmsValuesTogetherNotOfEitherAlone() {
        Histogram fast = LatencyHistograms.create();
        Histogram slow = LatencyHistograms.create();
        for (int i = 1; i <= 900; i++) {
            fast.recordValue(100);        // 900 deliveries of 100 us in one subscriber JVM
        }
        for (int i = 1; i <= 100; i++) {
            slow.recordValue(50_000);     // 100 of 50 ms in another
        }
        LatencySummary all = LatencyHistograms.summaryOf(List.of(LatencyHistograms.encode(fast), LatencyHistograms.encode(slow), ""));
        assertEquals(1000, all.count());
        assertEquals(100, all.p50(), 1, "the median is the fast JVM's");
        assertEquals(100, all.p90(), 1);
        assertEquals(50_000, all.p99(), 50, "the 99th percentile is the slow JVM's");
        assertEquals(50_000, all.max(), 50);
    }

    @Test
    void nothingRecordedIsAnEmptySummary() {
        assertEquals("", LatencyHistograms.encode(LatencyHistograms.create()));
        assertEquals(LatencySummary.NONE, LatencyHistograms.summaryOf(List.of("", "")));
    }

    @Test
    void theWallClockInMicrosecondsIsTheSystemClock() {
        Instant before = Instant.now();
        long micros = WallClockMicros.now();
        Instant after = Instant.now();
        long low = TimeUnit.SECONDS.toMicros(before.getEpochSecond()) + before.getNano() / 1000;
        long high = TimeUnit.SECONDS.toMicros(after.getEpochSecond()) + after.getNano() / 1000;
        // read between two readings of the system clock, give or take the origin's own reading (a millisecond)
        assertTrue(micros >= low - 1000 && micros <= high + 1000, low + " <= " + micros + " <= " + high);
        long next = WallClockMicros.now();
        assertTrue(next >= micros, "monotonic");
    }
}
