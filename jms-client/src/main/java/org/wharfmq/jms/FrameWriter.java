package org.wharfmq.jms;

import io.netty.channel.Channel;
import io.netty.util.internal.PlatformDependent;
import org.wharfmq.protocol.frame.Frame;

import java.util.Queue;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Writes frames from application threads with one flush per batch instead of one per frame. Frames go into a
 * multi-producer queue; the first frame of a batch schedules a drain task on the channel's event loop, which
 * writes everything queued and flushes once. A requester's ACK, CLOSE_CONSUMER and next SEND, or the frames of
 * many threads sharing a connection, thus leave in one system call, with no added latency: the drain runs as
 * soon as the event loop would have run a single write. Frames keep the order in which they were queued.
 */
final class FrameWriter {
    private final Channel channel;
    private final Queue<Frame> pending = PlatformDependent.newMpscQueue();
    private final AtomicBoolean drainScheduled = new AtomicBoolean();
    private final Runnable drain = this::drain;

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
