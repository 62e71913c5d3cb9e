package org.wharfmq.protocol.frame;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageEncoder;
import org.wharfmq.protocol.message.TransmissionHeader;

import java.util.List;

/**
 * Writes {@link Frame}s as {@code int length | byte type | payload}. For SEND and DELIVER the message bytes are
 * not copied: the small header buffer and the frame's message buffer go to the channel one after the other and
 * leave in one gathering write.
 */
@ChannelHandler.Sharable
public final class FrameEncoder extends MessageToMessageEncoder<Frame> {

    /** Stateless, so one instance serves every channel. */
    public static final FrameEncoder INSTANCE = new FrameEncoder();

    private FrameEncoder() {
        super(Frame.class);
    }

    @Override
    protected void encode(ChannelHandlerContext ctx, Frame frame, List<Object> out) {
        ByteBuf body = messageOf(frame);
        ByteBuf header = ctx.alloc().ioBuffer(body == null ? 64 : 32);
        try {
            writeHeader(frame, header);
        } catch (RuntimeException e) {
            header.release();
            if (body != null) {
                body.release();
            }
            throw e;
        }
        out.add(header);
        TransmissionHeader.Addressed addressed = addressedOf(frame);
        if (addressed != null) {
            try {
                out.add(addressed.wrap(ctx.alloc(), Integer.MAX_VALUE)); // one buffer: no run here to write it into
            } finally {
                body.release();
            }
        } else if (body != null) {
            out.add(body);
        }
    }

    /** The message bytes a SEND, DELIVER, DELIVER_KEEP, CHANNEL_MESSAGE or CHANNEL_FAST_MESSAGE frame carries after its header, or null for every other frame. */
    public static ByteBuf messageOf(Frame frame) {
        if (frame instanceof Frame.Send s) {
            return s.message();
        }
        if (frame instanceof Frame.Deliver d) {
            return d.message();
        }
        if (frame instanceof Frame.DeliverKeep k) {
            return k.message();
        }
        if (frame instanceof Frame.ChannelMessage m) {
            return m.message();
        }
        if (frame instanceof Frame.ChannelFastMessage m) {
            return m.message();
        }
        return null;
    }

    /**
     * The transmission header a CHANNEL_FAST_MESSAGE frame writes before its message's body as it is encoded
     * ({@link Frame.ChannelFastMessage#addressed}), or null: the frame's message ({@link #messageOf}) goes as it is.
     */
    public static TransmissionHeader.Addressed addressedOf(Frame frame) {
        return frame instanceof Frame.ChannelFastMessage m ? m.addressed() : null;
    }

    /** The bytes of the message the frame carries on the wire after its header: 0 for a frame without one. */
    public static int messageLength(Frame frame) {
        TransmissionHeader.Addressed addressed = addressedOf(frame);
        if (addressed != null) {
            return addressed.length();
        }
        ByteBuf body = messageOf(frame);
        return body == null ? 0 : body.readableBytes();
    }

    /**
     * Appends everything of {@code frame} but its message bytes ({@link #messageOf}) to {@code out}: the length
     * (which counts the message bytes that must follow), the type byte and the payload. Neither releases nor
     * reads the message bytes.
     */
    public static void writeHeader(Frame frame, ByteBuf out) {
        int start = out.writerIndex();
        out.writeInt(0);
        out.writeByte(frame.type().code());
        frame.writePayload(out);
        int length = out.writerIndex() - start - 4 + messageLength(frame);
        out.setInt(start, length);
    }
}
