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
 */
public final class FrameDecoder extends LengthFieldBasedFrameDecoder {

    /** Bytes in front of the payload: the int length and the type byte. */
    public static final int HEADER_LENGTH = 5;

    /** @param maxFrameLength the longest frame accepted, counting the type byte and payload */
    public FrameDecoder(int maxFrameLength) {
        super(maxFrameLength, 0, 4, 0, 4, true);
    }

    @Override
    protected Object decode(ChannelHandlerContext ctx, ByteBuf in) throws Exception {
        ByteBuf frame = (ByteBuf) super.decode(ctx, in);
        if (frame == null) {
            return null;
        }
        try {
            return decodeFrame(frame);
        } finally {
            frame.release();
        }
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
        return frameLength;
    }
}
