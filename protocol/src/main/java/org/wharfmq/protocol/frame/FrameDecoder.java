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
            if (!frame.isReadable()) {
                throw new MalformedFrameException("empty frame: no type byte");
            }
            byte code = frame.readByte();
            FrameType type = FrameType.of(code);
            if (type == null) {
                throw new MalformedFrameException("unknown frame type " + code);
            }
            try {
                return Codec.decode(type, frame);
            } catch (IndexOutOfBoundsException e) {
                throw new MalformedFrameException(type + " frame is truncated: " + e.getMessage());
            }
        } finally {
            frame.release();
        }
    }

    @Override
    protected long getUnadjustedFrameLength(ByteBuf buf, int offset, int length, java.nio.ByteOrder order) {
        long frameLength = super.getUnadjustedFrameLength(buf, offset, length, order);
        if (frameLength < 1) {
            throw new MalformedFrameException("frame length " + frameLength + " is less than the 1-byte type");
        }
        return frameLength;
    }
}
