package org.wharfmq.server.transport;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.concurrent.ScheduledFuture;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.server.security.AuditLog;

import java.util.concurrent.TimeUnit;

/**
 * Stands in for the {@link HandshakeHandler} on a connection {@link ConnectionLimits} refused: writes the audit line,
 * answers the client's first frame (its HELLO) with ERROR TOO_MANY_CONNECTIONS saying which limit, the count and the
 * setting, and closes. The answer waits for the HELLO so that it goes out over TLS on a TLS listener, and so that the
 * server never closes a socket with the client's HELLO unread (the reset that would cause can destroy the answer before
 * the client reads it). A peer that sends nothing is closed at the handshake timeout, as any other.
 */
final class ConnectionRefusal extends ChannelInboundHandlerAdapter {

    private final String refusal;
    private final int timeoutMillis;
    private ScheduledFuture<?> deadline;

    /** @param refusal what the client is told; {@code timeoutMillis} the handshake timeout */
    ConnectionRefusal(String refusal, int timeoutMillis) {
        this.refusal = refusal;
        this.timeoutMillis = timeoutMillis;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        AuditLog.connectionRefused(ctx.channel().remoteAddress(), refusal);
        deadline = ctx.executor().schedule((Runnable) ctx::close, timeoutMillis, TimeUnit.MILLISECONDS);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ProtocolFailures.discard(msg);
        if (!ProtocolFailures.isClosing(ctx)) {
            ProtocolFailures.closeWith(ctx, ErrorCode.TOO_MANY_CONNECTIONS, refusal);
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        deadline.cancel(false);
        ctx.fireChannelInactive();
    }

    /** Bytes that are not a HELLO, a reset, a failed TLS handshake: the connection is refused already, so just close. */
    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ctx.close();
    }
}
