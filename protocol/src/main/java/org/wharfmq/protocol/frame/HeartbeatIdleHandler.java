package org.wharfmq.protocol.frame;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.timeout.IdleState;
import io.netty.handler.timeout.IdleStateHandler;
import org.wharfmq.protocol.Heartbeat;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The heartbeat's pipeline stage ({@link Heartbeat}) for a Netty connection: {@link IdleState#READER_IDLE} once
 * nothing was read for {@link Heartbeat#deadAfterMillis} (Netty's {@link IdleStateHandler} watches the reads), and
 * {@link IdleState#WRITER_IDLE} once nothing was flushed for one interval, then again every interval while nothing
 * is; each goes to {@link #channelIdle}, which passes it on as a user event unless a subclass overrides it.
 *
 * <p>Why writes are not watched as {@code IdleStateHandler} watches them: it notes a write when it completes, so it
 * turns every write's void promise into a real one with a listener, an allocation and a notification per frame; a
 * DELIVER, which leaves the encoder as two buffers, then also needs a promise combiner and a promise per buffer. On
 * the server that was every delivery's cost for one timestamp. A flush, one per batch of frames, is when the frames
 * are handed to the socket, so the time of the last flush says when the peer last got something. Runs on the
 * channel's event loop, as every handler does.
 */
public class HeartbeatIdleHandler extends IdleStateHandler {

    private final long intervalNanos;
    /** The clock the flushes are timed by: {@link System#nanoTime}, or a test's. */
    private final LongSupplier nanoClock;
    /** When the last flush passed; the event loop's. */
    private long lastFlushNanos;
    /** The next look at the writer's idleness, or null while the channel is not active. */
    private ScheduledFuture<?> writerCheck;

    /** @param intervalMillis the agreed heartbeat interval, more than 0 */
    public HeartbeatIdleHandler(long intervalMillis) {
        this(intervalMillis, System::nanoTime);
    }

    /** @param nanoClock the clock flushes are timed by, which must move as the event loop's scheduler does */
    HeartbeatIdleHandler(long intervalMillis, LongSupplier nanoClock) {
        super(Heartbeat.deadAfterMillis(intervalMillis), 0, 0, TimeUnit.MILLISECONDS);
        this.intervalNanos = TimeUnit.MILLISECONDS.toNanos(intervalMillis);
        this.nanoClock = nanoClock;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) throws Exception {
        super.handlerAdded(ctx);
        if (ctx.channel().isActive() && ctx.channel().isRegistered()) {
            watchWriter(ctx);
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        watchWriter(ctx);
        super.channelActive(ctx);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) throws Exception {
        stopWatchingWriter();
        super.handlerRemoved(ctx);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        stopWatchingWriter();
        super.channelInactive(ctx);
    }

    @Override
    public void flush(ChannelHandlerContext ctx) throws Exception {
        lastFlushNanos = nanoClock.getAsLong();
        ctx.flush();
    }

    private void watchWriter(ChannelHandlerContext ctx) {
        if (writerCheck == null) {
            lastFlushNanos = nanoClock.getAsLong();
            writerCheck = ctx.executor().schedule(() -> checkWriter(ctx), intervalNanos, TimeUnit.NANOSECONDS);
        }
    }

    private void stopWatchingWriter() {
        if (writerCheck != null) {
            writerCheck.cancel(false);
            writerCheck = null;
        }
    }

    /** Fires WRITER_IDLE when nothing was flushed for an interval; looks again an interval after the last flush. */
    private void checkWriter(ChannelHandlerContext ctx) {
        if (writerCheck == null || !ctx.channel().isOpen()) {
            return;
        }
        long left = intervalNanos - (nanoClock.getAsLong() - lastFlushNanos);
        if (left > 0) {
            writerCheck = ctx.executor().schedule(() -> checkWriter(ctx), left, TimeUnit.NANOSECONDS);
            return;
        }
        writerCheck = ctx.executor().schedule(() -> checkWriter(ctx), intervalNanos, TimeUnit.NANOSECONDS);
        try {
            channelIdle(ctx, newIdleStateEvent(IdleState.WRITER_IDLE, false));
        } catch (Throwable t) {
            ctx.fireExceptionCaught(t);
        }
    }
}
