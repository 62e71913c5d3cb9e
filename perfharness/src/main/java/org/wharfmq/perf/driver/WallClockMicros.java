package org.wharfmq.perf.driver;

import java.time.Instant;
import java.util.concurrent.TimeUnit;

/**
 * The wall clock in microseconds since the epoch, read without allocating: the JVM's monotonic clock
 * ({@link System#nanoTime()}) from an origin fixed once against {@link Instant#now()} (microsecond precision on Linux).
 * A publisher stamps its publications with it and the subscribers, in other JVMs of the same machine, subtract the
 * stamp from their own reading: both sides anchor to the one system clock, so the difference is the delivery latency
 * to within a few microseconds (plus whatever the system clock is slewed during a run, parts per million).
 * {@code Instant.now()} itself would allocate an object per message.
 */
public final class WallClockMicros {

    private static final long ORIGIN_MICROS = origin();

    private WallClockMicros() {
    }

    /** Microseconds since the epoch. */
    public static long now() {
        return ORIGIN_MICROS + TimeUnit.NANOSECONDS.toMicros(System.nanoTime());
    }

    /** Epoch microseconds at nanoTime 0: read between two nanoTime readings, the closest pair of a few tries. */
    private static long origin() {
        long best = Long.MAX_VALUE;
        long origin = 0;
        for (int i = 0; i < 5; i++) {
            long before = System.nanoTime();
            Instant wall = Instant.now();
            long after = System.nanoTime();
            if (after - before < best) {
                best = after - before;
                long wallMicros = TimeUnit.SECONDS.toMicros(wall.getEpochSecond()) + wall.getNano() / 1000;
                origin = wallMicros - TimeUnit.NANOSECONDS.toMicros(before + (after - before) / 2);
            }
        }
        return origin;
    }
}
