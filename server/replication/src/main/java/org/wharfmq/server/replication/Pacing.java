package org.wharfmq.server.replication;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * At most one line per period for an event that a peer may repeat as often as it likes (a refused member tries again
 * at every heartbeat): {@link #turn} says whether this one is written, and how many were not since the last one.
 * Called by any number of threads at once: the pacing is a compare-and-set.
 */
final class Pacing {

    private final long everyNanos;
    /** When the next line may be written ({@link System#nanoTime}); written by whichever thread writes one. */
    private final AtomicLong next = new AtomicLong(System.nanoTime());
    /** Events not written since the last line. */
    private final AtomicLong unwritten = new AtomicLong();

    Pacing(Duration every) {
        this.everyNanos = every.toNanos();
    }

    /**
     * Whether this event is written: -1 when not (counted), else how many were not since the last line written.
     */
    long turn() {
        long now = System.nanoTime();
        long at = next.get();
        if (now - at < 0 || !next.compareAndSet(at, now + everyNanos)) {
            unwritten.incrementAndGet();
            return -1;
        }
        return unwritten.getAndSet(0);
    }

    /** {@code others} (from {@link #turn}) as the end of a line: empty for none. */
    static String others(long others, String what) {
        return others == 0 ? "" : " " + others + " more " + what + " since the last such line.";
    }
}
