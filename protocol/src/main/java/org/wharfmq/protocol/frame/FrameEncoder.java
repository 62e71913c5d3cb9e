package org.wharfmq.protocol.frame;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageEncoder;

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
        ByteBuf body = null;
        if (frame instanceof Frame.Send s) {
            body = s.message();
        } else if (frame instanceof Frame.Deliver d) {
            body = d.message();
        }
        ByteBuf header = ctx.alloc().ioBuffer(body == null ? 64 : 32);
        try {
            header.writeInt(0);
            header.writeByte(frame.type().code());
            frame.writePayload(header);
        } catch (RuntimeException e) {
            header.release();
            if (body != null) {
                body.release();
            }
            throw e;
        }
        int length = header.readableBytes() - 4 + (body == null ? 0 : body.readableBytes());
        header.setInt(0, length);
        out.add(header);
        if (body != null) {
            out.add(body);
        }
    }
}
