package org.wharfmq.client.core.transport;

import io.netty.util.internal.PlatformDependent;
import org.wharfmq.client.core.ClientConfiguration;

import java.util.Queue;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The latest a frame written with {@link FrameLink#writeSoon} or {@link FrameLink#writeLater} leaves a
 * {@link SocketLink} when nothing else is written there: one task on the {@link LinkTimer} serves every link of the
 * JVM. A link whose first frame starts to wait is {@link #mark marked} once, which arms the task unless it is armed
 * already; {@value ClientConfiguration#PIGGYBACK_MILLIS} ms after it was armed the task writes the waiting frames of
 * every link marked before it ran ({@link SocketLink#timedFlush}, which never waits for another writer). A frame
 * thus waits at most {@value ClientConfiguration#PIGGYBACK_MILLIS} ms; a link marked while the task runs arms the
 * next one.
 *
 * <p>A message costs a look at its link's mark; the timer wakes once per {@value ClientConfiguration#PIGGYBACK_MILLIS}
 * ms for all the links while some have frames waiting, never while none has. A task scheduled per link instead (each
 * connection's flush every 20 ms) cost a request/reply client 0.5 to 1.2 us of the timer thread's CPU per round trip
 * (docs/performance-log.md, sessions 29 and 30).
 */
final class TimedFlushes {

    private static final long DELAY_MILLIS = ClientConfiguration.PIGGYBACK_MILLIS;
    /** The marked links; polled only by the timer thread. */
    private static final Queue<SocketLink> MARKED = PlatformDependent.newMpscQueue();
    private static final AtomicBoolean ARMED = new AtomicBoolean();
    private static final Runnable FLUSH = TimedFlushes::flushMarked;
    /** The task armed last, for tests. */
    private static volatile ScheduledFuture<?> armed;

    private TimedFlushes() {
    }

    /**
     * Has {@code link}'s waiting frames written at the latest {@value ClientConfiguration#PIGGYBACK_MILLIS} ms from
     * now; the link calls this once until its {@link SocketLink#timedFlush} runs.
     */
    static void mark(SocketLink link) {
        MARKED.offer(link);
        arm();
    }

    private static void arm() {
        if (ARMED.compareAndSet(false, true)) {
            armed = LinkTimer.schedule(FLUSH, DELAY_MILLIS);
        }
    }

    /**
     * Flushes the links marked before it started: cleared first, so that a link marked after this look (which
     * this run may or may not take) arms the next run; not those marked meanwhile beyond that, so that a thread
     * writing frames one after another to one link never keeps the timer thread writing them for it.
     */
    private static void flushMarked() {
        ARMED.set(false);
        try {
            for (int n = MARKED.size(); n > 0; n--) {
                SocketLink link = MARKED.poll();
                if (link == null) {
                    return;
                }
                link.timedFlush();
            }
        } finally {
            if (!MARKED.isEmpty()) {
                arm(); // marked meanwhile (armed by then already), or left by a failing flush
            }
        }
    }

    /**
     * How long until the armed flush runs, in nanoseconds (negative: it is late); {@link Long#MAX_VALUE} when none is
     * armed (for tests).
     */
    static long nanosToNextFlush() {
        ScheduledFuture<?> task = armed;
        return task == null || task.isDone() ? Long.MAX_VALUE : task.getDelay(TimeUnit.NANOSECONDS);
    }
}
