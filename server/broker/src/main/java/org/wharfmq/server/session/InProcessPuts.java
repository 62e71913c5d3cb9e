package org.wharfmq.server.session;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.WireXid;
import org.wharfmq.protocol.message.MessageHeaders;
import org.wharfmq.protocol.message.WireDestination;
import org.wharfmq.protocol.selector.Selector;
import org.wharfmq.server.WharfException;
import org.wharfmq.server.queue.LocalQueue;
import org.wharfmq.server.queue.QueueManager;
import org.wharfmq.server.queue.QueuedMessage;
import org.wharfmq.server.security.ConnectionAccess;
import org.wharfmq.server.topic.TopicManager;

import java.util.List;
import java.util.function.Consumer;

/**
 * Puts the queue manager's own code makes inside the queue manager through a session of a connection, on that
 * connection's event loop: a SEND as a client's (the same {@link BrokerSession#send}: its checks, its routing to a
 * queue, a transmission queue or a topic's subscriptions), with no frame, no encoding and no thread hand-off. A
 * refusal is thrown at once.
 *
 * <ul>
 *   <li><b>Outside any unit of work</b> ({@code transacted} false): a non-persistent message is on its queue when
 *       {@link #put} returns, a persistent one once the journal has it (a failure to store it is logged, as for any
 *       SEND, not thrown). A receiver channel puts the non-persistent messages its partner sends outside the batches
 *       ({@code nonPersistentSpeed: fast}) this way.</li>
 *   <li><b>Transacted</b>: the puts wait in the session's transaction until {@link #commit}, which may also take one
 *       message off a queue in the same transaction (a receiver channel's previous sync record), all in one journal
 *       transaction, and answers, by request id inside, once it is durable. A receiver channel puts its batches this
 *       way.</li>
 * </ul>
 * A receiver channel's puts go through sessions of the partner's own connection ({@code ChannelAcceptor.Peer}).
 *
 * <p>The session has its own {@link ConnectionAccess} (the caller's: the queue manager's own, for a channel, which
 * has checked the partner's authority itself); its producer credit goes nowhere (the caller does not wait for it, as
 * a receiver channel never waits for the queue manager's flow control). Owned by the connection's event loop: every
 * method runs there, and so do the answers to commits.
 */
public final class InProcessPuts {

    /** The request id of every put: not 0, so that its refusal comes back to {@link Answer}. */
    private static final int PUT = 1;
    /** The request id of a commit, whose answer goes to {@link #committed}. */
    private static final int COMMIT = 2;
    /** The request id of a rollback, whose answer nobody waits for. */
    private static final int ROLLBACK = 3;

    private final Answer answer = new Answer();
    private final BrokerSession session;
    private final Channel channel;
    private final QueueManager queueManager;
    /** Told how the commit under way ended; null when none is. */
    private Consumer<WharfException> committed;

    /**
     * @param channel    the connection whose event loop runs the puts (and whose allocator a transmission header uses)
     * @param access     the authority the puts are made with
     * @param transacted whether the puts wait for {@link #commit}
     */
    public InProcessPuts(Channel channel, QueueManager queueManager, TopicManager topics, int maxMessageLength,
                         int producerWindow, long fanOutWindow, ConnectionAccess access, boolean transacted) {
        this.channel = channel;
        this.queueManager = queueManager;
        this.session = new BrokerSession(0, transacted, null, channel, answer, queueManager, topics, null,
                maxMessageLength, producerWindow, fanOutWindow, access);
    }

    /**
     * Puts {@code message} now: outside a unit of work a non-persistent one is on its queue (or its topic's
     * subscriptions) when this returns; in a transacted session it waits for {@link #commit}. Takes over the
     * reference to {@code message}. {@code headers}: its headers when the caller has read them already
     * ({@link MessageHeaders#read} of these very bytes), so that they are not read again; null to read them here.
     *
     * @throws WharfException why it was refused (its queue full, no such queue, too long ...): nothing of it was put
     *                        (a transaction's earlier puts stay in it)
     */
    public void put(ByteBuf message, MessageHeaders headers) {
        assert channel.eventLoop().inEventLoop() : "an in-process put off its connection's event loop";
        answer.refused = null; // a store failure of an earlier persistent put, logged already
        session.send(PUT, 0, message, headers);
        WharfException refused = answer.refused;
        if (refused != null) {
            answer.refused = null;
            throw refused;
        }
    }

    /**
     * Commits the transaction's puts, and takes off queue {@code queue} the one message waiting there that
     * {@code taking} selects (the first, when several do), in the same journal transaction; {@code done} runs on the
     * event loop once the commit is durable (with null), or once nothing of it was committed (with why). A transacted
     * session's; one commit at a time. With {@code taking} null nothing is taken; when it selects no message waiting
     * there, nothing is committed and {@code done} is told so (the message was expected).
     */
    public void commit(String queue, Selector taking, Consumer<WharfException> done) {
        assert channel.eventLoop().inEventLoop() : "an in-process commit off its connection's event loop";
        if (committed != null) {
            throw new IllegalStateException("A commit of this session is under way: one commit at a time");
        }
        List<QueuedMessage> taken = List.of();
        if (taking != null) {
            LocalQueue from = queueManager.named(WireDestination.queue(queue));
            taken = from == null ? List.of() : from.takeWaiting(taking, 1);
            if (taken.isEmpty()) {
                rollback();
                done.accept(WharfException.illegalState("The message of queue '" + queue + "' that this commit"
                        + " takes is not waiting there" + (from == null ? " (there is no such queue)" : "")
                        + ": nothing was committed."));
                return;
            }
        }
        committed = done;
        session.commitTaking(COMMIT, taken);
    }

    /** Drops the transaction's puts: nothing of them becomes visible. A transacted session's. */
    public void rollback() {
        session.rollback(ROLLBACK, List.of());
    }

    /** Closes the session (an open transaction is rolled back); on the event loop, as the connection ends. */
    public void close() {
        session.close(0, false);
    }

    /** The answers of the session's requests, kept or passed on; nothing is written. */
    private final class Answer extends Replies {
        private WharfException refused;

        Answer() {
            super(null);
        }

        @Override
        public void ok(int requestId) {
            if (requestId == COMMIT) {
                commitEnded(null);
            } // a put: put, or on its way to the journal; a rollback: done
        }

        @Override
        public void error(int requestId, ErrorCode code, String message, int sessionId, int producerId) {
            WharfException e = new WharfException(code, message);
            if (requestId == COMMIT) {
                commitEnded(e);
            } else {
                refused = e;
            }
        }

        private void commitEnded(WharfException failure) {
            if (!channel.eventLoop().inEventLoop()) {
                channel.eventLoop().execute(() -> commitEnded(failure));
                return;
            }
            Consumer<WharfException> done = committed;
            committed = null;
            done.accept(failure);
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
