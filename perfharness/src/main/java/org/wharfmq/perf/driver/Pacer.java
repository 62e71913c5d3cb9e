package org.wharfmq.perf.driver;

import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

/**
 * Holds a worker to {@code -rt} operations per second: operation {@code n} is due at {@code start + n / rate} and
 * starts no earlier, so a slow operation is caught up rather than lost (the JMSPerfHarness behaviour). Each operation's
 * latency is timed from when it was due ({@link #pace}'s answer), not from when it started: a worker that fell behind
 * (a reply that took 3 s at 10 operations a second) sends the operations it owes at once, and each of them waited
 * from its due time, not the few milliseconds of its own round trip. Timed from the late start, the catch-up's
 * round trips hid the wait (coordinated omission: in RR-RATED's 4,000 step on 2 cores a requester JVM catching up
 * made the step's median 140 ms while three of four JVMs' requesters waited 1.2 to 2.9 s). The schedule starts afresh
 * when the measured period does ({@link #skipTo}): what a worker still owed from the warm-up is dropped, not counted.
 *
 * <p>The workers of a driver start together, so at a rate of 1.5 a second a thousand rated requesters send in bursts
 * every 667 ms. Spreading their first requests over the period was tried and taken back: on one shared machine each
 * spread request paid its own chain of wake-ups (the requester, its consumer opened and closed, the server, the
 * responder), which a burst shares, and RR-RATED's requester JVMs used twice the CPU per round trip
 * (performance-log.md, "RR-RATED: the requests spread over the period, taken back").
 */
final class Pacer {

    private final long periodNanos;
    private final LongSupplier clock;
    private long next;

    /** {@code rate} operations per second; 0 = no pacing. */
    Pacer(double rate) {
        this(rate, System::nanoTime);
    }

    /** {@code rate} operations per second on {@code clock} (nanoseconds, as {@link System#nanoTime}). */
    Pacer(double rate, LongSupplier clock) {
        this.periodNanos = rate > 0 ? (long) (1_000_000_000L / rate) : 0;
        this.clock = clock;
        this.next = clock.getAsLong();
    }

    /**
     * Starts the schedule afresh at {@code nanos} (the end of the warm-up) if the worker is behind it: the operations
     * due before it and not yet begun are dropped rather than sent late, so that a worker that fell behind in the
     * warm-up (a cold JVM, a server still compiling) carries no debt into the measured period. A worker on time keeps
     * its schedule.
     */
    void skipTo(long nanos) {
        if (periodNanos > 0 && next < nanos) {
            next = nanos;
        }
    }

    /**
     * Waits until the next operation is due and returns when it was due, on the clock: the time its latency is timed
     * from. Past it already (the worker fell behind), it returns at once with that past time. Unpaced, now.
     */
    long pace() {
        if (periodNanos == 0) {
            return clock.getAsLong();
        }
        long wait;
        while ((wait = next - clock.getAsLong()) > 0) {
            LockSupport.parkNanos(wait);
        }
        long due = next;
        next += periodNanos;
        return due;
    }
}
