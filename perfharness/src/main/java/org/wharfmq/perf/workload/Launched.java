package org.wharfmq.perf.workload;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;

/** A process the runner started (a child JVM, or the same code on a thread of this JVM). */
public interface Launched extends AutoCloseable {

    /** Waits for an output line starting with {@code prefix} and returns it. */
    String awaitLine(String prefix, Duration timeout) throws TimeoutException, InterruptedException;

    /** The last output line so far starting with {@code prefix} (a progress line), or null when none came yet. */
    String latestLine(String prefix);

    /** Completed with the exit status when the process ends, by itself or stopped. */
    CompletableFuture<Integer> onExit();

    /** Asks the process to finish (drivers stop their run and write their results; servers stop). */
    void stop();

    /** Waits for the end and returns the exit status. */
    int awaitExit(Duration timeout) throws TimeoutException, InterruptedException;

    /** The operating-system process id, for CPU accounting. */
    long pid();

    /** Ends the process now if it is still running. */
    @Override
    void close();
}
