package org.wharfmq.client.core.transport;

import org.wharfmq.client.core.ClientConfiguration;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;
import java.util.concurrent.locks.LockSupport;

/**
 * One thread's wait for something a frame brings (a consumer's next message, the answer to a request), the
 * client's one leader/follower wait over a {@link FrameLink}: while the read turn is free the waiting thread reads
 * the socket itself ({@link FrameLink#readWhileWaiting}), so the frame it waits for needs no hand-over from
 * another thread; while another thread reads, it follows ({@link FrameLink#follow}) and sleeps until {@link #wake}
 * is called, by the side that delivered what it waits for or to take over the turn that was let go. A wait reads
 * for one slice ({@value ClientConfiguration#LEAD_SLICE_MILLIS} ms) at most: one that has read that long without what
 * it waits for leaves the socket to the link's reader thread and sleeps until what it waits for wakes it (or its time
 * is up). Reading on, slice after slice, a long wait cost two wake-ups a slice: its own at the slice's end, and the
 * reader thread's, queued for the turn since the thread stopped asking (a requester whose replies were seconds late
 * paid 20 a second, and a step of RR-RATED that fell behind spent its CPU waiting: performance-log.md, session 41).
 *
 * <p>A subclass says when the wait is over ({@link #isOver}); whoever changes what {@code isOver} reads calls
 * {@link #wake} afterwards. A wake between the check and the sleep is not lost (the sleep is a
 * {@link LockSupport#park}, which returns at once after an {@code unpark}), so {@code isOver} needs no lock held
 * across the wait, and none is: the caller must hold no lock that delivering a frame takes. One object serves any
 * number of waits, one after the other, with no allocation per wait.
 *
 * <p>The link is the one given, or, for a wait that outlives links (a consumer's, across a reconnection), whatever
 * {@link #link()} returns when the waiting thread looks again: a thread woken once a new link is in place reads that.
 *
 * <p>One thread waits at a time, the one {@link #wake} unparks. A second thread waiting on the same object at the
 * same time (two receives on one consumer, which JMS forbids) is not lost either: it looks again every
 * {@value ClientConfiguration#LEAD_SLICE_MILLIS} ms.
 */
public abstract class FrameWait implements Runnable {
    private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(ClientConfiguration.LEAD_SLICE_MILLIS);
    /** How long one wait reads the socket itself at most ({@link ClientConfiguration#LEAD_SLICE_MILLIS}). */
    private static final long LEAD_NANOS = TimeUnit.MILLISECONDS.toNanos(ClientConfiguration.LEAD_SLICE_MILLIS);
    private static final AtomicReferenceFieldUpdater<FrameWait, Thread> WAITER =
            AtomicReferenceFieldUpdater.newUpdater(FrameWait.class, Thread.class, "waiter");

    private final FrameLink link;
    /** The thread {@link #wake} unparks: the one waiting now, or null. */
    private volatile Thread waiter;

    /** A wait over {@code link}; null for a subclass that overrides {@link #link()}. */
    protected FrameWait(FrameLink link) {
        this.link = link;
    }

    /** The link to read while waiting: the one given, unless a subclass follows a link that changes. */
    protected FrameLink link() {
        return link;
    }

    /**
     * Whether the wait is over: what it waits for has come, or something ends it (a close, the connection lost).
     * Called by the waiting thread before each read and each sleep; must not block.
     */
    protected abstract boolean isOver();

    /**
     * Waits until {@link #isOver}, reading the socket on this thread while the read turn is free.
     *
     * @param timeoutNanos how long at most; negative to wait without limit
     * @return whether {@link #isOver} held; false when the time ran out or the thread is interrupted (its interrupt
     * is kept, and an interrupted thread never reads)
     */
    public final boolean await(long timeoutNanos) {
        Thread self = Thread.currentThread();
        boolean woken = WAITER.compareAndSet(this, null, self);
        long deadline = System.nanoTime() + timeoutNanos;
        FrameLink reading = null;
        long ledNanos = 0;
        try {
            while (true) {
                if (isOver()) {
                    return true;
                }
                reading = link(); // a reconnection may have put a new link in place
                long remaining = timeoutNanos < 0 ? Long.MAX_VALUE : deadline - System.nanoTime();
                if (remaining <= 0 || self.isInterrupted()) {
                    return false;
                }
                if (ledNanos < LEAD_NANOS) {
                    long before = System.nanoTime();
                    if (reading.readWhileWaiting(Math.min(remaining, LEAD_NANOS - ledNanos))) {
                        ledNanos += System.nanoTime() - before;
                        continue; // read (or its slice ran out): look again
                    }
                } else if (woken) {
                    // led a slice without what it waits for: the socket is the reader thread's now, which reads
                    // blocked until a frame comes, and this thread sleeps until that frame wakes it or its time is up
                    if (timeoutNanos < 0) {
                        LockSupport.park(this);
                    } else {
                        LockSupport.parkNanos(this, remaining);
                    }
                    continue;
                }
                if (!woken) {
                    LockSupport.parkNanos(this, Math.min(remaining, POLL_NANOS));
                    continue;
                }
                if (reading.follow(this)) {
                    try {
                        if (!isOver()) {
                            if (timeoutNanos < 0) {
                                LockSupport.park(this);
                            } else {
                                LockSupport.parkNanos(this, remaining);
                            }
                        }
                    } finally {
                        reading.unfollow(this);
                    }
                }
            }
        } finally {
            if (woken) {
                waiter = null;
            }
            (reading != null ? reading : link()).promote(); // woken to take the turn but done: the next follower takes it
        }
    }

    /**
     * Wakes the waiting thread, if any, to look at {@link #isOver} again. Cheap when nobody waits and when called by
     * the waiting thread itself (which reads the frame it waits for: nothing to hand over).
     */
    public final void wake() {
        Thread thread = waiter;
        if (thread != null && thread != Thread.currentThread()) {
            LockSupport.unpark(thread);
        }
    }

    /** {@link #wake}: what {@link FrameLink#follow} runs when the read turn is free, so that this thread takes it. */
    @Override
    public final void run() {
        wake();
    }
}
