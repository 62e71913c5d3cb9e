package org.wharfmq.protocol.frame;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.codec.ByteToMessageDecoder;

/**
 * How {@link FrameDecoder} gathers the bytes of its reads: small frames as Netty's merge cumulator does; a large
 * frame (its length read, {@link LargeFrameBuffers#LARGE_FRAME_BYTES} or more) in one buffer of its size, a kept
 * one when the connection's {@link LargeFrameBuffers} has one, else one of exactly its length, where each read's
 * bytes are appended and never copied again. Only when neither may be had (other frames' bytes are awaited in
 * buffers of theirs) does the frame grow as its bytes come, by doubling up to its own size.
 *
 * <p>The decoder says after each decode which frame is next ({@link #frameAhead}): only it knows where frames begin.
 * Not thread-safe: the decoder's, on its channel's event loop.
 */
final class LargeFrameCumulator implements ByteToMessageDecoder.Cumulator {

    private final LargeFrameBuffers buffers;
    /** Length of the incomplete large frame at the cumulation's reader index, prefix included; 0 when none. */
    private int frameBytes;
    /** The cumulation when it is a buffer that holds the whole frame, else null (a reference of the decoder's). */
    private ByteBuf whole;

    LargeFrameCumulator(LargeFrameBuffers buffers) {
        this.buffers = buffers;
    }

    /**
     * The frame ahead in the cumulation is a large one of {@code frameBytes}, still incomplete, of which the cumulation
     * holds {@code haveBytes}, or (0) there is none: the decoder says so after each decode, 0 as soon as it has taken
     * a frame out (the frame ahead is a new one).
     */
    void frameAhead(int frameBytes, int haveBytes) {
        this.frameBytes = frameBytes;
        if (frameBytes == 0) {
            whole = null;
        }
        buffers.missing(frameBytes == 0 ? 0 : frameBytes - haveBytes);
    }

    @Override
    public ByteBuf cumulate(ByteBufAllocator alloc, ByteBuf cumulation, ByteBuf in) {
        if (frameBytes == 0) {
            return ByteToMessageDecoder.MERGE_CUMULATOR.cumulate(alloc, cumulation, in);
        }
        if (cumulation == whole) {
            return append(alloc, cumulation, in);
        }
        try {
            int readable = in.readableBytes();
            if (cumulation.refCnt() == 1 && !cumulation.isReadOnly() && cumulation.writableBytes() >= readable) {
                cumulation.writeBytes(in, in.readerIndex(), readable);
                return cumulation;
            }
            int have = cumulation.readableBytes() + readable;
            ByteBuf target = null;
            if (have < frameBytes) {
                target = buffers.take(alloc, frameBytes);
                target = target != null ? target : buffers.takeWhole(alloc, frameBytes, have);
            }
            if (target == null) {
                int capacity = LargeFrameBuffers.grownCapacity(cumulation.capacity(), have, frameBytes);
                target = alloc.buffer(capacity);
            }
            target.writeBytes(cumulation, cumulation.readerIndex(), cumulation.readableBytes());
            target.writeBytes(in, in.readerIndex(), readable);
            cumulation.release();
            whole = target.capacity() >= frameBytes ? target : null;
            return target;
        } finally {
            in.release();
        }
    }

    /**
     * A slice of the frame's buffer from its end on, for the socket to be read into ({@link FrameReads}), or null
     * when no large frame is being read into a buffer of its own (or that buffer has no memory address to recognise
     * the read by). The caller owns the slice.
     */
    ByteBuf readTarget() {
        ByteBuf frame = whole;
        if (frame == null || !frame.isWritable() || !frame.hasMemoryAddress()) {
            return null;
        }
        return frame.retainedSlice(frame.writerIndex(), frame.writableBytes()).clear();
    }

    /** Whether {@code in}'s bytes are where they would be appended: read into {@link #readTarget}. */
    private static boolean readInPlace(ByteBuf frame, ByteBuf in) {
        return in.hasMemoryAddress() && frame.hasMemoryAddress() && in.readableBytes() <= frame.writableBytes()
                && in.memoryAddress() + in.readerIndex() == frame.memoryAddress() + frame.writerIndex();
    }

    /**
     * Appends {@code in} to the frame's buffer (nothing to copy when it was read there); bytes past its end (the next frames', read with the last of this one)
     * follow it in a composite buffer, to be copied out by the merge cumulator once the frame has gone.
     */
    private ByteBuf append(ByteBufAllocator alloc, ByteBuf frame, ByteBuf in) {
        if (readInPlace(frame, in)) {
            frame.writerIndex(frame.writerIndex() + in.readableBytes());
            in.release();
            return frame;
        }
        int fits = Math.min(in.readableBytes(), frame.writableBytes());
        frame.writeBytes(in, in.readerIndex(), fits);
        in.skipBytes(fits);
        if (!in.isReadable()) {
            in.release();
            return frame;
        }
        whole = null;
        return alloc.compositeBuffer(2).addComponents(true, frame, in);
    }
}
