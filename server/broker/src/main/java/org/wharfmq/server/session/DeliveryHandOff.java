package org.wharfmq.server.session;

import io.netty.channel.EventLoop;
import io.netty.util.concurrent.FastThreadLocal;
import io.netty.util.concurrent.FastThreadLocalThread;
import io.netty.util.internal.PlatformDependent;

import java.util.ArrayList;
import java.util.Queue;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One event loop's hand-off of deliveries between loops: the sessions of other loops that a connection's read on
 * this loop delivered to are handed to their loops once, when that read ends, in one task per loop, rather than in a
 * task per session as each delivery is made. And, as the receiving side, the sessions that other loops handed to this
 * one, all written by one task.
 *
 * <p>Why: a publication to N subscribers whose connections another loop owns was up to N tasks on that loop, each
 * waking it (an {@code eventfd} write when it slept) and each write of a session's frames followed by a flush that
 * its connection's {@code FlushConsolidationHandler} runs as a task of its own once the loop gets to it; with two
 * busy loops the other loop took the tasks up as they came, so a connection was flushed, one system call each, a few
 * times per publication (PS-N 100: 20,000 such tasks and 5,800 {@code writev}s a second on the other loop, at
 * 2,000 publications a second, three and a half of them per read). Handed over at the read's end, the publications of
 * one read reach the other loop in one task that writes every session's frames, and each connection is flushed once
 * after it. Deliveries made on their own connection's loop are not held here: they are written at once (their order
 * among the connection's other frames is kept) and already flushed once per read (the consolidation handler).
 *
 * <p>What it costs: no delivery waits longer than the read that made it (a read is at most one turn,
 * {@code ReadFairness}); nothing is allocated per delivery or per read (the queue between loops is an array queue).
 * A read that delivered to one session of another loop (a reply to a request, mostly) hands it over by that session's
 * own task, as before, not through the queue: through the queue RR-4 cost about 0.5 us more server CPU per round
 * trip, for nothing to batch.
 *
 * <p>{@link #readStarted} and {@link #readEnded} bracket a connection's read ({@code ServerConnection}'s channelRead
 * and channelReadComplete). Should a read end without its channelReadComplete reaching the connection, a task queued
 * with the first session held hands over what is left, once the loop gets to its tasks, and closes the read.
 * Deliveries made outside a read (a timer, a journal thread, another loop's task) are handed over as before, a task
 * per session.
 */
public final class DeliveryHandOff {

    private static final FastThreadLocal<DeliveryHandOff> OF_LOOP = new FastThreadLocal<>();

    private final EventLoop loop;

    // the making side: this loop's thread only
    /** Between a connection's channelRead and its channelReadComplete on this loop. */
    private boolean reading;
    /** Sessions of other loops delivered to during this read, to hand over when it ends. */
    private final ArrayList<DeliveryWriter> held = new ArrayList<>();
    private final Runnable endOfTurn = this::readEnded;

    // the receiving side: other loops offer, this loop drains
    private final Queue<DeliveryWriter> handedOver = PlatformDependent.newMpscQueue();
    private final AtomicBoolean drainQueued = new AtomicBoolean();
    private final Runnable drain = this::drainHandedOver;
    /** The buffer the sessions of one connection drained by {@link #drainHandedOver} share; this loop's thread. */
    private final CopiedRun run = new CopiedRun();

    private DeliveryHandOff(EventLoop loop) {
        this.loop = loop;
    }

    /** The hand-off of {@code loop}, which is the calling thread's; made on first use. */
    public static DeliveryHandOff of(EventLoop loop) {
        DeliveryHandOff h = OF_LOOP.get();
        if (h == null || h.loop != loop) { // another loop on this thread: only EmbeddedChannel's, in tests
            h = new DeliveryHandOff(loop);
            OF_LOOP.set(h);
        }
        return h;
    }

    /** The calling thread's hand-off when it is a loop in a connection's read, else null. Any thread. */
    static DeliveryHandOff reading() {
        if (!(Thread.currentThread() instanceof FastThreadLocalThread)) {
            return null;
        }
        DeliveryHandOff h = OF_LOOP.getIfExists();
        return h != null && h.reading ? h : null;
    }

    /** A connection of this loop reads a frame. */
    public void readStarted() {
        reading = true;
    }

    /** The session of another loop has deliveries to write: handed over when this read ends. */
    void hold(DeliveryWriter writer) {
        if (held.isEmpty()) {
            loop.execute(endOfTurn);
        }
        held.add(writer);
    }

    /** The read ended: every session held goes to its loop, one task per loop. Idempotent. */
    public void readEnded() {
        reading = false;
        int n = held.size();
        if (n == 0) {
            return;
        }
        if (n == 1) { // one session, as a reply to a request is: its own task, as before, without the queue
            DeliveryWriter w = held.get(0);
            held.clear();
            w.drainOnItsLoop();
            return;
        }
        for (int i = 0; i < n; i++) {
            DeliveryWriter w = held.get(i);
            w.handOff.handedOver.offer(w);
        }
        DeliveryHandOff last = null;
        for (int i = 0; i < n; i++) {
            DeliveryHandOff to = held.get(i).handOff;
            if (to != last) {
                to.queueDrain();
                last = to;
            }
        }
        held.clear();
    }

    /** Gets {@link #drainHandedOver} run on this loop, unless it is queued and has not started. Any thread. */
    private void queueDrain() {
        if (!drainQueued.getAndSet(true)) {
            loop.execute(drain);
        }
    }

    /**
     * Writes the frames of every session handed over so far; on this loop. The flag is reset before the queue is
     * read (getAndSet, which reads the offering loop's write), so a session offered after the last poll queues
     * another drain. The sessions of one connection drained one after another copy their short frames into one
     * buffer, and the connection is flushed once ({@link CopiedRun}).
     */
    private void drainHandedOver() {
        drainQueued.getAndSet(false);
        DeliveryWriter w;
        try {
            while ((w = handedOver.poll()) != null) {
                w.drain(run);
            }
        } finally {
            run.end();
        }
    }
}
