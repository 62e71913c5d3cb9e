package org.wharfmq.server.session;

import io.netty.buffer.ByteBuf;
import io.netty.channel.EventLoop;
import io.netty.channel.local.LocalChannel;
import io.netty.util.internal.PlatformDependent;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.WireXid;
import org.wharfmq.server.Configuration;
import org.wharfmq.server.WharfException;
import org.wharfmq.server.config.ServerConfig;
import org.wharfmq.server.queue.QueueManager;
import org.wharfmq.server.security.AccessControl;
import org.wharfmq.server.security.ConnectionAccess;
import org.wharfmq.server.security.Identity;
import org.wharfmq.server.topic.TopicManager;

import java.util.List;
import java.util.Queue;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A producer inside the queue manager for one thread of a plugin's own (a flow's reader): its puts are SENDs of a
 * session of the queue manager's (the same {@link BrokerSession#send}: the authority's permissions and their audit,
 * JMSXUserID, maxMessageLength, routing to a queue, a remote queue's transmission queue or a topic's subscriptions,
 * persistence) made on the putting thread, with no frame, no connection and no hand-off to an event loop. Outside any
 * unit of work: a non-persistent message is on its queue when {@link #put} returns, a persistent one once the journal
 * has it. A refusal is thrown by the put it refuses.
 *
 * <p><b>Producer flow control</b> is the session's, as a client's: its window ({@code producerWindowBytes}) is spent by
 * each put and given back as the session handles them, and held back while a queue a put went to is over its budget
 * with the policy block, or the server's memory budget is spent. A put with no credit left waits for it, having asked
 * its caller first to settle what it holds of that budget ({@link Waiting#beforeWait}): a flow's reader settles the
 * input it took in-process, which would otherwise hold the budget its own put waits for.
 *
 * <p><b>Threading.</b> The session is driven by the thread that opened it (the owner) alone: every method is the
 * owner's (asserted), and what reaches the session from other threads (the journal's completion of a persistent put,
 * a destination's or the budget's wake-up of a held-back window) is queued as a task of the owner's
 * ({@link OwnerTasks}), which runs it at its next put, or while a put waits, never under anyone's lock. The owner is
 * woken only while it waits. The session's channel (a local channel with no peer: it carries no frame) gives it an
 * allocator and an event loop as its timer (a message's delivery delay), which touches no state of the session's.
 */
public final class InProcessProducer implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(InProcessProducer.class.getName());
    private static final int SESSION = 0;
    /** The request id of every put: not 0, so that its answer comes back to {@link Answer}. */
    private static final int PUT = 1;

    /** What a put that waits (for producer credit, or for the journal) asks of its caller, on the owner's thread. */
    public interface Waiting {
        /** Before the put waits for producer credit: settle what the caller holds of the server's memory budget. */
        void beforeWait();

        /** Whether the caller has stopped (its flow stops, its connection lost): a waiting put then gives up. */
        boolean stopped();
    }

    private final Thread owner = Thread.currentThread();
    private final LocalChannel channel;
    private final OwnerTasks tasks = new OwnerTasks(owner);
    private final Answer answer = new Answer();
    private final BrokerSession session;
    /** The bytes the session's producer may still put: granted by its window, spent by each put. The owner's. */
    private long credit;
    private boolean closed;

    private InProcessProducer(LocalChannel channel, ServerConfig config, QueueManager queueManager,
                              TopicManager topics, ConnectionAccess access) {
        this.channel = channel;
        this.session = new BrokerSession(SESSION, false, null, channel, answer, queueManager, topics, null,
                config.maxMessageLength(), config.producerWindowBytes(), config.fanOutWindowBytes(), access, null,
                tasks);
        session.openProducerWindow(); // the first window: credit
    }

    /**
     * A producer owned by the calling thread (a plugin's own, never an event loop), with the authority of {@code who},
     * whose permissions are checked, and their denials audited naming {@code peer}, as a connection's are; {@code loop}
     * is its timer.
     */
    public static InProcessProducer open(EventLoop loop, ServerConfig config, QueueManager queueManager,
                                         TopicManager topics, AccessControl control, Identity who, String peer) {
        assert !loop.inEventLoop() : "an in-process producer owned by its timer's event loop would wait on it";
        LocalChannel channel = new LocalChannel(); // no peer: it carries no frame
        loop.register(channel).syncUninterruptibly();
        return new InProcessProducer(channel, config, queueManager, topics,
                new ConnectionAccess(who, control, peer));
    }

    /**
     * Puts {@code message} (its stored encoding, {@code protocol.message.MessageEncoding}, addressed by its own
     * destination header; taken over), outside any unit of work: a non-persistent message is on its queue (or its
     * topic's subscriptions) when this returns, a persistent one once it is stored. Waits first while the producer has
     * no credit left ({@link Waiting#beforeWait} first), until the server gives it some or {@code waiting} has stopped.
     *
     * @throws WharfException why it was refused (not authorised, its queue full, no such queue, too long ...: nothing
     *                        of it was put), or that the wait ended (ILLEGAL_STATE: nothing was put, or for a
     *                        persistent message whose storing was under way, it may have been)
     */
    public void put(ByteBuf message, Waiting waiting) {
        assert Thread.currentThread() == owner : "an in-process producer used by " + Thread.currentThread()
                + ", not its owner " + owner;
        if (closed) {
            message.release();
            throw WharfException.illegalState("The in-process producer is closed: nothing is put.");
        }
        tasks.runAll();
        while (credit <= 0) {
            waiting.beforeWait(); // what it settles frees the budget the credit waits for
            if (!await(waiting)) {
                message.release();
                throw WharfException.illegalState("The put waited for producer credit (held back while a destination"
                        + " it sent to is over its memory budget, docs/resilience.md) and its sender stopped: nothing"
                        + " was put.");
            }
        }
        credit -= message.readableBytes(); // below zero, perhaps: any message fits a window, as a client's
        answer.expect();
        session.send(PUT, 0, message);
        while (!answer.answered) { // a persistent message: until the journal has it
            if (!await(waiting)) {
                throw WharfException.illegalState("The put of a persistent message was waiting for the journal when"
                        + " its sender stopped: it may or may not have been stored.");
            }
        }
        WharfException refused = answer.refused;
        if (refused != null) {
            answer.refused = null;
            throw refused;
        }
    }

    /**
     * Waits up to {@link Configuration#IN_PROCESS_WAIT_CHECK_MILLIS} for a task, and runs what came; the owner's owed
     * wakes ({@link DeferredWakes}) are issued first.
     *
     * @return false when {@code waiting} has stopped or the thread was interrupted (its interrupt kept)
     */
    private boolean await(Waiting waiting) {
        if (waiting.stopped() || Thread.currentThread().isInterrupted()) {
            return false;
        }
        DeferredWakes.issueOwed(); // what the owner put before must not wait for this wait
        tasks.await(TimeUnit.MILLISECONDS.toNanos(Configuration.IN_PROCESS_WAIT_CHECK_MILLIS));
        tasks.runAll();
        return true;
    }

    /** Closes the session: nothing more is put, its window is given up. The owner's; idempotent. */
    @Override
    public void close() {
        assert Thread.currentThread() == owner : "an in-process producer closed by " + Thread.currentThread()
                + ", not its owner " + owner;
        if (closed) {
            return;
        }
        closed = true;
        tasks.runAll();
        session.close(0, false);
        channel.close();
    }

    /**
     * The tasks that reach the session from other threads, run by its owner ({@link #runAll}) at its next put or while
     * it waits ({@link #await}, which the first task to come wakes). The queue is written by any thread, read by the
     * owner alone.
     */
    private static final class OwnerTasks implements Executor {
        private final Thread owner;
        private final Queue<Runnable> queue = PlatformDependent.newMpscQueue();
        /** Whether the owner waits in {@link #await}: said before it looks at the queue, read after a task is added. */
        private volatile boolean waiting;

        OwnerTasks(Thread owner) {
            this.owner = owner;
        }

        @Override
        public void execute(Runnable task) {
            queue.add(task);
            if (waiting) {
                LockSupport.unpark(owner);
            }
        }

        void runAll() {
            Runnable task;
            while ((task = queue.poll()) != null) {
                try {
                    task.run();
                } catch (RuntimeException e) {
                    LOG.log(System.Logger.Level.WARNING, "A task of an in-process producer failed: " + e, e);
                }
            }
        }

        /** Parks the owner up to {@code nanos} unless a task is there; a task added meanwhile wakes it. */
        void await(long nanos) {
            waiting = true;
            if (queue.isEmpty()) {
                LockSupport.parkNanos(this, nanos);
            }
            waiting = false;
        }
    }

    /** The session's answers and producer credit, on the owner's thread; nothing is written. */
    private final class Answer extends Replies {
        private boolean answered;
        private WharfException refused;

        Answer() {
            super(null);
        }

        void expect() {
            answered = false;
            refused = null;
        }

        @Override
        public void ok(int requestId) {
            if (requestId == PUT) {
                answered = true;
            }
        }

        @Override
        public void error(int requestId, ErrorCode code, String message, int sessionId, int producerId) {
            refused = new WharfException(code, message);
            answered = true;
        }

        @Override
        public void xaResult(int requestId, int result, List<WireXid> xids) {
            throw new IllegalStateException("An in-process producer takes no part in XA");
        }

        @Override
        void producerCredit(int sessionId, int bytes) {
            credit += bytes;
        }
    }
}
