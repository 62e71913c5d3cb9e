package org.wharfmq.server.session;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.WireXid;
import org.wharfmq.server.WharfException;
import org.wharfmq.server.queue.QueueManager;
import org.wharfmq.server.security.ConnectionAccess;
import org.wharfmq.server.topic.TopicManager;

import java.util.List;

/**
 * Puts the queue manager's own code makes inside the queue manager, outside any unit of work, through a session of a
 * connection, on that connection's event loop: a SEND as a client's (the same {@link BrokerSession#send}: its checks,
 * its routing to a queue, a transmission queue or a topic's subscriptions), with no frame, no encoding and no thread
 * hand-off. A refusal is thrown at once; a non-persistent message is on its queue when {@link #put} returns, a
 * persistent one once the journal has it (a failure to store it is logged, as for any SEND, not thrown). A receiver
 * channel puts the non-persistent messages its partner sends outside the batches ({@code nonPersistentSpeed: fast})
 * this way, through a session of the partner's own connection ({@code ChannelAcceptor.Peer#put}).
 *
 * <p>The session has its own {@link ConnectionAccess} (the caller's: the queue manager's own, for a channel, which
 * has checked the partner's authority itself); its producer credit goes nowhere (the caller does not wait for it, as
 * a receiver channel never waits for the queue manager's flow control). Owned by the connection's event loop: every
 * method runs there.
 */
public final class InProcessPuts {

    /** The request id of every put: not 0, so that its answer comes back to {@link Answer}. */
    private static final int REQUEST = 1;

    private final Answer answer = new Answer();
    private final BrokerSession session;
    private final Channel channel;

    /**
     * @param channel the connection whose event loop runs the puts (and whose allocator a transmission header uses)
     * @param access  the authority the puts are made with
     */
    public InProcessPuts(Channel channel, QueueManager queueManager, TopicManager topics, int maxMessageLength,
                         int producerWindow, long fanOutWindow, ConnectionAccess access) {
        this.channel = channel;
        this.session = new BrokerSession(0, false, null, channel, answer, queueManager, topics, null,
                maxMessageLength, producerWindow, fanOutWindow, access);
    }

    /**
     * Puts {@code message} now: a non-persistent one is on its queue (or its topic's subscriptions) when this returns.
     * Takes over the reference to {@code message}.
     *
     * @throws WharfException why it was refused (its queue full, no such queue, too long ...): nothing was put
     */
    public void put(ByteBuf message) {
        assert channel.eventLoop().inEventLoop() : "an in-process put off its connection's event loop";
        answer.refused = null; // a store failure of an earlier persistent put, logged already
        session.send(REQUEST, 0, message);
        WharfException refused = answer.refused;
        if (refused != null) {
            answer.refused = null;
            throw refused;
        }
    }

    /** Closes the session; on the event loop, as the connection ends. */
    public void close() {
        session.close(0, false);
    }

    /** The refusal of the put under way, kept; nothing is written. */
    private static final class Answer extends Replies {
        private WharfException refused;

        Answer() {
            super(null);
        }

        @Override
        public void ok(int requestId) {
            // put, or on its way to the journal
        }

        @Override
        public void error(int requestId, ErrorCode code, String message, int sessionId, int producerId) {
            refused = new WharfException(code, message);
        }

        @Override
        public void xaResult(int requestId, int result, List<WireXid> xids) {
            throw new IllegalStateException("An in-process session takes no part in XA");
        }

        @Override
        void producerCredit(int sessionId, int bytes) {
            // nobody waits for it: the puts are the queue manager's own
        }
    }
}
