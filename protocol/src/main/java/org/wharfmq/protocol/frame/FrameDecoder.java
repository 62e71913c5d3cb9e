package org.wharfmq.protocol.frame;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;

/**
 * Turns the byte stream into {@link Frame}s: splits on the 4-byte length prefix, then reads the type byte and
 * payload. A frame longer than {@code maxFrameLength} is skipped without being buffered and reported as a
 * {@link io.netty.handler.codec.TooLongFrameException}; a frame whose content is wrong raises
 * {@link MalformedFrameException} (wrapped in a {@link io.netty.handler.codec.DecoderException}). What to do
 * about either is the next handler's decision.
 *
 * <p>A large frame ({@link LargeFrameBuffers#LARGE_FRAME_BYTES} or more) is read into one buffer of its own size,
 * kept by the connection for its next large frames ({@link LargeFrameCumulator}); the message of a SEND or DELIVER
 * is a slice of it. On a channel whose reads are {@link FrameReads}, the socket is read straight into that buffer.
 */
public final class FrameDecoder extends LengthFieldBasedFrameDecoder {

    /** Bytes in front of the payload: the int length and the type byte. */
    public static final int HEADER_LENGTH = 5;

    private final LargeFrameBuffers largeFrames;
    private final LargeFrameCumulator cumulator;
    /** The channel's reads when they can go straight into a large frame's buffer, else null. */
    private FrameReads reads;
    /** The longest frame accepted now ({@link #limit}); the channel's event loop's. */
    private int limit = Integer.MAX_VALUE;

    /** @param maxFrameLength the longest frame accepted, counting the type byte and payload */
    public FrameDecoder(int maxFrameLength) {
        this(maxFrameLength, LargeFrameMemory.JVM);
    }

    /**
     * @param maxFrameLength the longest frame accepted, counting the type byte and payload
     * @param memory         what the buffers of large frames count against
     */
    public FrameDecoder(int maxFrameLength, LargeFrameMemory memory) {
        super(maxFrameLength, 0, 4, 0, 4, true);
        this.largeFrames = new LargeFrameBuffers(memory);
        this.cumulator = new LargeFrameCumulator(largeFrames);
        setCumulator(cumulator);
    }

    @Override
    protected Object decode(ChannelHandlerContext ctx, ByteBuf in) throws Exception {
        ByteBuf frame = (ByteBuf) super.decode(ctx, in);
        if (frame == null) {
            cumulator.frameAhead(largeFrameAt(in), in.readableBytes());
            return null;
        }
        cumulator.frameAhead(0, 0);
        try {
            return decodeFrame(frame);
        } finally {
            frame.release();
        }
    }

    /**
     * The length, prefix included, of the large frame whose beginning {@code in} holds at its reader index, else 0.
     * Called when no whole frame is there: {@code in} begins with a frame whose length the decoder has checked
     * against its limit, or holds fewer than 4 bytes.
     */
    private static int largeFrameAt(ByteBuf in) {
        if (in.readableBytes() < 4) {
            return 0;
        }
        long frameBytes = in.getUnsignedInt(in.readerIndex()) + 4;
        return frameBytes >= LargeFrameBuffers.LARGE_FRAME_BYTES && frameBytes <= Integer.MAX_VALUE ? (int) frameBytes : 0;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) throws Exception {
        super.handlerAdded(ctx);
        if (ctx.channel().config().getRecvByteBufAllocator() instanceof FrameReads frameReads
                && frameReads.framesInPlace()) {
            reads = frameReads;
            reads.decoder(this);
        }
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext ctx) throws Exception {
        if (reads != null) {
            reads.decoderGone(this);
        }
        largeFrames.release();
    }

    /**
     * From the next frame on, refuses a frame longer than {@code maxFrameLength} (type byte and payload) with a
     * {@link FrameTooLongException}, which ends the connection: unlike a frame past the constructor's limit, which is
     * skipped, it is not read at all. A client lowers its limit to what the server may send in the handshake and raises
     * it to what the server declared in {@code HELLO_OK}. Called on the channel's event loop.
     */
    public void limit(int maxFrameLength) {
        this.limit = maxFrameLength;
    }

    /** Where the channel's next read should go: the free end of a large frame's buffer, or null (anywhere). */
    ByteBuf readTarget() {
        return cumulator.readTarget();
    }

    /**
     * Decodes one frame from its bytes after the length prefix, {@code frame}'s readable bytes: the type byte, then
     * the payload. For SEND and DELIVER the returned frame holds a retained slice of {@code frame}; it does not
     * release {@code frame}.
     *
     * @throws MalformedFrameException if the type is unknown or the payload does not fit it
     */
    public static Frame decodeFrame(ByteBuf frame) {
        if (!frame.isReadable()) {
            throw new MalformedFrameException("empty frame: no type byte");
        }
        int start = frame.readerIndex();
        byte code = frame.readByte();
        FrameType type = FrameType.of(code);
        if (type == null) {
            throw new MalformedFrameException("unknown frame type " + code);
        }
        try {
            return Codec.decode(type, frame);
        } catch (IndexOutOfBoundsException e) {
            throw new MalformedFrameException(type + " frame is truncated: its " + (frame.writerIndex() - start - 1)
                    + "-byte payload ends before the fields its type requires");
        }
    }

    @Override
    protected long getUnadjustedFrameLength(ByteBuf buf, int offset, int length, java.nio.ByteOrder order) {
        long frameLength = super.getUnadjustedFrameLength(buf, offset, length, order);
        // The length is read unsigned; anything past Integer.MAX_VALUE is a negative int32 on the wire, i.e. garbage,
        // and must close the connection rather than make the decoder skip gigabytes as an "oversize" frame.
        if (frameLength < 1 || frameLength > Integer.MAX_VALUE) {
            throw new MalformedFrameException("frame length " + (int) frameLength + " is not a valid length (at least 1, the type byte)");
        }
        if (frameLength > limit) {
            throw new FrameTooLongException(frameLength, limit);
        }
        return frameLength;
    }
}
