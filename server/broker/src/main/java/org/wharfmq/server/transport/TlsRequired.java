package org.wharfmq.server.transport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.frame.FrameEncoder;

import java.util.List;

/**
 * The first handler of a TLS listener's connection, until its first bytes arrive: a TLS record puts the listener's
 * {@link SslHandler} in its place (first in the pipeline, as Netty wants it), handed the bytes read so far. Anything
 * else is a client speaking plain Wharf (or something else) to the TLS port: it is answered, in plain text it can
 * read, with ERROR PROTOCOL_ERROR saying the port speaks TLS and how to connect, and closed. Without this, such a
 * client would see its connection drop with no reason.
 */
final class TlsRequired extends ByteToMessageDecoder {

    private static final System.Logger LOG = System.getLogger(TlsRequired.class.getName());
    /** A TLS record header: content type, version, length. */
    private static final int RECORD_HEADER = 5;

    private final SslContext sslContext;

    TlsRequired(SslContext sslContext) {
        this.sslContext = sslContext;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (in.readableBytes() < RECORD_HEADER) {
            return;
        }
        if (SslHandler.isEncrypted(in, false)) { // false: SSLv2 hellos are not TLS 1.2+ clients
            ctx.pipeline().replace(this, ServerChannelInitializer.SSL, sslContext.newHandler(ctx.alloc()));
            return;
        }
        in.skipBytes(in.readableBytes());
        int port = ((java.net.InetSocketAddress) ctx.channel().localAddress()).getPort();
        LOG.log(System.Logger.Level.INFO, "Closing connection from " + ctx.channel().remoteAddress() + ": it does not "
                + "speak TLS on the TLS port " + port);
        ctx.channel().config().setAutoRead(false);
        Frame.Error error = new Frame.Error(0, ErrorCode.PROTOCOL_ERROR, "Port " + port + " of this queue manager "
                + "speaks TLS only: connect with ssl://HOST:" + port + " (or tcp://HOST:" + port + "?ssl=true), or to "
                + "its plain port with tcp://. The connection is closed.", 0, 0);
        ByteBuf frame = ctx.alloc().heapBuffer(128);
        FrameEncoder.writeHeader(error, frame);
        // written from this handler's place, so it passes no SslHandler and no FrameEncoder: plain bytes
        ctx.writeAndFlush(frame).addListener(ChannelFutureListener.CLOSE);
    }
}
