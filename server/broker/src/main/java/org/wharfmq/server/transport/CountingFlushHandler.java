package org.wharfmq.server.transport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.channel.DefaultMessageSizeEstimator;
import io.netty.channel.MessageSizeEstimator;
import io.netty.handler.flush.FlushConsolidationHandler;

/**
 * Every connection's {@link FlushConsolidationHandler} (many writes during one read burst leave in one flush), which
 * also counts the bytes the connection reads and writes, for the management view ({@code wharf admin display
 * connections}): the frames' bytes as the codec sees them (after TLS is undone on a TLS listener). Two plain fields
 * the connection's event loop alone writes, one addition per read or write: no atomic, no allocation. Other threads
 * read them through a task on that loop ({@link ServerConnection#info}).
 *
 * <p>It is also the channel's {@link MessageSizeEstimator}, which tells the write buffer what each write weighs against
 * {@code maxOutboundBytesPerConnection} ({@link OutboundLimit}): a message body weighs nothing (the encoder writes it
 * as a buffer of its own right after its frame's header, whose length says it follows), everything else its bytes.
 * Deliveries have their consumers' credit to bound them; the limit is for answers a client does not read. Under TLS
 * the bodies wait in the TLS handler, which counts them as they are, before they are encrypted.
 *
 * <p>Why one handler for these jobs: a handler of its own in the pipeline made every message of
 * {@code ServerPathBenchmark} allocate 5.5 bytes more (705.5 against 700.0 B/op, steady over runs, with or without
 * escape analysis); the same counting here allocates nothing more (docs/performance-log.md, "The management view's
 * cost"). It is the one place that sees each buffer written, in order, on the event loop.
 */
final class CountingFlushHandler extends FlushConsolidationHandler implements MessageSizeEstimator,
        MessageSizeEstimator.Handle {

    private static final MessageSizeEstimator.Handle BYTES = DefaultMessageSizeEstimator.DEFAULT.newHandle();

    private long bytesIn;
    private long bytesOut;
    /** Whether the buffer written next is a message body (its frame's header, just written, announced more bytes). */
    private boolean bodyNext;
    /** Whether the buffer being written now is a message body: then it weighs nothing ({@link #size}). */
    private boolean writingBody;

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
            int length = bytes.readableBytes();
            bytesOut += length;
            if (bodyNext) {
                bodyNext = false;
                writingBody = true;
                try {
                    ctx.write(msg, promise);
                } finally {
                    writingBody = false;
                }
                return;
            }
            // a frame's header: its length prefix counts the frame's bytes after it, a message body included
            bodyNext = length >= Integer.BYTES && bytes.getInt(bytes.readerIndex()) > length - Integer.BYTES;
        }
        ctx.write(msg, promise);
    }

    @Override
    public Handle newHandle() {
        return this;
    }

    /** What a write weighs in the channel's write buffer: nothing for a message body, else its bytes. */
    @Override
    public int size(Object msg) {
        return writingBody ? 0 : BYTES.size(msg);
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
