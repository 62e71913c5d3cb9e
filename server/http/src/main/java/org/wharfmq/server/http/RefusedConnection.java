package org.wharfmq.server.http;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;

/**
 * The whole pipeline (but TLS) of an HTTP connection past the server's connection limits ({@code maxConnections},
 * {@code maxConnectionsPerAddress}, counted for the HTTP listener on their own): answers 503 with the refusal, which
 * names the limit, the count and the setting, and closes; what the caller sent meanwhile is read and dropped (left
 * unread, it would make the caller's socket reset before it reads the answer).
 */
final class RefusedConnection extends ChannelInboundHandlerAdapter {

    private final String refusal;

    RefusedConnection(String refusal) {
        this.refusal = refusal;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        RawAnswer.writeAndClose(ctx, "503 Service Unavailable", refusal);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ReferenceCountUtil.release(msg);
    }
}
