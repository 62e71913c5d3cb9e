package org.wharfmq.perf.driver;

import java.util.ArrayList;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Counts a driver's operations in each wall-clock second, keyed by epoch second, so the workload runner can add
 * up several processes second by second. That is how publish/subscribe deliveries are counted where they happen,
 * at the subscribers, which run in several JVMs: the driver's own per-second samples are taken whole seconds
 * after its start, at instants that differ from process to process, so they cannot be added up.
 *
 * <p>A thread of its own reads the operation count once at the start, just after each second's boundary (as
 * close as it is woken) and once at the end. The count at each boundary is interpolated linearly between the
 * readings on either side of it, so a reading a few milliseconds late does not move those milliseconds'
 * operations into the next second, and a boundary missed in a pause is still estimated rather than lost. Only
 * the whole seconds between the first and the last reading are given.
 */
final class WallClockSeconds {

    private static final long SECOND_MILLIS = 1000;

    /** The operation count {@code count} read at {@code millis}, wall-clock time. */
    record Reading(long millis, long count) {
    }

    private final LongSupplier operations;
    /** Written by this object's thread only; read after {@link #stop} has joined it. */
    private final List<Reading> readings = new ArrayList<>();
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final Thread thread;

    private WallClockSeconds(LongSupplier operations, String name) {
        this.operations = operations;
        this.thread = new Thread(this::readEverySecond, "perf-seconds-" + name);
        thread.setDaemon(true);
    }

    /** Starts reading {@code operations} every wall-clock second, on a thread named after {@code name}. */
    static WallClockSeconds start(LongSupplier operations, String name) {
        WallClockSeconds seconds = new WallClockSeconds(operations, name);
        seconds.thread.start();
        return seconds;
    }

    private void readEverySecond() {
        read();
        try {
            while (!stopped.await(SECOND_MILLIS - System.currentTimeMillis() % SECOND_MILLIS, TimeUnit.MILLISECONDS)) {
                read();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        read();
    }

    private void read() {
        long count = operations.getAsLong();
        long now = System.currentTimeMillis();
        // the wall clock may be stepped back (NTP): a reading earlier than the last one would break the interpolation
        if (readings.isEmpty() || now >= readings.get(readings.size() - 1).millis()) {
            readings.add(new Reading(now, count));
        }
    }

    /** Stops reading (one last reading first) and waits for the thread to end. */
    void stop() throws InterruptedException {
        stopped.countDown();
        thread.join();
    }

    /** After {@link #stop}: operations per whole wall-clock second of the run, by epoch second. */
    SortedMap<Long, Long> perSecond() {
        return perSecond(readings);
    }

    /** Operations per whole wall-clock second between the first and the last of {@code readings} (in time order). */
    static SortedMap<Long, Long> perSecond(List<Reading> readings) {
        SortedMap<Long, Long> counts = new TreeMap<>();
        if (readings.isEmpty()) {
            return counts;
        }
        long first = Math.floorDiv(readings.get(0).millis() + SECOND_MILLIS - 1, SECOND_MILLIS);
        long last = Math.floorDiv(readings.get(readings.size() - 1).millis(), SECOND_MILLIS);
        int before = 0;
        long previous = 0;
        for (long boundary = first; boundary <= last; boundary++) {
            long t = boundary * SECOND_MILLIS;
            while (before + 1 < readings.size() && readings.get(before + 1).millis() <= t) {
                before++;
            }
            long at = countAt(t, readings.get(before), before + 1 < readings.size() ? readings.get(before + 1) : null);
            if (boundary > first) {
                counts.put(boundary - 1, at - previous);
            }
            previous = at;
        }
        return counts;
    }

    /** The count at {@code t}, given the readings at or before it ({@code a}) and after it ({@code b}, null if none). */
    private static long countAt(long t, Reading a, Reading b) {
        if (a.millis() == t || b == null) {
            return a.count();
        }
        double share = (double) (t - a.millis()) / (b.millis() - a.millis());
        return a.count() + Math.round(share * (b.count() - a.count()));
    }
}
