package org.wharfmq.client.core.transport;

import org.wharfmq.client.core.ClientConfiguration;

import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.SingleThreadEventLoop;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.timeout.IdleState;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.internal.PlatformDependent;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.frame.FrameDecoder;
import org.wharfmq.protocol.frame.HeartbeatIdleHandler;

import javax.net.ssl.SSLException;
import java.nio.channels.ClosedChannelException;
import java.util.Queue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A {@link FrameLink} over a Netty channel: the in-VM transport's local channel, or a socket channel on a
 * {@link NetworkLoop}, whose pipeline {@link Transport} builds (TLS for {@code ssl://}, decoder, encoder, idle-state
 * handler, then {@link #inbound()}). Writing never blocks: what the socket cannot take waits in the channel's outbound buffer.
 *
 * <p>Frames from application threads go into a multi-producer queue; the first frame of a batch schedules a
 * drain task on the channel's event loop, which writes everything queued and flushes once. The frames of many
 * threads sharing a connection thus leave together, in the order they were queued. A socket link's drain that finds
 * few frames ({@link ClientConfiguration#LOOK_AGAIN_BELOW_FRAMES}) waits for the loop's next pass first, which starts
 * at once (its poll does not wait): what that pass's reads queue (the SENDs of other clients of a sender channel's
 * queue manager) goes in the same write, rather than in one write, one read and one wake-up of the partner each. On
 * a socket channel (a link on a {@link NetworkLoop}, plain or TLS) the drain copies them into runs of the link kind's
 * size ({@link FrameRuns}): one outbound entry, or one TLS record, per run rather than a header buffer and a message
 * buffer per frame. An in-VM link's frames go as they are.
 */
final class ChannelLink implements FrameLink {

    private final FrameListener listener;
    private final Queue<Frame> pending = PlatformDependent.newMpscQueue();
    private final AtomicBoolean drainScheduled = new AtomicBoolean();
    private final AtomicBoolean timerArmed = new AtomicBoolean();
    private final SoonBytes soonBytes = new SoonBytes();
    private final Runnable drain = this::drain;
    private final Runnable timedDrain = () -> {
        timerArmed.set(false);
        drain();
    };
    /** How a socket link copies a drain's frames into runs; null on an in-VM link, whose frames go as they are. */
    private final FrameRuns runs;
    /**
     * A socket link's drain due has let its loop look once more for what is ready ({@link #drain}); the event loop's.
     * Never set on an in-VM link.
     */
    private boolean lookedForMore;
    /** Queues the drain again once the loop's pass has ended: it runs in the next pass, after that pass's reads. */
    private final Runnable drainNextPass = () -> this.channel.eventLoop().execute(this.drain);
    private volatile Channel channel;

    /** @param runs how a socket link copies a drain's frames into runs; null on an in-VM link */
    ChannelLink(FrameListener listener, FrameRuns runs) {
        this.listener = listener;
        this.runs = runs;
    }

    /** The last handler of the pipeline: passes frames, idleness, failures and the close to the listener. */
    ChannelInboundHandlerAdapter inbound() {
        return new Inbound();
    }

    /** Called once the channel is connected, before anything is written. */
    void connected(Channel connected) {
        this.channel = connected;
    }

    @Override
    public void write(Frame frame) {
        pending.offer(frame);
        if (drainScheduled.compareAndSet(false, true)) {
            channel.eventLoop().execute(drain);
        }
    }

    @Override
    public void writeSoon(Frame frame) {
        if (soonBytes.overLimitWith(frame)) {
            write(frame);
            return;
        }
        pending.offer(frame);
        if (timerArmed.compareAndSet(false, true)) {
            channel.eventLoop().schedule(timedDrain, ClientConfiguration.PIGGYBACK_MILLIS, TimeUnit.MILLISECONDS);
        }
    }

    @Override
    public void flush() {
        if (!pending.isEmpty() && drainScheduled.compareAndSet(false, true)) {
            channel.eventLoop().execute(drain);
        }
    }

    private void drain() {
        if (runs != null && !lookedForMore && pending.size() < ClientConfiguration.LOOK_AGAIN_BELOW_FRAMES
                && channel.eventLoop() instanceof SingleThreadEventLoop loop) {
            // a short drain looks once more first: the next pass, which starts at once with this drain queued (a poll
            // that does not wait), reads what else is ready, and the frames that queues go in this write
            lookedForMore = true;
            loop.executeAfterEventLoopIteration(drainNextPass);
            return;
        }
        lookedForMore = false;
        // cleared before polling: a frame queued after this either is polled below or schedules the next drain
        drainScheduled.set(false);
        soonBytes.sending();
        boolean wrote = false;
        for (Frame frame; (frame = pending.poll()) != null; ) {
            if (runs != null) {
                runs.write(channel, frame);
            } else {
                channel.write(frame, channel.voidPromise());
            }
            wrote = true;
        }
        if (wrote) {
            if (runs != null) {
                runs.end(channel);
            }
            channel.flush();
        }
    }

    /** The Netty channel (tests count its flushes). */
    Channel channel() {
        return channel;
    }

    @Override
    public ByteBufAllocator alloc() {
        return channel.alloc();
    }

    @Override
    public void startHeartbeat(int millis) {
        channel.pipeline().replace(Transport.IDLE_HANDLER, Transport.IDLE_HANDLER,
                new HeartbeatIdleHandler(millis));
    }

    @Override
    public void frameLimit(int maxFrameLength) {
        FrameDecoder decoder = channel.pipeline().get(FrameDecoder.class);
        assert channel.eventLoop().inEventLoop() : "the frame limit is the event loop's";
        decoder.limit(maxFrameLength);
    }

    @Override
    public boolean isOpen() {
        return channel.isActive();
    }

    @Override
    public String tls() {
        SslHandler ssl = channel.pipeline().get(SslHandler.class);
        return ssl == null ? null : ClientTls.negotiated(ssl.engine());
    }

    @Override
    public boolean isWritable() {
        return channel.isWritable();
    }

    @Override
    public void close(long waitMillis) {
        if (channel.eventLoop().inEventLoop()) {
            channel.close();
        } else {
            channel.close().awaitUninterruptibly(waitMillis);
        }
    }

    private final class Inbound extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            listener.onFrame((Frame) msg);
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
            if (evt instanceof IdleStateEvent idle) {
                if (idle.state() == IdleState.WRITER_IDLE) {
                    ctx.writeAndFlush(Frame.Ping.INSTANCE, ctx.voidPromise());
                } else if (idle.state() == IdleState.READER_IDLE) {
                    listener.onSilence();
                    ctx.close();
                }
                return;
            }
            super.userEventTriggered(ctx, evt);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) throws Exception {
            listener.onClosed();
            super.channelInactive(ctx);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            if (cause instanceof DecoderException decoding && decoding.getCause() instanceof SSLException tls) {
                // what the TLS handler read: a TLS 1.3 server's refusal of the client's certificate after the handshake
                listener.onFailure(tls);
            } else if (!(cause instanceof ClosedChannelException)) { // a write raced with the close, which channelInactive reports
                listener.onFailure(cause);
            }
            ctx.close();
        }
    }
}
