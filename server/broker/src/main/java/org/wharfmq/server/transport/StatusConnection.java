package org.wharfmq.server.transport;

import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.server.WharfException;
import org.wharfmq.server.security.AccessControl;
import org.wharfmq.server.security.AuditLog;
import org.wharfmq.server.security.Identity;
import org.wharfmq.server.security.Permission;

import java.util.Set;

/**
 * A replica's status session after HELLO_OK (docs/protocol.md, "Status sessions"): STATUS_REQUEST for a read-only
 * admin command ({@link #READ_ONLY}), checked against the {@code monitor} permission each time (the rules may have been
 * reloaded since the handshake checked it) and answered STATUS_REPLY; any other command is refused NOT_ACTIVE, naming
 * the active member and the fix; PING and CLOSE as on any connection. Any other frame (a session, a producer, a
 * consumer, a browser, a send) has no place here: refused NOT_ACTIVE and the connection closed. Each refusal is an
 * audit line. Owned by the connection's event loop.
 */
final class StatusConnection extends ChannelInboundHandlerAdapter {

    /** The admin commands a status session runs: those that change nothing and read no message. */
    static final Set<String> READ_ONLY = Set.of("display-server");

    private final String queueManager;
    private final AccessControl access;
    private final Identity identity;
    private final ReplicaStatus status;
    private final Runnable giveBack;
    private final int maxMessageLength;
    private ChannelHandlerContext ctx;

    StatusConnection(String queueManager, AccessControl access, Identity identity, ReplicaStatus status,
                     Runnable giveBack, int maxMessageLength) {
        this.queueManager = queueManager;
        this.maxMessageLength = maxMessageLength;
        this.access = access;
        this.identity = identity;
        this.status = status;
        this.giveBack = giveBack;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (ProtocolFailures.isClosing(ctx)) {
            ProtocolFailures.discard(msg);
        } else if (msg instanceof Frame.StatusRequest request) {
            onRequest(request);
        } else if (msg instanceof Frame.Close close) {
            giveBack.run();
            ctx.writeAndFlush(new Frame.Ok(close.requestId())).addListener(ChannelFutureListener.CLOSE);
        } else if (!(msg instanceof Frame.Ping)) { // a ping has reset the heartbeat's read timer: nothing to answer
            ProtocolFailures.discard(msg);
            String frame = ((Frame) msg).type().name();
            AuditLog.refused(identity, ctx.channel().remoteAddress(), frame + " in the status session of a replica of "
                    + "queue manager " + queueManager + " (it takes STATUS_REQUEST, PING and CLOSE only)");
            ProtocolFailures.closeWith(ctx, ErrorCode.NOT_ACTIVE, frame + " is refused: this connection is a status "
                    + "session with a replica of queue manager " + queueManager + ", which serves no applications (no "
                    + "sessions, producers, consumers or browsers) and runs read-only admin commands alone. "
                    + status.activeMember() + " Connect to the active member to do more. The connection is closed.");
        }
    }

    private void onRequest(Frame.StatusRequest request) {
        try {
            access.check(identity, Permission.MONITOR, null, ctx.channel().remoteAddress());
        } catch (WharfException denied) { // audited by the check
            error(request, denied.code(), denied.getMessage());
            return;
        }
        if (!READ_ONLY.contains(request.command())) {
            AuditLog.refused(identity, ctx.channel().remoteAddress(), "'" + request.command() + "' in the status "
                    + "session of a replica of queue manager " + queueManager + " (it runs " + READ_ONLY + " only)");
            error(request, ErrorCode.NOT_ACTIVE, "'" + request.command() + "' is not run here: this member of queue "
                    + "manager " + queueManager + " is a replica, and answers only for its own status ('display "
                    + "server'). " + status.activeMember() + " Run the command against the active member's client "
                    + "address (tcp://HOST:PORT), or give wharf admin every member's (--url tcp://HOST1:PORT,"
                    + "tcp://HOST2:PORT,tcp://HOST3:PORT) and it goes to the active one.");
            return;
        }
        String reply = "{\"command\":\"" + request.command() + "\",\"ok\":true,\"result\":" + status.displayServer()
                + "}";
        ctx.writeAndFlush(new Frame.StatusReply(request.requestId(), reply), ctx.voidPromise());
    }

    private void error(Frame.StatusRequest request, ErrorCode code, String message) {
        ctx.writeAndFlush(new Frame.Error(request.requestId(), code, message, 0, 0), ctx.voidPromise());
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ProtocolFailures.handle(ctx, cause, true, maxMessageLength);
    }
}
