package org.wharfmq.client.core;

import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * WARNING lines a server can cause without end, one link's (answers to requests that no longer wait, refusals of
 * consumers already closed): the first is logged at once; the next ones are counted, and the first that comes once
 * {@code intervalMillis} has passed since the last line is logged with how many were not
 * ({@link ClientConfiguration#UNEXPECTED_ANSWER_LOG_MILLIS}). So a server that sends them without end (a hostile one)
 * writes at most one line per interval per link into the application's log. Thread-safe: whichever thread reads the
 * link calls it, one at a time; the lock is taken only on this path, never on a frame an application waits for.
 */
final class ThrottledLog {
    /** Where a line goes: a WARNING of a logger. */
    private final Consumer<String> log;
    private final long intervalNanos;
    private final LongSupplier nanoClock;
    /** Whether a line was logged yet; guarded by this. */
    private boolean logged;
    /** When the last line was logged ({@code nanoClock}); guarded by this. */
    private long lastLineNanos;
    /** The events since the last line that were not logged; guarded by this. */
    private long unlogged;

    ThrottledLog(Consumer<String> log, long intervalMillis, LongSupplier nanoClock) {
        this.log = log;
        this.intervalNanos = TimeUnit.MILLISECONDS.toNanos(intervalMillis);
        this.nanoClock = nanoClock;
    }

    /** Logs {@code line}, or counts it when the last line was logged less than the interval ago. */
    void warn(Supplier<String> line) {
        long skipped;
        synchronized (this) {
            long now = nanoClock.getAsLong();
            if (logged && now - lastLineNanos < intervalNanos) {
                unlogged++;
                return;
            }
            logged = true;
            lastLineNanos = now;
            skipped = unlogged;
            unlogged = 0;
        }
        log.accept(skipped == 0 ? line.get() : line.get() + " (and " + skipped + " more like it since the last such"
                + " line, not logged one by one: at most one line every " + TimeUnit.NANOSECONDS.toSeconds(intervalNanos)
                + " s per connection)");
    }
}
