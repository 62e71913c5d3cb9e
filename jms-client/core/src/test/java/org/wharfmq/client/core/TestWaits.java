package org.wharfmq.client.core;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** Waiting for what the core's tests see happen: a condition to hold, a thread to wait where it should. */
final class TestWaits {
    /** How long a condition may take to hold on a loaded machine. */
    static final long WAIT = TimeUnit.SECONDS.toNanos(30);

    private TestWaits() {
    }

    /** Waits (polling, up to {@link #WAIT}) until {@code condition} holds. */
    static void awaitTrue(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + WAIT;
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "never: " + what);
            LockSupport.parkNanos(100_000);
        }
    }

    /** Whether {@code t} is parked in {@code type}'s {@code method}. */
    static boolean waitsIn(Thread t, Class<?> type, String method) {
        if (t.getState() != Thread.State.WAITING) {
            return false;
        }
        for (StackTraceElement frame : t.getStackTrace()) {
            if (frame.getClassName().equals(type.getName()) && frame.getMethodName().equals(method)) {
                return true;
            }
        }
        return false;
    }
}
