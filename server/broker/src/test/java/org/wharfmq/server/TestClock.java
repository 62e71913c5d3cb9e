package org.wharfmq.server;

import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A clock a test moves on instead of waiting: {@link #advance} jumps ahead; {@link #advanceOnEveryRead} makes every
 * reading later than the one before, so that whatever time has to pass between two readings always has.
 */
public final class TestClock implements InstantSource {

    /** Starts at the system's time: clients stamp messages (timestamp, delivery time) with theirs. */
    private final AtomicLong millis = new AtomicLong(System.currentTimeMillis());
    private volatile long step;

    @Override
    public long millis() {
        return millis.addAndGet(step);
    }

    @Override
    public Instant instant() {
        return Instant.ofEpochMilli(millis());
    }

    /** Moves the clock {@code delta} ms ahead. */
    public void advance(long delta) {
        millis.addAndGet(delta);
    }

    /** From now on every reading is {@code delta} ms after the one before. */
    public void advanceOnEveryRead(long delta) {
        step = delta;
    }
}
