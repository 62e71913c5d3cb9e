package org.wharfmq.server.session;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.message.WireDestination;
import org.wharfmq.server.Configuration;
import org.wharfmq.server.OrderedLock;
import org.wharfmq.server.queue.QueuedMessage;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * The DELIVER frames of one session on their way to its connection. A queue hands a message to one of the
 * session's consumers from whatever thread put it there; the session records the delivery and queues it here, under
 * the session's lock. Frames are written only on the connection's event loop ({@link #drain}): inline when the
 * delivery was made on that loop, otherwise by one task scheduled per burst ({@link #flush}); a delivery made during
 * a connection's read on another loop is handed over with that read's others when it ends ({@link DeliveryHandOff}).
 * Because the session assigns delivery ids and queues them under the same lock, DELIVERs leave in delivery-id order,
 * whichever threads produced them.
 *
 * <p>The stored bytes of each delivery are referenced ({@code retain}) under the session's lock while the delivery is
 * still live (a delivery settled before it was written is skipped), so they are never released under the writer.
 * A short message is copied with its frame header into a buffer the session's batch shares (one buffer, one
 * outbound entry and one iovec for many frames rather than two entries, a header buffer and a duplicate each); a
 * long one is not copied: its DELIVER carries a {@code retainedDuplicate()} of the stored bytes.
 */
final class DeliveryWriter implements DeferredWakes.Pending {

    private static final int COPY_LIMIT = Configuration.DELIVER_COPY_LIMIT_BYTES;
    private static final int BATCH_BYTES = Configuration.DELIVER_BATCH_BYTES;

    /** The session's lock, which guards {@link #unwritten} and the writes of {@link #drainScheduled}. */
    private final OrderedLock lock;
    private final Channel channel;
    private final EventLoop eventLoop;
    private final ArrayDeque<Delivery> unwritten = new ArrayDeque<>();
    /**
     * A drain is due that has not yet taken the unwritten deliveries: set by {@link #flush}, cleared by the drain as it
     * takes them, both under the lock; read without it by {@link #flush}, which then need not take the lock: a drain
     * that clears it later takes every delivery queued before (volatile: a publication's fan-out flushes each of its
     * subscribers' sessions, and in a read that carries several publications most find the drain already due).
     */
    private volatile boolean drainScheduled;
    /**
     * The drain due was queued without a wake by a thread that defers its wakes ({@link DeferredWakes}), which owes
     * the wake; written with {@link #drainScheduled} (before it), under the lock.
     */
    private volatile boolean drainOwed;
    /** The deliveries of one drain, written once the lock is released; event loop only. */
    private final List<Delivery> batch = new ArrayList<>();
    /** A reference to the bytes of each of {@link #batch}, taken under the lock; event loop only. */
    private final List<ByteBuf> bodies = new ArrayList<>();
    private final Runnable drainTask = this::drain;
    /** The hand-off of the connection's loop, which takes this writer from other loops; null: made off the loop. */
    final DeliveryHandOff handOff;

    /**
     * @param lock    the session's lock
     * @param channel the session's connection
     */
    DeliveryWriter(OrderedLock lock, Channel channel) {
        this.lock = lock;
        this.channel = channel;
        this.eventLoop = channel.eventLoop();
        this.handOff = eventLoop.inEventLoop() ? DeliveryHandOff.of(eventLoop) : null;
    }

    /** Queues a delivery's frame; under the session's lock. */
    void queue(Delivery delivery) {
        assert lock.isHeldByCurrentThread();
        unwritten.addLast(delivery);
    }

    /** Forgets the frames not written yet: the session is closing; under the session's lock. */
    void discardUnwritten() {
        assert lock.isHeldByCurrentThread();
        unwritten.clear();
    }

    /**
     * Gets the queued frames written: during a read of another connection, when that read ends (with the other sessions
     * it delivered to: {@link DeliveryHandOff}); else now when on the event loop; else by one scheduled task, which a
     * thread that defers its wakes (a flow's reader: {@link DeferredWakes}) queues without a wake, owing the wake, to
     * issue with its others (the loop runs it sooner if it wakes for anything else). A drain queued that way does not
     * hold a delivery of a thread that does not defer: that one queues a drain of its own, with a wake.
     */
    void flush() {
        DeliveryHandOff reading = handOff == null ? null : DeliveryHandOff.reading();
        boolean held = reading != null && reading.holdsFor(channel);
        if (!held && eventLoop.inEventLoop()) {
            drain();
            return;
        }
        DeferredWakes deferring = held ? null : DeferredWakes.ofThisThread();
        if (drainScheduled && !drainOwed) {
            return; // the drain due, queued, takes what the caller queued before this
        }
        boolean schedule;
        boolean owe;
        lock.lock();
        try {
            // a drain queued without a wake by a deferring thread: one that defers owes that wake too, one that does
            // not queues a drain of its own, with a wake
            owe = deferring != null && drainScheduled && drainOwed;
            schedule = !owe && (!drainScheduled || drainOwed) && !unwritten.isEmpty();
            if (schedule) {
                drainOwed = deferring != null;
                drainScheduled = true;
            }
        } finally {
            lock.unlock();
        }
        if (owe) {
            deferring.oweWake(this); // the drain queued takes this delivery too
        } else if (schedule) {
            if (held) {
                reading.hold(this);
            } else if (deferring != null) {
                deferring.owe(this);
            } else {
                drainOnItsLoop();
            }
        }
    }

    @Override
    public EventLoop loop() {
        return eventLoop;
    }

    @Override
    public Runnable task() {
        return drainTask;
    }

    @Override
    public boolean pending() {
        return drainScheduled && drainOwed;
    }

    /** The session's connection. */
    Channel channel() {
        return channel;
    }

    /** Gets {@link #drain} run by a task of the connection's loop; any thread. */
    void drainOnItsLoop() {
        eventLoop.execute(drainTask);
    }

    /**
     * Writes every frame queued so far; on the event loop. The deliveries still live are taken under the session's
     * lock, each with a reference to its bytes ({@code retain}: the bytes stay while the queue may let go of them);
     * outside it, runs of short messages are copied into one buffer ({@link Configuration#DELIVER_COPY_LIMIT_BYTES}),
     * a long one goes as a frame with a duplicate of its bytes, and one flush sends them all.
     */
    void drain() {
        drain(null);
    }

    /**
     * {@link #drain}, the short frames copied into {@code run}'s buffer and the flush left to it when it is not null:
     * the sessions a task of the loop drains one after another share their connection's buffer, and a message they
     * all deliver goes once when the client keeps messages ({@link CopiedRun}, {@link DeliveryHandOff}).
     */
    void drain(CopiedRun run) {
        lock.lock();
        try {
            drainScheduled = false;
            Delivery d;
            while ((d = unwritten.pollFirst()) != null) {
                if (!d.settled) {
                    batch.add(d);
                    bodies.add(d.message.content().retain());
                }
            }
        } finally {
            lock.unlock();
        }
        if (batch.isEmpty()) {
            return;
        }
        int n = batch.size();
        int i = 0;
        while (i < n) {
            ByteBuf body = bodies.get(i);
            if (body.readableBytes() > COPY_LIMIT) {
                if (run != null) {
                    run.writeOut(channel);
                }
                Delivery d = batch.get(i);
                channel.write(new Frame.Deliver(d.consumer.id(), d.deliveryId, d.deliveryCount, body.retainedDuplicate()),
                        channel.voidPromise());
                body.release();
                i++;
            } else if (run != null) {
                Delivery d = batch.get(i);
                run.copy(channel, d.consumer.id(), d.deliveryId, d.deliveryCount, body, isPublication(d.message));
                body.release();
                i++;
            } else {
                i = writeCopied(i);
            }
        }
        batch.clear();
        bodies.clear();
        if (run == null) {
            channel.flush();
        }
    }

    /**
     * Whether {@code message} was published to a topic: one whose copies other consumers of the connection may get,
     * which a run then sends once ({@link CopiedRun}); a queue's message goes to one consumer.
     */
    private static boolean isPublication(QueuedMessage message) {
        WireDestination destination = message.headers().destination();
        return destination != null && !destination.kind().isQueue();
    }

    /** Appends the frame of the batch's delivery {@code i} to {@code out} and lets go of its bytes. */
    private void copy(int i, ByteBuf out) {
        Delivery d = batch.get(i);
        ByteBuf body = bodies.get(i);
        Frame.Deliver.writeFrame(out, d.consumer.id(), d.deliveryId, d.deliveryCount, body);
        body.release();
    }

    /**
     * Copies the run of short messages from {@code from} on (as many as {@link Configuration#DELIVER_BATCH_BYTES}
     * holds, at least one) into one buffer of their size and writes it; returns the index after the run.
     */
    private int writeCopied(int from) {
        int n = batch.size();
        int end = from;
        int bytes = 0;
        while (end < n) {
            int length = bodies.get(end).readableBytes();
            int frameLength = Frame.Deliver.frameLength(length);
            if (length > COPY_LIMIT || (bytes > 0 && bytes + frameLength > BATCH_BYTES)) {
                break;
            }
            bytes += frameLength;
            end++;
        }
        ByteBuf copied = channel.alloc().ioBuffer(bytes);
        for (int i = from; i < end; i++) {
            copy(i, copied);
        }
        channel.write(copied, channel.voidPromise());
        return end;
    }
}
