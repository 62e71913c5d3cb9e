package org.wharfmq.client.core.transport;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The one timer thread ({@code wharf-client-timer}, a daemon) that every {@link SocketLink} of the JVM shares:
 * heartbeats, the timed flush of frames written with {@link FrameLink#writeSoon} ({@link TimedFlushes}, one task
 * for all the links), and frames a reader thread wrote. Started on first use.
 */
final class LinkTimer {

    private LinkTimer() {
    }

    static void execute(Runnable task) {
        Holder.TIMER.execute(task);
    }

    static ScheduledFuture<?> schedule(Runnable task, long delayMillis) {
        return Holder.TIMER.schedule(task, delayMillis, TimeUnit.MILLISECONDS);
    }

    static ScheduledFuture<?> scheduleAtFixedRate(Runnable task, long initialDelayMillis, long periodMillis) {
        return Holder.TIMER.scheduleAtFixedRate(task, initialDelayMillis, periodMillis, TimeUnit.MILLISECONDS);
    }

    private static final class Holder {
        static final ScheduledThreadPoolExecutor TIMER = new ScheduledThreadPoolExecutor(1, task -> {
            Thread thread = new Thread(task, "wharf-client-timer");
            thread.setDaemon(true);
            return thread;
        });

        static {
            TIMER.setRemoveOnCancelPolicy(true); // a closed link's heartbeat must not linger in the queue
        }
    }
}
