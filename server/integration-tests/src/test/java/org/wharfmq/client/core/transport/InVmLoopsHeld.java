package org.wharfmq.client.core.transport;

import io.netty.util.concurrent.EventExecutor;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Holds every event loop of the JVM's in-VM client connections ({@link EventLoops#inVm}) until closed: each runs a task
 * that waits, so that no frame of an in-VM connection is written or handled meanwhile (an in-VM connection's server end
 * runs on its client's loop). For a test that shows what does not pass through them.
 */
public final class InVmLoopsHeld implements AutoCloseable {

    private final CountDownLatch release = new CountDownLatch(1);

    private InVmLoopsHeld() {
    }

    /** Holds them; returns once every loop runs the holding task (nothing it had queued before is left to run). */
    public static InVmLoopsHeld hold() throws InterruptedException {
        InVmLoopsHeld held = new InVmLoopsHeld();
        int loops = 0;
        for (EventExecutor ignored : EventLoops.inVm()) {
            loops++;
        }
        CountDownLatch holding = new CountDownLatch(loops);
        for (EventExecutor loop : EventLoops.inVm()) {
            loop.execute(() -> {
                holding.countDown();
                try {
                    held.release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
        }
        if (!holding.await(60, TimeUnit.SECONDS)) {
            held.close();
            throw new IllegalStateException("The in-VM loops did not get to the holding task within 60 s");
        }
        return held;
    }

    /** Lets the loops run again. */
    @Override
    public void close() {
        release.countDown();
    }
}
