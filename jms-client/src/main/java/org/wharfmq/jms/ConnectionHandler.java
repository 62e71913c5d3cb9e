package org.wharfmq.jms;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.timeout.IdleState;
import io.netty.handler.timeout.IdleStateEvent;
import org.wharfmq.protocol.frame.Frame;

import java.nio.channels.ClosedChannelException;
import java.util.concurrent.CompletableFuture;

/**
 * The last handler of a client channel: completes the HELLO handshake, then hands every frame to its
 * connection. Runs on the IO thread, so it only routes: messages go into consumer buffers and answers complete
 * futures; application code never runs here.
 */
final class ConnectionHandler extends ChannelInboundHandlerAdapter {
    private final WharfConnection connection;
    private final CompletableFuture<Frame.HelloOk> hello = new CompletableFuture<>();
    private volatile boolean established;

    ConnectionHandler(WharfConnection connection) {
        this.connection = connection;
    }

    /** Completes with the server's HELLO_OK, or exceptionally with the reason the handshake failed. */
    CompletableFuture<Frame.HelloOk> hello() {
        return hello;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        Frame frame = (Frame) msg;
        if (!established) {
            handshake(ctx, frame);
            return;
        }
        if (frame instanceof Frame.Deliver d) {
            connection.onDeliver(d);
        } else if (frame instanceof Frame.Ok ok) {
            connection.onAnswer(ok.requestId(), null);
        } else if (frame instanceof Frame.PullDone done) {
            connection.onPullDone(done);
        } else if (frame instanceof Frame.ConsumerFailed failed) {
            connection.onConsumerFailed(failed);
        } else if (frame instanceof Frame.Error error) {
            connection.onError(error);
        } else if (!(frame instanceof Frame.Ping)) {
            connection.onProtocolViolation("the server sent an unexpected " + frame.type() + " frame");
            ctx.close();
        }
    }

    private void handshake(ChannelHandlerContext ctx, Frame frame) {
        if (frame instanceof Frame.HelloOk ok) {
            established = true;
            hello.complete(ok);
        } else if (frame instanceof Frame.Error error) {
            hello.completeExceptionally(JmsErrors.toException(error));
            ctx.close();
        } else {
            hello.completeExceptionally(new IllegalStateException("expected HELLO_OK, got " + frame.type()));
            ctx.close();
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof IdleStateEvent idle) {
            if (idle.state() == IdleState.WRITER_IDLE) {
                ctx.writeAndFlush(Frame.Ping.INSTANCE, ctx.voidPromise());
            } else if (idle.state() == IdleState.READER_IDLE) {
                connection.onHeartbeatTimeout();
                ctx.close();
            }
            return;
        }
        super.userEventTriggered(ctx, evt);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        if (!established) {
            hello.completeExceptionally(new ClosedChannelException());
        } else {
            connection.onChannelClosed();
        }
        super.channelInactive(ctx);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof ClosedChannelException) {
            return; // a write raced with the close; the close itself is reported by channelInactive
        }
        if (!established) {
            hello.completeExceptionally(cause);
        } else {
            connection.onTransportError(cause);
        }
        ctx.close();
    }
}
