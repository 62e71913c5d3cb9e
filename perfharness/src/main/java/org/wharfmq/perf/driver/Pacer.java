package org.wharfmq.perf.driver;

import java.util.concurrent.locks.LockSupport;

/**
 * Holds a worker to {@code -rt} operations per second: operation {@code n} starts no earlier than
 * {@code start + (phase + n) / rate}, so a slow operation is caught up rather than lost (the JMSPerfHarness
 * behaviour). The workers of a driver are given phases spread over one period: at a rate of 1.5 a second, a thousand
 * requesters that all started together would otherwise send a thousand requests in the same instant every 667 ms,
 * and the response time measured would be the burst's, not that of a thousand clients each asking 1.5 times a second.
 */
final class Pacer {

    private final long periodNanos;
    private long next;

    /**
     * {@code rate} operations per second (0 = no pacing), the first a share {@code phase} (0 to 1) of a period from
     * now.
     */
    Pacer(double rate, double phase) {
        this.periodNanos = rate > 0 ? (long) (1_000_000_000L / rate) : 0;
        this.next = System.nanoTime() + (long) (phase * periodNanos);
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
