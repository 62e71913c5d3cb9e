package org.wharfmq.server.transport;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.timeout.IdleState;
import io.netty.handler.timeout.IdleStateEvent;
import org.wharfmq.protocol.Heartbeat;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.frame.HeartbeatIdleHandler;

/**
 * The heartbeat agreed in HELLO_OK, as a pipeline stage of its own, by the protocol's rule ({@link Heartbeat}): a
 * PING goes out when nothing was written for one interval, and a connection from which nothing was read for
 * {@link Heartbeat#MISSED_BEFORE_DEAD} intervals is closed (its sessions are then released like those of any connection that ends). Every frame read
 * counts, a PING as much as a SEND; the connection itself has nothing to do with a PING. A connection the server does
 * not read because it does not take its answers ({@link OutboundLimit}) is not silent while it takes some of them
 * between two looks; one that takes nothing for the dead interval is closed.
 *
 * <p>Nothing was written is judged by flushes, not by each write ({@link HeartbeatIdleHandler} says why).
 *
 * <p>The handshake adds it once it has answered HELLO_OK, unless neither side wants a heartbeat. Runs on the
 * connection's event loop.
 */
final class HeartbeatHandler extends HeartbeatIdleHandler {

    private static final System.Logger LOG = System.getLogger(HeartbeatHandler.class.getName());

    private final int intervalMillis;
    private final String clientName;

    /**
     * @param intervalMillis the agreed interval, more than 0
     * @param clientName     the name the client gave in HELLO, for the log
     */
    HeartbeatHandler(int intervalMillis, String clientName) {
        super(intervalMillis);
        this.intervalMillis = intervalMillis;
        this.clientName = clientName;
    }

    @Override
    protected void channelIdle(ChannelHandlerContext ctx, IdleStateEvent idle) {
        if (idle.state() == IdleState.WRITER_IDLE) {
            ctx.writeAndFlush(Frame.Ping.INSTANCE, ctx.voidPromise());
        } else if (idle.state() == IdleState.READER_IDLE) {
            OutboundLimit outbound = ctx.pipeline().get(OutboundLimit.class);
            if (outbound != null && outbound.peerTakesAnswers(ctx.channel())) {
                return; // not read because the server holds its reading, and the peer still takes what is sent
            }
            LOG.log(System.Logger.Level.WARNING, "Closing connection from " + ctx.channel().remoteAddress() + " ("
                    + clientName + "): nothing received for " + Heartbeat.deadAfterMillis(intervalMillis) + " ms ("
                    + Heartbeat.MISSED_BEFORE_DEAD + " heartbeat intervals)");
            ctx.close();
        }
    }
}
