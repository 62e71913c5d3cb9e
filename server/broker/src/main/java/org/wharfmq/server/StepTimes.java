package org.wharfmq.server;

import java.util.concurrent.TimeUnit;

/**
 * The steps of something that takes a while, each noted with the time since it began: {@link #toString} names them
 * ("store recovered 12 ms, listeners bound 40 ms, ..."), for the line that reports it (a queue manager's start, a
 * replicated member's rejoin).
 *
 * <p>Threads: {@link #done} and {@link #toString} may be called from any thread.
 */
public final class StepTimes {

    private final long start = System.nanoTime();
    private final StringBuilder steps = new StringBuilder();

    /** Step {@code what} is done: noted with the time since this began. */
    public synchronized void done(String what) {
        steps.append(steps.isEmpty() ? "" : ", ").append(what).append(' ')
                .append(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).append(" ms");
    }

    @Override
    public synchronized String toString() {
        return steps.isEmpty() ? "no step done" : steps.toString();
    }
}
