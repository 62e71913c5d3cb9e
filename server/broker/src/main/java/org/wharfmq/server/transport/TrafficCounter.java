package org.wharfmq.server.transport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;

/**
 * Counts the bytes a connection reads and writes, for the management view ({@code wharf admin display
 * connections}): the frames' bytes as the codec sees them (after TLS is undone on a TLS listener). Two plain fields
 * the connection's event loop alone writes, one addition per read or write: no atomic, no allocation. Other threads
 * read them through a task on that loop ({@link ServerConnection#info}).
 */
final class TrafficCounter extends ChannelDuplexHandler {

    private long bytesIn;
    private long bytesOut;

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof ByteBuf bytes) {
            bytesIn += bytes.readableBytes();
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (msg instanceof ByteBuf bytes) {
            bytesOut += bytes.readableBytes();
        }
        ctx.write(msg, promise);
    }

    /** Bytes read so far; on the event loop. */
    long bytesIn() {
        return bytesIn;
    }

    /** Bytes written so far; on the event loop. */
    long bytesOut() {
        return bytesOut;
    }
}
