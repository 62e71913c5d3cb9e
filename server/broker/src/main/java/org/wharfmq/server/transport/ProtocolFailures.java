package org.wharfmq.server.transport;

import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.util.AttributeKey;
import io.netty.util.ReferenceCountUtil;
import org.wharfmq.protocol.frame.ErrorCode;
import io.netty.buffer.ByteBuf;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.frame.FrameEncoder;
import org.wharfmq.protocol.frame.MalformedFrameException;
import org.wharfmq.server.Configuration;

import javax.net.ssl.SSLException;
import java.io.IOException;
import java.nio.channels.ClosedChannelException;

/**
 * What the server does when a connection misbehaves, the same before and after the handshake:
 * <ul>
 *   <li>a frame over the size limit: the decoder has skipped it; answer ERROR MESSAGE_TOO_LARGE (request id 0)
 *       and carry on. Before the handshake completes the limit is {@link Configuration#HANDSHAKE_MAX_FRAME_LENGTH},
 *       which no handshake frame comes near: a longer length prefix is a protocol error, refused from the prefix alone
 *       (nothing of the frame is buffered), and the connection is closed.</li>
 *   <li>a malformed frame: ERROR PROTOCOL_ERROR saying what was wrong, then close this connection only. One log
 *       line, no stack trace: a broken client must not be able to flood the log.</li>
 *   <li>an I/O error (peer reset): close quietly.</li>
 *   <li>a failed TLS handshake: one INFO line with the reason, close (the client's TLS stack got the alert).</li>
 *   <li>anything else is a server bug: logged with its stack trace, ERROR INTERNAL_ERROR, close.</li>
 * </ul>
 */
final class ProtocolFailures {

    private static final System.Logger LOG = System.getLogger(ProtocolFailures.class.getName());
    private static final AttributeKey<Boolean> CLOSING = AttributeKey.valueOf(ProtocolFailures.class, "closing");

    private ProtocolFailures() {
    }

    /** True once the connection is being closed for a failure: later frames are dropped unprocessed. */
    static boolean isClosing(ChannelHandlerContext ctx) {
        return ctx.channel().hasAttr(CLOSING);
    }

    /** Handles an exception that reached a handler's {@code exceptionCaught}. */
    static void handle(ChannelHandlerContext ctx, Throwable cause, boolean handshakeDone, int maxMessageLength) {
        if (isClosing(ctx) || cause instanceof ClosedChannelException) {
            return;
        }
        if (cause instanceof DecoderException && cause.getCause() instanceof SSLException tls) {
            // a TLS handshake that failed (untrusted client certificate, no common protocol): the client's TLS stack
            // has the alert; nothing readable can be sent on a connection without TLS keys
            LOG.log(System.Logger.Level.INFO, () -> "TLS with " + ctx.channel().remoteAddress() + " failed: " + tls.getMessage());
            ctx.channel().attr(CLOSING).set(Boolean.TRUE);
            ctx.close();
        } else if (cause instanceof TooLongFrameException) {
            if (handshakeDone) {
                int limit = maxMessageLength + Configuration.FRAME_OVERHEAD_ALLOWANCE;
                ctx.writeAndFlush(new Frame.Error(0, ErrorCode.MESSAGE_TOO_LARGE, "A frame longer than " + limit
                        + " bytes was received and discarded: the maximum message length is " + maxMessageLength
                        + " bytes (setting maxMessageLength). Send a smaller message, or raise maxMessageLength in"
                        + " the server's configuration.", 0, 0), ctx.voidPromise());
            } else {
                protocolError(ctx, "a frame longer than " + Configuration.HANDSHAKE_MAX_FRAME_LENGTH + " bytes was"
                        + " announced before the handshake completed; until HELLO_OK frames are limited to "
                        + Configuration.HANDSHAKE_MAX_FRAME_LENGTH + " bytes, which every HELLO, AUTH and AUTH_RESPONSE"
                        + " fits, so this is not a Wharf HELLO or the client did not wait for HELLO_OK");
            }
        } else if (cause instanceof MalformedFrameException) {
            protocolError(ctx, cause.getMessage());
        } else if (cause instanceof DecoderException) {
            Throwable inner = cause.getCause() != null ? cause.getCause() : cause;
            protocolError(ctx, inner.getMessage());
        } else if (cause instanceof IOException) {
            LOG.log(System.Logger.Level.DEBUG, () -> "Connection from " + ctx.channel().remoteAddress() + " failed: " + cause);
            ctx.close();
        } else {
            LOG.log(System.Logger.Level.ERROR, "Unexpected failure on connection from " + ctx.channel().remoteAddress()
                    + "; closing it", cause);
            closeWith(ctx, ErrorCode.INTERNAL_ERROR, "Internal error in the queue manager: " + cause
                    + ". The connection is closed.");
        }
    }

    /** Answers ERROR PROTOCOL_ERROR saying {@code what} was wrong and closes this connection. */
    static void protocolError(ChannelHandlerContext ctx, String what) {
        if (isClosing(ctx)) {
            return;
        }
        LOG.log(System.Logger.Level.WARNING, "Closing connection from " + ctx.channel().remoteAddress()
                + ": protocol error: " + what);
        closeWith(ctx, ErrorCode.PROTOCOL_ERROR, "Protocol error: " + what + ". The connection is closed.");
    }

    /** Answers ERROR with the code and message, then closes this connection; frames still arriving are dropped. */
    static void closeWith(ChannelHandlerContext ctx, ErrorCode code, String message) {
        ctx.channel().attr(CLOSING).set(Boolean.TRUE);
        ctx.channel().config().setAutoRead(false);
        ctx.writeAndFlush(new Frame.Error(0, code, message, 0, 0)).addListener(ChannelFutureListener.CLOSE);
    }

    /** Releases a frame that will not be processed (SEND, DELIVER and CHANNEL_MESSAGE own a buffer). */
    static void discard(Object frame) {
        ByteBuf message = frame instanceof Frame f ? FrameEncoder.messageOf(f) : null;
        if (message != null) {
            message.release();
        } else {
            ReferenceCountUtil.release(frame);
        }
    }
}
