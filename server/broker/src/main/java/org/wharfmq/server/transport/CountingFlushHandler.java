package org.wharfmq.server.transport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.flush.FlushConsolidationHandler;

/**
 * Every connection's {@link FlushConsolidationHandler} (many writes during one read burst leave in one flush), which
 * also counts the bytes the connection reads and writes, for the management view ({@code wharf admin display
 * connections}): the frames' bytes as the codec sees them (after TLS is undone on a TLS listener). Two plain fields
 * the connection's event loop alone writes, one addition per read or write: no atomic, no allocation. Other threads
 * read them through a task on that loop ({@link ServerConnection#info}).
 *
 * <p>Why one handler for two jobs: a handler of its own in the pipeline made every message of
 * {@code ServerPathBenchmark} allocate 5.5 bytes more (705.5 against 700.0 B/op, steady over runs, with or without
 * escape analysis); the same counting here allocates nothing more (docs/performance-log.md, "The management view's
 * cost").
 */
final class CountingFlushHandler extends FlushConsolidationHandler {

    private long bytesIn;
    private long bytesOut;

    CountingFlushHandler() {
        super(FlushConsolidationHandler.DEFAULT_EXPLICIT_FLUSH_AFTER_FLUSHES, true);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        if (msg instanceof ByteBuf bytes) {
            bytesIn += bytes.readableBytes();
        }
        super.channelRead(ctx, msg);
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
