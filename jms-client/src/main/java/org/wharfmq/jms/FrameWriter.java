package org.wharfmq.jms;

import io.netty.channel.Channel;
import io.netty.util.internal.PlatformDependent;
import org.wharfmq.protocol.frame.Frame;

import java.util.Queue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Writes frames from application threads with one flush per batch instead of one per frame. Frames go into a
 * multi-producer queue; the first frame of a batch schedules a drain task on the channel's event loop, which
 * writes everything queued and flushes once. A requester's ACK, CLOSE_CONSUMER and next SEND, or the frames of
 * many threads sharing a connection, thus leave in one system call, with no added latency: the drain runs as
 * soon as the event loop would have run a single write. Frames keep the order in which they were queued.
 *
 * <p>A frame nobody waits for and that need not leave at once (the acknowledgement of an AUTO_ACKNOWLEDGE
 * receive) is queued with {@link #writeSoon}: it schedules nothing and leaves with the next frame written (the
 * responder's reply, the requester's next request), with {@link #flush} when the application is about to wait, or
 * at the latest {@value #PIGGYBACK_MILLIS} ms later. Waking the event loop for an acknowledgement alone cost each
 * request/reply client a thread wake-up per message.
 */
final class FrameWriter {

    /** Longest a frame queued with {@link #writeSoon} waits for another frame to carry it: {@value} ms. */
    static final long PIGGYBACK_MILLIS = 20;

    private final Channel channel;
    private final Queue<Frame> pending = PlatformDependent.newMpscQueue();
    private final AtomicBoolean drainScheduled = new AtomicBoolean();
    private final AtomicBoolean timerArmed = new AtomicBoolean();
    private final Runnable drain = this::drain;
    private final Runnable timedDrain = () -> {
        timerArmed.set(false);
        drain();
    };

    FrameWriter(Channel channel) {
        this.channel = channel;
    }

    /** Queues a frame for writing; never blocks. A failed write surfaces as the channel's exception or close. */
    void write(Frame frame) {
        pending.offer(frame);
        if (drainScheduled.compareAndSet(false, true)) {
            channel.eventLoop().execute(drain);
        }
    }

    /**
     * Queues a frame that may wait for the next one written, for {@link #flush}, or at most
     * {@value #PIGGYBACK_MILLIS} ms; never blocks. Order with all other frames is kept.
     */
    void writeSoon(Frame frame) {
        pending.offer(frame);
        if (timerArmed.compareAndSet(false, true)) {
            channel.eventLoop().schedule(timedDrain, PIGGYBACK_MILLIS, TimeUnit.MILLISECONDS);
        }
    }

    /** Sends whatever {@link #writeSoon} left waiting, unless a drain is already on its way. */
    void flush() {
        if (!pending.isEmpty() && drainScheduled.compareAndSet(false, true)) {
            channel.eventLoop().execute(drain);
        }
    }

    private void drain() {
        // cleared before polling: a frame queued after this either is polled below or schedules the next drain
        drainScheduled.set(false);
        boolean wrote = false;
        for (Frame frame; (frame = pending.poll()) != null; ) {
            channel.write(frame, channel.voidPromise());
            wrote = true;
        }
        if (wrote) {
            channel.flush();
        }
    }
}
