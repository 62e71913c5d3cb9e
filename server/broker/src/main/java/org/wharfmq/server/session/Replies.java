package org.wharfmq.server.session;

import io.netty.channel.Channel;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.frame.WireXid;
import org.wharfmq.server.WharfException;

import java.util.List;

/**
 * Writes the answers to a connection's requests: OK, or ERROR with the code and message of a
 * {@link WharfException}, and its sessions' producer credit. Safe to use from any thread (a write from outside the
 * channel's event loop is queued to it), which is how store completions answer. {@link InProcessPuts} answers its
 * session's puts to itself instead: no frame is written.
 */
public class Replies {

    private final Channel channel;

    /** Answers on {@code channel}. */
    public Replies(Channel channel) {
        this.channel = channel;
    }

    /** Answers OK, unless the request was fire-and-forget (request id 0). */
    public void ok(int requestId) {
        if (requestId != 0) {
            channel.writeAndFlush(new Frame.Ok(requestId), channel.voidPromise());
        }
    }

    /** Answers an XA_PREPARE or XA_RECOVER: {@code result} and, for XA_RECOVER, the Xids of the prepared branches. */
    public void xaResult(int requestId, int result, List<WireXid> xids) {
        channel.writeAndFlush(new Frame.XaResult(requestId, result, xids), channel.voidPromise());
    }

    /**
     * Answers ERROR. For a fire-and-forget request (id 0) the error is still sent, with request id 0, so the
     * client can raise it from the session's next call; {@code sessionId} and {@code producerId} say whose.
     */
    public void error(int requestId, WharfException e, int sessionId, int producerId) {
        error(requestId, e.code(), e.getMessage(), sessionId, producerId);
    }

    /** Answers ERROR with an explicit code and message. */
    public void error(int requestId, ErrorCode code, String message, int sessionId, int producerId) {
        channel.writeAndFlush(new Frame.Error(requestId, code, message, sessionId, producerId), channel.voidPromise());
    }

    /** Gives session {@code sessionId}'s producers {@code bytes} more credit (PRODUCER_CREDIT). */
    void producerCredit(int sessionId, int bytes) {
        channel.writeAndFlush(new Frame.ProducerCredit(sessionId, bytes), channel.voidPromise());
    }
}
