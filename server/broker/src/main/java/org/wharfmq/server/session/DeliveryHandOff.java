package org.wharfmq.server.session;

import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.FastThreadLocal;
import io.netty.util.concurrent.FastThreadLocalThread;
import io.netty.util.internal.PlatformDependent;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Queue;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One event loop's hand-off of deliveries: the sessions of other connections that a connection's read on this loop
 * delivered to are written once, when that read ends: those of other loops handed to their loops in one task per
 * loop, rather than in a task per session as each delivery is made; this loop's written then, the sessions of one
 * connection into one buffer with one flush ({@link CopiedRun}), rather than a buffer, an outbound entry and a flush
 * per session and publication. And, as the receiving side, the sessions that other loops handed to this one, all
 * written by one task.
 *
 * <p>Why: a publication to N subscribers whose connections another loop owns was up to N tasks on that loop, each
 * waking it (an {@code eventfd} write when it slept) and each write of a session's frames followed by a flush that
 * its connection's {@code FlushConsolidationHandler} runs as a task of its own once the loop gets to it; with two
 * busy loops the other loop took the tasks up as they came, so a connection was flushed, one system call each, a few
 * times per publication (PS-N 100: 20,000 such tasks and 5,800 {@code writev}s a second on the other loop, at
 * 2,000 publications a second, three and a half of them per read). Handed over at the read's end, the publications of
 * one read reach the other loop in one task that writes every session's frames, and each connection is flushed once
 * after it. The deliveries a read makes to the sessions of the reading connection itself are not held: they are
 * written at once, so that the frames the read writes after them (a PULL's PULL_DONE, a reply) do not overtake them.
 * Those to other connections of this loop are held as well (PS-N 100's subscriber connections on the publisher's loop
 * took 25 buffers and outbound entries per publication, one per session; now one per read), and the sessions held are
 * written a connection at a time, so that its frames share one buffer however the subscriptions of several connections
 * interleave ({@link #groupByConnection}).
 * A frame other than a delivery that the read writes to another connection (none does on the hot path) may overtake
 * that connection's held deliveries, as a frame written to another loop's connection may overtake those handed over.
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
    /** The connection that reads, while {@link #reading}: its own sessions' deliveries are not held. */
    private Channel readingChannel;
    /**
     * Sessions of other connections delivered to during this read, to write when it ends: those of other loops handed
     * over, this loop's written here.
     */
    private final ArrayList<DeliveryWriter> held = new ArrayList<>();
    /** {@link #readEnded} is writing what was held. */
    private boolean ending;
    private final Runnable endOfTurn = this::readEnded;

    // the receiving side: other loops offer, this loop drains
    private final Queue<DeliveryWriter> handedOver = PlatformDependent.newMpscQueue();
    private final AtomicBoolean drainQueued = new AtomicBoolean();
    private final Runnable drain = this::drainHandedOver;
    /**
     * The buffer the sessions of one connection drained by {@link #drainHandedOver} or at the end of a read share;
     * this loop's thread.
     */
    private final CopiedRun run = new CopiedRun();

    private DeliveryHandOff(EventLoop loop) {
        this.loop = loop;
    }

    /**
     * The client of {@code channel} keeps {@code slots} messages for DELIVER_SAME (its SHARE_DELIVERIES): from now on
     * a short BytesMessage that one of this hand-off's runs delivers to several of its consumers goes to it once
     * ({@link CopiedRun}). On the connection's loop.
     */
    public static void shareDeliveries(Channel channel, int slots) {
        CopiedRun.share(channel, slots);
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

    /** {@code channel}, a connection of this loop, reads a frame. */
    public void readStarted(Channel channel) {
        reading = true;
        readingChannel = channel;
    }

    /**
     * Whether deliveries to {@code channel}'s sessions wait for the end of this read ({@link #hold}): those of every
     * connection but the one reading, whose own frames (a PULL's PULL_DONE, a reply) must not overtake them.
     */
    boolean holdsFor(Channel channel) {
        return channel != readingChannel;
    }

    /** The session of another connection has deliveries to write: written when this read ends. */
    void hold(DeliveryWriter writer) {
        if (held.isEmpty()) {
            loop.execute(endOfTurn);
        }
        held.add(writer);
    }

    /**
     * The read ended: every session held is written, this loop's now, in one buffer and one flush per connection
     * ({@link CopiedRun}), each other loop's handed to it, one task per loop. Idempotent. A read that these writes
     * start at once (an in-VM client answering on this thread) adds what it holds to the sessions being written.
     */
    public void readEnded() {
        reading = false;
        readingChannel = null;
        if (ending || held.isEmpty()) {
            return;
        }
        ending = true;
        try {
            for (int from = 0, to; from < (to = held.size()); from = to) {
                write(from, to);
            }
        } finally {
            held.clear();
            ending = false;
        }
    }

    /** Writes or hands over the sessions held from {@code from} to {@code to}. */
    private void write(int from, int to) {
        if (to - from == 1) { // one session, as a reply to a request is: written, or its own task, as before
            DeliveryWriter w = held.get(from);
            if (w.handOff == this) {
                w.drain();
            } else {
                w.drainOnItsLoop();
            }
            return;
        }
        groupByConnection(from, to);
        DeliveryHandOff last = null;
        for (int i = from; i < to; i++) {
            DeliveryWriter w = held.get(i);
            if (w.handOff != this) {
                w.handOff.handedOver.offer(w);
            }
        }
        for (int i = from; i < to; i++) {
            DeliveryHandOff other = held.get(i).handOff;
            if (other != this && other != last) {
                other.queueDrain();
                last = other;
            }
        }
        try {
            for (int i = from; i < to; i++) {
                DeliveryWriter w = held.get(i);
                if (w.handOff == this) {
                    w.drain(run);
                }
            }
        } finally {
            run.end();
        }
    }

    /**
     * Orders the sessions held from {@code from} to {@code to} so that those of each connection follow one another:
     * their frames then share one buffer and one flush ({@link CopiedRun}), however the subscriptions of several
     * connections interleave. The order of one connection's sessions among themselves does not matter (each session's
     * frames keep theirs).
     */
    private void groupByConnection(int from, int to) {
        for (int i = from; i < to; ) {
            Channel channel = held.get(i).channel();
            int next = i + 1;
            for (int j = next; j < to; j++) {
                if (held.get(j).channel() == channel) {
                    Collections.swap(held, j, next++);
                }
            }
            i = next;
        }
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
