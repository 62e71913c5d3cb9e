package org.wharfmq.server.session;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.channel.local.LocalChannel;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.frame.WireXid;
import org.wharfmq.protocol.message.WireDestination;
import org.wharfmq.server.WharfException;
import org.wharfmq.server.config.ServerConfig;
import org.wharfmq.server.queue.HandOff;
import org.wharfmq.server.queue.QueueManager;
import org.wharfmq.server.security.AccessControl;
import org.wharfmq.server.security.ConnectionAccess;
import org.wharfmq.server.security.Identity;
import org.wharfmq.server.topic.TopicManager;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.IntConsumer;
import java.util.function.Predicate;

/**
 * Takes the messages of one queue inside the queue manager for the queue manager's own code (a sender channel takes
 * its transmission queue this way), through an XA session of an in-process connection with the queue manager's own
 * authority: the session's one consumer hands each message to {@link #next} as its queue delivers it, with no frame,
 * no encoding and no event loop in between (the session records the delivery and queues it here, under its lock,
 * on the thread that put the message). What was taken leaves the queue as a client's consumption does: outside a
 * unit of work by {@link #acknowledge}, or in an XA branch that {@link #prepare} ends and prepares (its removal
 * journaled, in doubt until {@link #commit} or {@link #rollback}, across restarts: {@link #inDoubt}). What is
 * neither acknowledged nor in a branch when the session closes goes back to the queue, in its order.
 *
 * <p><b>Threading.</b> The session is owned by its connection's event loop; its connection carries no frame (a local
 * channel with no peer, there for its loop and allocator). The methods here are called by one thread of the caller's
 * own (the taker, which alone waits in {@link #next}), never that loop: each hops to the loop, and a request
 * ({@link #consume}, {@link #prepare}, {@link #commit}, {@link #rollback}, {@link #close}) waits for its answer (the
 * journal's, for a prepare or a commit); credit and acknowledgements do not wait, and the loop runs them in the order
 * they were made, before any later request. A {@link #takeAsDelivered} taker runs on the delivering threads instead,
 * and may {@link #poll} and acknowledge there, one thread at a time (the caller's own lock sees to that); so does a
 * {@link #startHandOff} taker, on the threads that put a message, which it may take past the queue
 * ({@link #spendForHandOff}) under the same lock.
 */
public final class InProcessTakes implements AutoCloseable {

    private static final int SESSION = 1;
    private static final int CONSUMER = 1;
    /** {@link #arrivals}' entry once the consumer's queue was deleted. */
    private static final Object QUEUE_DELETED = new Object();

    /**
     * A message taken off the queue: its delivery id, how many times it has been delivered (this time included), its
     * stored bytes (a retained duplicate: the taker's) and what it counts against the memory budgets
     * ({@link #consumed}'s {@code heldBytes}).
     */
    public record Taken(long deliveryId, int deliveryCount, ByteBuf message, long heldBytes) {
    }

    private final Channel channel;
    private final EventLoop loop;
    private final ConnectionAccess access;
    private final XaBranches xaBranches;
    private final Answers answers = new Answers();
    /** Taken messages, in delivery order, and {@link #QUEUE_DELETED}; added under the session's lock. */
    private final ConcurrentLinkedQueue<Object> arrivals = new ConcurrentLinkedQueue<>();
    /**
     * The taker's thread while it waits in {@link #next} with nothing arrived; null otherwise. A burst of deliveries
     * wakes it once, as the queue lets go of its lock ({@link Sink#flush}), never under the queue's lock.
     */
    private volatile Thread waiting;
    private volatile String deletedBecause;
    /**
     * What takes deliveries on the thread that delivers them, as each burst arrives ({@link #takeAsDelivered}), before
     * the taker is woken for what it leaves; null: none.
     */
    private volatile Runnable directTaker;
    /** The session: made, used and closed on {@link #loop} alone. */
    private BrokerSession session;
    /** Whether nothing delivered waits here: asked under the queue's lock, under which deliveries arrive. */
    private final BooleanSupplier nothingArrived = arrivals::isEmpty;
    /** The session's consumer once {@link #consume} opened it (on the loop): whose credit a hand-off spends. */
    private volatile ServerConsumer consumer;
    /**
     * {@link #consumed}'s: the messages consumed so far, in all, and the last one's delivery id (-1: none). Written by
     * the taker alone (the count after the id); read by {@link #settleConsumed} on the loop.
     */
    private volatile long consumedCount;
    private volatile long consumedUpTo = -1;
    /** {@link #consumed}'s: the bytes of the messages consumed so far, in all; written before the count. */
    private volatile long consumedBytes;
    /**
     * {@link #consumed}'s batch, the taker's alone: the messages, and their bytes, consumed since the taker last queued
     * a settlement ({@link #settle}), which it queues once they reach {@link #settleCount} or {@link #settleBytes}.
     */
    private long unsettledCount;
    private long unsettledBytes;
    /** A quarter of {@link #consume}'s credit and of its {@code maxHeldBytes}: the taker's, set as it consumes. */
    private long settleCount = 1;
    private long settleBytes = 1;
    /** Whether {@link #settleConsumed} is queued on the loop and has not yet read what was consumed. */
    private final AtomicBoolean settling = new AtomicBoolean();
    /** What {@link #settleConsumed} has settled: the loop's. */
    private long settledCount;
    private long settledUpTo = -1;
    private long settledBytes;
    private final Runnable settleTask = this::settleConsumed;
    /** {@link #settleTask} as a task a taker that defers its wakes owes ({@link DeferredWakes}). */
    private final DeferredWakes.Pending settlement = new DeferredWakes.Pending() {
        @Override
        public EventLoop loop() {
            return loop;
        }

        @Override
        public Runnable task() {
            return settleTask;
        }

        @Override
        public boolean pending() {
            return settling.get();
        }
    };

    private InProcessTakes(Channel channel, XaBranches xaBranches, ConnectionAccess access) {
        this.channel = channel;
        this.loop = channel.eventLoop();
        this.xaBranches = xaBranches;
        this.access = access;
    }

    /**
     * An in-process XA session on {@code loop}, with the authority of {@code who} (the queue manager's own:
     * {@link Identity#SERVER}), whose permissions are checked, and their denials audited naming {@code peer}, as a
     * connection's are; its XA branches are {@code xaBranches}' (the same the queue manager's clients use).
     */
    public static InProcessTakes open(EventLoop loop, ServerConfig config, QueueManager queueManager,
                                      TopicManager topics, XaBranches xaBranches, AccessControl control,
                                      Identity who, String peer) {
        LocalChannel channel = new LocalChannel(); // no peer: it carries no frame
        loop.register(channel).syncUninterruptibly();
        InProcessTakes takes = new InProcessTakes(channel, xaBranches, new ConnectionAccess(who, control, peer));
        loop.submit(() -> takes.session = new BrokerSession(SESSION, false, xaBranches, channel, takes.answers,
                queueManager, topics, null, config.maxMessageLength(), config.producerWindowBytes(),
                config.fanOutWindowBytes(), takes.access, takes.new Sink())).syncUninterruptibly();
        return takes;
    }

    /**
     * Opens the session's consumer on queue {@code queue}, which may be handed {@code credit} messages before
     * {@link #credit} gives more; they come to {@link #next} in the queue's order.
     *
     * @throws WharfException UNKNOWN_DESTINATION, naming the queue, when it was deleted as the consumer opened (an
     *                        administrator's delete between the consumer's attachment and its registration would
     *                        otherwise leave it on a queue that never tells it), or the consumer is gone already
     */
    public void consume(String queue, int credit, long timeoutMillis) throws InterruptedException {
        consume(queue, null, credit, timeoutMillis);
    }

    /**
     * As {@link #consume(String, int, long)}, taking only the messages {@code selector} selects (a JMS message
     * selector; null: all).
     *
     * @throws WharfException why the consumer was refused (a permission, a selector the grammar refuses ...)
     */
    public void consume(String queue, String selector, int credit, long timeoutMillis) throws InterruptedException {
        consume(queue, selector, credit, Long.MAX_VALUE, timeoutMillis);
    }

    /**
     * As {@link #consume(String, String, int, long)}, handing over no more while the taker holds {@code maxHeldBytes}
     * or more of messages (their {@link Taken#heldBytes}) it has not {@link #consumed} (so at most one message beyond
     * them): what waits here counts against the server's memory budget, which the taker's own sends may wait for, so
     * a taker holding many large messages could spend it all and wait for itself. The rest wait on the queue, which
     * pages them past its budget as its policy says.
     */
    public void consume(String queue, String selector, int credit, long maxHeldBytes, long timeoutMillis)
            throws InterruptedException {
        settleCount = Math.max(1, credit / 4);
        settleBytes = Math.max(1, maxHeldBytes / 4);
        call("Taking the messages of queue '" + queue + "'", id -> {
            session.limitConsumersHeldBytes(maxHeldBytes);
            session.openConsumer(new Frame.CreateConsumer(id, SESSION, CONSUMER, WireDestination.queue(queue),
                    selector, credit, 0, null));
        }, timeoutMillis);
        // the answer comes from inside openConsumer, before the loop's task ends: ask for the consumer in a task after
        ServerConsumer opened;
        try {
            opened = loop.submit(() -> session.consumer(CONSUMER)).get(timeoutMillis, TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw WharfException.illegalState("Taking the messages of queue '" + queue + "': the consumer opened"
                    + " is not found on the queue manager's loop (" + e + ").");
        }
        if (opened == null) {
            throw new WharfException(ErrorCode.UNKNOWN_DESTINATION, "Taking the messages of queue '" + queue
                    + "': the consumer opened on it is gone already (" + (deletedBecause != null ? deletedBecause
                    : "the in-process session was closed") + "). Nothing is taken; open it again.");
        }
        if (opened.queue().isDeleted()) {
            throw new WharfException(ErrorCode.UNKNOWN_DESTINATION, "Taking the messages of queue '" + queue
                    + "': the queue was deleted as its consumer opened" + (deletedBecause != null ? " ("
                    + deletedBecause + ")" : "") + ". Nothing is taken: define the queue again (wharf admin define"
                    + " queue " + queue + ").");
        }
        consumer = opened;
    }

    /**
     * Lets {@code taker} take the non-persistent messages put to the consumer's queue as they are put, past the queue
     * ({@link org.wharfmq.server.queue.LocalQueue#handOver}), until {@link #endHandOff}. After {@link #consume}.
     */
    public void startHandOff(HandOff taker) {
        consumer.queue().startHandOff(taker);
    }

    /** Ends {@code taker}'s hand-off ({@link #startHandOff}); nothing when the consumer was never opened. */
    public void endHandOff(HandOff taker) {
        ServerConsumer c = consumer;
        if (c != null) {
            c.queue().endHandOff(taker);
        }
    }

    /**
     * For a message the hand-off takes, on the thread that puts it: spends one of the consumer's credit, when nothing
     * waits on the queue or here ({@link #poll} and {@link #next} have taken every delivery: asked under the queue's
     * lock, under which deliveries arrive) that it would overtake
     * ({@link org.wharfmq.server.queue.LocalQueue#spendForHandOff}). For the one thread that may {@link #poll}.
     * Settle it with {@link #acknowledge}'s {@code handedOver}.
     *
     * @return whether it may take the message
     */
    public boolean spendForHandOff() {
        return consumer.queue().spendForHandOff(consumer, nothingArrived);
    }

    /** The event loop of the session, where {@link #credit}, {@link #acknowledge} and the requests run. */
    public EventLoop loop() {
        return loop;
    }

    /**
     * The next message taken, waiting up to {@code millis} (negative: without limit); null when none came.
     *
     * @throws WharfException once the queue was deleted
     */
    public Taken next(long millis) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Math.max(0, millis));
        Object next;
        while ((next = arrivals.poll()) == null) {
            long left = deadline - System.nanoTime();
            if (millis >= 0 && left <= 0) {
                return null;
            }
            park(millis < 0 ? -1 : left);
        }
        return taken(next);
    }

    /**
     * Waits until something is there for {@link #next}, {@code nanos} (negative: without limit) have passed, or the
     * thread is unparked; returns at once when something is there already.
     */
    public void await(long nanos) throws InterruptedException {
        if (arrivals.isEmpty()) {
            park(nanos);
        }
    }

    /** Ends the wait of the taker in {@link #await} or {@link #next} (it looks again at what it waits for). */
    private void wake() {
        Thread taker = waiting;
        if (taker != null) {
            LockSupport.unpark(taker);
        }
    }

    /**
     * Takes the next message without waiting if it is there and {@code takeIt} accepts it; null otherwise (nothing
     * there, the queue deleted, or a message {@code takeIt} leaves for {@link #next}). For one thread at a time:
     * the taker's, or a {@link #takeAsDelivered} taker the taker lets run.
     */
    public Taken poll(Predicate<Taken> takeIt) {
        Object next = arrivals.peek();
        if (next instanceof Taken t && takeIt.test(t)) {
            arrivals.poll();
            return t;
        }
        return null;
    }

    /**
     * Runs {@code taker} on the thread that delivers each burst of messages (whatever thread put them on the queue,
     * with no lock held), before the taker's thread is woken, which it then is only if messages are left for
     * {@link #next}: the taker may {@link #poll} some itself, with no thread woken. It must never block (it runs on
     * event loops) and must let one thread at a time take. Null: none again.
     */
    public void takeAsDelivered(Runnable taker) {
        this.directTaker = taker;
    }

    /** Parks the taker's thread up to {@code nanos} (negative: without limit) unless something arrived. */
    private void park(long nanos) throws InterruptedException {
        waiting = Thread.currentThread();
        if (arrivals.isEmpty()) { // looked at after saying so: a flush that added one since wakes this thread
            if (nanos < 0) {
                LockSupport.park(this);
            } else {
                LockSupport.parkNanos(this, nanos);
            }
        }
        waiting = null;
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
    }

    private Taken taken(Object next) {
        if (next == QUEUE_DELETED) {
            arrivals.add(QUEUE_DELETED);
            throw new WharfException(ErrorCode.UNKNOWN_DESTINATION, deletedBecause);
        }
        return (Taken) next;
    }

    /** The consumer may be handed {@code credit} more messages. Does not wait. */
    public void credit(int credit) {
        loop.execute(() -> session.addCredit(CONSUMER, credit));
    }

    /**
     * Takes the messages delivered up to delivery {@code lastDeliveryId} (negative: none) off the queue for good,
     * outside any unit of work (non-persistent ones: no journal write), settles {@code handedOver} messages a hand-off
     * took ({@link #spendForHandOff}), and gives their {@code credit} back (the deliveries' and the hand-off's). Does
     * not wait.
     */
    public void acknowledge(long lastDeliveryId, int credit, int handedOver) {
        List<Frame.Consumed> consumed = lastDeliveryId < 0 ? List.of()
                : List.of(new Frame.Consumed(CONSUMER, lastDeliveryId));
        ServerConsumer handingOff = consumer;
        loop.execute(() -> {
            if (!consumed.isEmpty()) {
                session.acknowledge(0, consumed);
            }
            if (handedOver > 0) {
                handingOff.queue().settleHandedOver(handedOver);
            }
            session.addCredit(CONSUMER, credit);
        });
    }

    /**
     * AUTO_ACKNOWLEDGE's settlement of a message the taker has consumed ({@code taken}, whose delivery follows every
     * delivery consumed before it): it leaves the queue for good, gives the server's memory budget back, and its
     * credit (and the bytes it held: {@link #consume}'s bound) goes back with it, as a task of the session's loop settles
     * it. The taker settles in batches, so that its loop is not woken for each message: the task is queued once a
     * quarter of {@link #consume}'s credit or of its {@code maxHeldBytes} has been consumed since the last one, and
     * whenever the taker calls {@link #settle}, which it must before its thread waits for anything that what it
     * consumed may hold back: before it waits for more messages, and before its sends wait for producer credit, which
     * the server holds back while the memory budget that these messages hold is spent (docs/architecture.md, "Flows
     * inside the queue manager"). Until then they count against the budget and the bound as if not consumed. The taker
     * does not wait for the settlement. For the taker's thread, which never mixes it with {@link #acknowledge}.
     */
    public void consumed(Taken taken) {
        assert !loop.inEventLoop() : "the in-process session's taker on the session's own loop";
        consumedUpTo = taken.deliveryId();
        consumedBytes = consumedBytes + taken.heldBytes(); // the taker alone writes them
        consumedCount = consumedCount + 1;
        unsettledBytes += taken.heldBytes();
        if (++unsettledCount >= settleCount || unsettledBytes >= settleBytes) {
            settle();
        }
    }

    /**
     * Queues the settlement of what the taker has {@link #consumed} and not yet settled, on the session's loop; does not
     * wait for it. One task is queued at a time, and settles every message consumed until it runs; a taker that defers
     * its wakes ({@link DeferredWakes}) queues it without one and owes the wake, to issue with its others. The taker's, before its
     * thread waits (see {@link #consumed}; and a deferring taker issues its owed wakes after it); nothing when all is
     * settled.
     */
    public void settle() {
        if (unsettledCount == 0) {
            return;
        }
        unsettledCount = 0;
        unsettledBytes = 0;
        if (settling.compareAndSet(false, true)) {
            DeferredWakes deferring = DeferredWakes.ofThisThread();
            if (deferring != null) { // its loop woken with the taker's others before it waits, or by the bound
                deferring.owe(settlement);
            } else {
                loop.execute(settleTask);
            }
        }
    }

    /**
     * On the loop: settles what was consumed up to now ({@link #consumed}). The flag is cleared before what was
     * consumed is read, so a message consumed after this read finds it clear and queues the next run; the count is read
     * before the id, so no credit is given for a message not yet settled.
     */
    private void settleConsumed() {
        assert loop.inEventLoop();
        settling.set(false);
        long count = consumedCount;
        long bytes = consumedBytes; // after the count: at least the bytes of the messages counted
        long upTo = consumedUpTo;
        // each apart: a run may read a message's id before its count (the taker writes the id first), settling it
        // without its credit; the next run finds the id settled and must still give that credit (a run that returned
        // on a settled id lost it, and the reader's window ran dry)
        if (upTo != settledUpTo) {
            session.acknowledge(0, List.of(new Frame.Consumed(CONSUMER, upTo)));
            settledUpTo = upTo;
        }
        if (count != settledCount || bytes != settledBytes) {
            session.addCredit(CONSUMER, (int) (count - settledCount), bytes - settledBytes);
            settledCount = count;
            settledBytes = bytes;
        }
    }

    /**
     * Puts the messages handed over up to delivery {@code lastDeliveryId} (and not acknowledged) in a new XA branch
     * {@code xid} and prepares it: their removal is journaled, and in doubt until {@link #commit} or
     * {@link #rollback}, whatever happens meanwhile (a restart keeps the branch: {@link #inDoubt}). Returns once the
     * prepare is durable.
     *
     * @throws WharfException why it was not prepared (nothing of it is then)
     */
    public void prepare(WireXid xid, long lastDeliveryId, long timeoutMillis) throws InterruptedException {
        List<Frame.Consumed> consumed = List.of(new Frame.Consumed(CONSUMER, lastDeliveryId));
        call("Preparing " + xid, id -> {
            session.xaStart(0, xid, Frame.XA_NOFLAGS, 0);
            session.xaEnd(0, xid, Frame.XA_SUCCESS, consumed);
            xaBranches.prepare(id, xid, access, answers);
        }, timeoutMillis);
    }

    /** Commits prepared branch {@code xid}: its messages leave the queue for good. Returns once that is durable. */
    public void commit(WireXid xid, long timeoutMillis) throws InterruptedException {
        call("Committing " + xid, id -> xaBranches.commit(id, xid, false, access, loop, answers), timeoutMillis);
    }

    /** Rolls branch {@code xid} back: its messages go back to the queue, in their order. */
    public void rollback(WireXid xid, long timeoutMillis) throws InterruptedException {
        call("Rolling back " + xid, id -> xaBranches.rollback(id, xid, access, answers), timeoutMillis);
    }

    /** The prepared branches of the queue manager's own in-process sessions (and in-VM clients): in doubt. */
    public List<WireXid> inDoubt() {
        return xaBranches.recover(access);
    }

    /**
     * Closes the session: what it was handed and neither acknowledged, {@link #consumed} nor put in a branch goes back
     * to the queue, in its order; prepared branches stay (they are the queue manager's). Waits for that.
     */
    @Override
    public void close() {
        settle(); // what was consumed is settled first: queued on the loop ahead of the close
        DeferredWakes.issueOwed(); // by a taker that defers its wakes too, which owes the settlement's wake until then
        try {
            call("Closing the in-process session", id -> session.close(id, false), 10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            // no answer in time, or the loop has gone with the queue manager (whose closing gives them back)
        } finally {
            channel.close();
            Object next;
            while ((next = arrivals.poll()) != null) {
                if (next instanceof Taken t) {
                    t.message().release();
                }
            }
        }
    }

    /** Runs {@code request} with a fresh request id on the loop and waits for its answer. */
    private void call(String what, IntConsumer request, long timeoutMillis) throws InterruptedException {
        assert !loop.inEventLoop() : what + " on the in-process session's own loop would wait for itself";
        int id = answers.nextId();
        CompletableFuture<Void> answer = answers.expect(id);
        loop.execute(() -> {
            try {
                request.accept(id);
            } catch (RuntimeException e) {
                answers.failed(id, e instanceof WharfException w ? w
                        : new WharfException(ErrorCode.INTERNAL_ERROR, String.valueOf(e)));
            }
        });
        try {
            answer.get(timeoutMillis, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            answers.forget(id);
            throw WharfException.illegalState(what + ": no answer from the queue manager within " + timeoutMillis
                    + " ms.");
        } catch (ExecutionException e) {
            throw e.getCause() instanceof WharfException w ? w
                    : new WharfException(ErrorCode.INTERNAL_ERROR, String.valueOf(e.getCause()));
        } catch (InterruptedException e) {
            answers.forget(id); // the request may still complete: a branch prepared meanwhile is found in doubt
            throw e;
        }
    }

    /** Where the session's deliveries go: {@link #arrivals}. */
    private final class Sink implements DeliverySink {
        @Override
        public void delivered(Delivery delivery) {
            arrivals.add(new Taken(delivery.deliveryId, delivery.deliveryCount,
                    delivery.message.content().retainedDuplicate(), delivery.message.memoryBytes()));
        }

        @Override
        public void flush() {
            Runnable direct = directTaker;
            if (direct != null) {
                direct.run();
                if (arrivals.isEmpty()) {
                    return; // all taken where they were delivered: the taker's thread sleeps on
                }
            }
            wake();
        }

        @Override
        public void failed(String reason) {
            deletedBecause = reason;
            arrivals.add(QUEUE_DELETED);
            flush();
        }
    }

    /** The answers of the session's requests, to the threads that wait for them; nothing is written. */
    private static final class Answers extends Replies {
        private final AtomicInteger ids = new AtomicInteger();
        private final ConcurrentHashMap<Integer, CompletableFuture<Void>> waiting = new ConcurrentHashMap<>();

        Answers() {
            super(null);
        }

        int nextId() {
            int id;
            do {
                id = ids.incrementAndGet();
            } while (id == 0); // 0: a request nobody waits for
            return id;
        }

        CompletableFuture<Void> expect(int id) {
            CompletableFuture<Void> answer = new CompletableFuture<>();
            waiting.put(id, answer);
            return answer;
        }

        void forget(int id) {
            waiting.remove(id);
        }

        void failed(int id, WharfException e) {
            CompletableFuture<Void> answer = waiting.remove(id);
            if (answer != null) {
                answer.completeExceptionally(e);
            }
        }

        @Override
        public void ok(int requestId) {
            CompletableFuture<Void> answer = waiting.remove(requestId);
            if (answer != null) {
                answer.complete(null);
            }
        }

        @Override
        public void xaResult(int requestId, int result, List<WireXid> xids) {
            ok(requestId); // a prepare's XA_OK (a branch that took messages is never read-only)
        }

        @Override
        public void error(int requestId, ErrorCode code, String message, int sessionId, int producerId) {
            failed(requestId, new WharfException(code, message));
        }

        @Override
        void producerCredit(int sessionId, int bytes) {
            // the session sends nothing
        }
    }
}
