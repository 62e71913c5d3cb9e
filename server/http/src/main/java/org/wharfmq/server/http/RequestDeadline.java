package org.wharfmq.server.http;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.LastHttpContent;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Holds each request to a deadline, so that a caller cannot keep connections by sending a request slowly (slowloris: a
 * header line every few seconds, a body byte at a time, each keeping the idle timer from firing): from its first byte, a
 * request has {@link HttpConfiguration#REQUEST_READ_MILLIS} to arrive whole, and one more second for each
 * {@link HttpConfiguration#REQUEST_READ_BYTES_PER_SECOND} bytes it has brought (a large body at a fair rate is never cut
 * off). Past it, the caller is answered 408, saying so, and the connection closed. No login is needed to start a
 * request, so this holds for every caller.
 *
 * <p>Before the HTTP codec, it sees the bytes; {@link #end} (right after the codec) tells it that a request came whole
 * (its last content, a body dropped past its limit's included), and the next bytes start the next request's deadline.
 * On the event loop; every method runs there.
 */
final class RequestDeadline extends ChannelInboundHandlerAdapter {

    private final long readNanos;
    private final long bytesPerSecond;
    private ChannelHandlerContext ctx;
    /** The request being read: its bytes so far, and the time its bytes have earned beyond the first period. */
    private long bytes;
    private long grantedNanos;
    /** Fires when the request being read is due; null when none is being read. */
    private ScheduledFuture<?> timer;
    /** Whether a request was answered 408: the connection is closing. */
    private boolean timedOut;

    /**
     * @param readMillis     how long a request has from its first byte ({@link HttpConfiguration#REQUEST_READ_MILLIS})
     * @param bytesPerSecond the bytes that earn a request one more second
     */
    RequestDeadline(long readMillis, long bytesPerSecond) {
        this.readNanos = TimeUnit.MILLISECONDS.toNanos(readMillis);
        this.bytesPerSecond = bytesPerSecond;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof ByteBuf in && in.isReadable() && !timedOut) {
            if (timer == null) {
                bytes = 0;
                grantedNanos = 0;
                timer = ctx.executor().schedule(this::due, readNanos, TimeUnit.NANOSECONDS);
            }
            bytes += in.readableBytes();
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        ended();
        ctx.fireChannelInactive();
    }

    /** The handler to put right after the codec: each request's last content that passes it ends its deadline. */
    ChannelInboundHandlerAdapter end() {
        return new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                if (msg instanceof LastHttpContent) {
                    ended();
                }
                ctx.fireChannelRead(msg);
            }
        };
    }

    private void ended() {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
    }

    /** The request's time is up, unless its bytes have earned more since. */
    private void due() {
        long earned = bytes * TimeUnit.SECONDS.toNanos(1) / bytesPerSecond;
        if (earned > grantedNanos) {
            long more = earned - grantedNanos;
            grantedNanos = earned;
            timer = ctx.executor().schedule(this::due, more, TimeUnit.NANOSECONDS);
            return;
        }
        timer = null;
        timedOut = true;
        ctx.channel().config().setAutoRead(false);
        RawAnswer.writeAndClose(ctx, "408 Request Timeout", "The request did not arrive whole in time: a request has "
                + TimeUnit.NANOSECONDS.toSeconds(readNanos) + " s from its first byte, and 1 s more for each "
                + bytesPerSecond + " bytes it brings (this one brought " + bytes + " bytes in "
                + TimeUnit.NANOSECONDS.toSeconds(readNanos + grantedNanos) + " s). The connection is closed; send"
                + " each request whole, at once.");
    }
}
