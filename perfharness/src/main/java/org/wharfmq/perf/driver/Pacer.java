package org.wharfmq.perf.driver;

import java.util.concurrent.locks.LockSupport;

/**
 * Holds a worker to {@code -rt} operations per second: operation {@code n} starts no earlier than
 * {@code start + n / rate}, so a slow operation is caught up rather than lost (the JMSPerfHarness behaviour).
 * The workers of a driver start together, so at a rate of 1.5 a second a thousand rated requesters send in bursts
 * every 667 ms. Spreading their first requests over the period was tried and taken back: on one shared machine each
 * spread request paid its own chain of wake-ups (the requester, its consumer opened and closed, the server, the
 * responder), which a burst shares, and RR-RATED's requester JVMs used twice the CPU per round trip
 * (performance-log.md, "RR-RATED: the requests spread over the period, taken back").
 */
final class Pacer {

    private final long periodNanos;
    private long next;

    /** {@code rate} operations per second; 0 = no pacing. */
    Pacer(double rate) {
        this.periodNanos = rate > 0 ? (long) (1_000_000_000L / rate) : 0;
        this.next = System.nanoTime();
    }

    /** Waits until the next operation may start. */
    void pace() {
        if (periodNanos == 0) {
            return;
        }
        long wait;
        while ((wait = next - System.nanoTime()) > 0) {
            LockSupport.parkNanos(wait);
        }
        next += periodNanos;
    }
}
