package org.wharfmq.server.transport;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.timeout.IdleStateEvent;
import org.wharfmq.protocol.ProtocolVersion;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.server.Configuration;
import org.wharfmq.server.config.ServerConfig;
import org.wharfmq.server.security.Identity;

/**
 * The first frame on a connection must be HELLO in protocol version 1. The answer is HELLO_OK with the queue
 * manager's name, the agreed heartbeat (the smaller non-zero one of the client's and the server's) and the maximum
 * message length; then this handler replaces the handshake timeout with the {@link HeartbeatHandler} (or removes it when
 * neither side wants one) and hands the connection to a {@link ServerConnection}.
 * Anything else first is a PROTOCOL_ERROR; a connection that says nothing within
 * {@link Configuration#HANDSHAKE_TIMEOUT_MILLIS} is closed.
 *
 * <p>No users are configured yet, so every user name and password is accepted.
 */
final class HandshakeHandler extends ChannelInboundHandlerAdapter {

    private static final System.Logger LOG = System.getLogger(HandshakeHandler.class.getName());

    private final ServerContext context;

    HandshakeHandler(ServerContext context) {
        this.context = context;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (ProtocolFailures.isClosing(ctx)) {
            ProtocolFailures.discard(msg);
            return;
        }
        if (!(msg instanceof Frame.Hello hello)) {
            ProtocolFailures.discard(msg);
            ProtocolFailures.protocolError(ctx, "the first frame must be HELLO, not " + ((Frame) msg).type());
            return;
        }
        if (hello.version() != ProtocolVersion.CURRENT) {
            LOG.log(System.Logger.Level.INFO, "Refusing " + ctx.channel().remoteAddress() + ": protocol version "
                    + hello.version());
            ProtocolFailures.closeWith(ctx, ErrorCode.UNSUPPORTED_VERSION, "Protocol version " + hello.version()
                    + " is not supported: this queue manager speaks version " + ProtocolVersion.CURRENT + ".");
            return;
        }
        ServerConfig config = context.config();
        int heartbeat = agreedHeartbeat(hello.heartbeatMillis(), config.heartbeatMillis());
        ctx.writeAndFlush(new Frame.HelloOk(ProtocolVersion.CURRENT, config.name(), context.serverVersion(), heartbeat,
                config.maxMessageLength()), ctx.voidPromise());
        if (heartbeat > 0) {
            ctx.pipeline().replace(ServerChannelInitializer.IDLE, "heartbeat", new HeartbeatHandler(heartbeat, hello.clientName()));
        } else {
            ctx.pipeline().remove(ServerChannelInitializer.IDLE);
        }
        ctx.pipeline().replace(this, "connection", new ServerConnection(context, hello.clientName(), Identity.ANONYMOUS));
    }

    /** The smaller non-zero interval of the two; 0 when both sides want none. */
    static int agreedHeartbeat(int client, int server) {
        if (client <= 0) {
            return Math.max(server, 0);
        }
        if (server <= 0) {
            return client;
        }
        return Math.min(client, server);
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof IdleStateEvent) {
            LOG.log(System.Logger.Level.INFO, "Closing connection from " + ctx.channel().remoteAddress()
                    + ": no HELLO within " + Configuration.HANDSHAKE_TIMEOUT_MILLIS + " ms");
            ctx.close();
        } else {
            ctx.fireUserEventTriggered(evt);
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ProtocolFailures.handle(ctx, cause, false, context.config().maxMessageLength());
    }
}
