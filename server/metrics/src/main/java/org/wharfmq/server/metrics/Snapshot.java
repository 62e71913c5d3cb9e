package org.wharfmq.server.metrics;

import java.util.function.Supplier;

/**
 * A value read from the management view at most once per {@link #MAX_AGE_NANOS}: the meters of one scrape (or of a
 * JMX client's reads) all read the same snapshot, and the view is asked once, not once per meter. Thread-safe.
 */
final class Snapshot<T> {

    /** How old a snapshot may be before a meter's read takes a new one: 1 s, well below any scrape interval. */
    static final long MAX_AGE_NANOS = 1_000_000_000L;

    private final Supplier<T> source;
    private T value;
    private long takenAt;

    Snapshot(Supplier<T> source) {
        this.source = source;
    }

    /** The value, taken anew when it is older than {@link #MAX_AGE_NANOS} (or never taken). */
    synchronized T get() {
        long now = System.nanoTime();
        if (value == null || now - takenAt > MAX_AGE_NANOS) {
            value = source.get();
            takenAt = now;
        }
        return value;
    }

    /** Takes the value anew now (before a scrape). */
    synchronized T refresh() {
        value = source.get();
        takenAt = System.nanoTime();
        return value;
    }
}
