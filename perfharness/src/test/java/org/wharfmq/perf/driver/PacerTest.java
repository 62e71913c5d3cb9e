package org.wharfmq.perf.driver;

import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A paced worker's operations are timed from when they were due: one that fell behind catches up at once, each
 * operation it owes timed from its place in the schedule, not from its late start (coordinated omission). The clock
 * is the test's, moved by hand: nothing here waits.
 */
class PacerTest {

    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    @Test
    void aWorkerThatFellBehindIsGivenEachOperationsDueTimeNotItsLateStart() {
        AtomicLong clock = new AtomicLong(1_000 * MS);
        Pacer pacer = new Pacer(10, clock::get);   // due every 100 ms
        assertEquals(1_000 * MS, pacer.pace(), "the first operation is due at once");

        clock.set(4_000 * MS);   // its reply took 3 s: the worker is 29 operations behind
        long[] due = new long[5];
        for (int i = 0; i < due.length; i++) {
            due[i] = pacer.pace();   // behind, so none waits: the clock stays at 4 s
        }
        for (int i = 0; i < due.length; i++) {
            long latencyMillis = (clock.get() - due[i]) / MS;   // as Worker.recordLatency times a reply that came now
            assertEquals(2_900 - 100 * i, latencyMillis,
                    "operation " + (i + 1) + " was due " + (i + 1) * 100 + " ms after the first and waited since: not 0 ms");
        }
    }

    /**
     * What a worker still owed when the warm-up ended (it fell behind a cold JVM) is dropped: its first operation of the
     * measured period is due at the period's start, not 2.4 s before it; a worker on time keeps its schedule.
     */
    @Test
    void whatTheWarmUpStillOwedIsDroppedWhenTheMeasuredPeriodStarts() {
        AtomicLong clock = new AtomicLong(0);
        Pacer behind = new Pacer(10, clock::get);
        assertEquals(0, behind.pace());
        clock.set(3_000 * MS);
        behind.skipTo(2_500 * MS);   // the measured period began at 2.5 s, the worker 29 operations behind
        assertEquals(2_500 * MS, behind.pace(), "the period's first due time, not the warm-up's 100 ms");
        assertEquals(2_600 * MS, behind.pace(), "and the schedule on from it");

        Pacer onTime = new Pacer(10, clock::get);
        assertEquals(3_000 * MS, onTime.pace());
        onTime.skipTo(3_050 * MS);
        clock.set(3_100 * MS);
        assertEquals(3_100 * MS, onTime.pace(), "due 100 ms after the last, as before the skip");
    }

    @Test
    void anUnpacedWorkerIsTimedFromItsStart() {
        AtomicLong clock = new AtomicLong(5 * MS);
        Pacer pacer = new Pacer(0, clock::get);
        clock.set(7 * MS);
        assertEquals(7 * MS, pacer.pace());
        clock.set(9 * MS);
        assertEquals(9 * MS, pacer.pace());
    }
}
