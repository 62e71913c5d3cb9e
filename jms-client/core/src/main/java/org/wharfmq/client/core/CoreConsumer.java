package org.wharfmq.client.core;

import org.wharfmq.client.core.transport.FrameLink;
import org.wharfmq.client.core.transport.FrameWait;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.frame.MalformedFrameException;
import org.wharfmq.protocol.message.MessageReader;
import org.wharfmq.protocol.message.WireDestination;
import org.wharfmq.protocol.message.WireMessage;

import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

/**
 * One consumer of a {@link CoreConnection}, without JMS: owns the deliveries the server has pushed ahead of its user
 * (its buffer, the messages in the protocol's encoded form, {@link Frame.Deliver}), the credit it returns as they are
 * consumed ({@code CREDIT}, in batches), its PULLs, and its acknowledgement bookkeeping (the last delivery consumed and
 * not yet acknowledged, which its session lists in ACK, COMMIT and ROLLBACK). Nothing outside this class touches those.
 * It hands its user messages, on the user's thread ({@link #receive}) or to a {@link MessageHandler} on its session's
 * dispatch thread ({@link #handleWith}): each delivery made a message by the user's {@link Decoder}, an expired one
 * dropped and one that cannot be decoded rejected (both count as consumed), its credit counted, and the session's
 * {@link CoreSettlement} told, as its mode says. The JMS facade's {@code ClientConsumer} is a {@link Decoder} of JMS
 * messages, and adapts a MessageListener to a {@link MessageHandler}.
 *
 * <p>Deliveries come in on whichever thread reads the connection (often the receiving thread itself: see
 * {@link FrameWait}) straight from the connection's {@link ConsumerRegistry}; the buffer and what the reading
 * thread writes are guarded by this object's monitor, held only briefly and never across I/O or a wait. Consuming
 * (credit, acknowledging) happens on the thread that receives, outside it: the user's thread, or its session's
 * dispatch thread ({@link SessionDispatcher}).
 *
 * <p>Across a reconnection: the consumer lives on its {@link ConnectedLink}; when that is lost, what it buffered is
 * dropped (the server takes it back), and the reconnection creates it again on the new link ({@link #reattach}), from
 * its {@link Spec}. Whatever a delivery leads to (credit, an acknowledgement, a REJECT) goes out on the link the
 * delivery came on, so nothing meant for the old link ever settles a delivery of the new one that has the same id.
 */
public final class CoreConsumer implements DeliveryTarget {
    private static final System.Logger LOG = System.getLogger(CoreConsumer.class.getName());

    /** Bits of {@link #lastConsumed} below the link's generation: delivery ids stay far below 2^40 per session. */
    private static final int GENERATION_SHIFT = 40;

    /**
     * What CREATE_CONSUMER says of a consumer, kept to create it again after a reconnection.
     *
     * @param sessionId        its session
     * @param destination      the queue, topic or topic filter
     * @param selector         the selector as sent, or null
     * @param prefetch         the credit it starts with
     * @param flags            {@code Frame.CONSUMER_*}
     * @param subscriptionName the durable or shared subscription's name, or null
     * @param windowBytes      the bytes of messages (their encoded lengths) the server may send it ahead, besides
     *                         {@code prefetch}'s count ({@code consumerWindowBytes}); 0: the count alone. Asked for
     *                         only of a server of protocol version 3 ({@link ConnectedLink#consumerWindowBytes})
     */
    public record Spec(int sessionId, WireDestination destination, String selector, int prefetch, int flags,
                       String subscriptionName, int windowBytes) {

        /** A consumer bounded by its prefetch count alone. */
        public Spec(int sessionId, WireDestination destination, String selector, int prefetch, int flags,
                    String subscriptionName) {
            this(sessionId, destination, selector, prefetch, flags, subscriptionName, 0);
        }

        /** A blank selector is none: every message. */
        public Spec {
            selector = selector == null || selector.isBlank() ? null : selector;
        }

        /**
         * Whether nothing this consumer is sent can be delivered again after its connection is gone: a non-durable,
         * unshared subscription, which ends with its one consumer (the server deletes it, and what it held, when the
         * consumer closes or its connection goes), so its AUTO_ACKNOWLEDGE acknowledgements need not be in the socket
         * before its next message is handed out ({@link CoreSettlement}).
         */
        public boolean endsWithItsConsumer() {
            return !destination.kind().isQueue() && (flags & (Frame.CONSUMER_DURABLE | Frame.CONSUMER_SHARED)) == 0;
        }
    }

    /**
     * The handler a consumer hands its deliveries to, with the decoder that makes its messages: one per
     * {@link #handleWith}, so that a dispatch reads both at once and allocates nothing.
     */
    record Handling<M>(Decoder<M> decoder, MessageHandler<? super M> handler) {
    }

    /**
     * How the user makes its messages of deliveries: one per consumer (no allocation per message), called on the
     * thread that receives or handles.
     *
     * @param <M> the user's message
     */
    public interface Decoder<M> {
        /**
         * The message in {@code delivery}'s buffer, which the core releases afterwards (a message must not keep it).
         *
         * @throws MalformedFrameException   or {@link IndexOutOfBoundsException} when the bytes cannot be decoded: the
         *                                   delivery is rejected (the server moves it to its dead-letter queue)
         */
        M decode(Frame.Deliver delivery);

        /** The message's id, null when it has none: how a message handed out before a reconnection is known again. */
        String messageId(M message);

        /** The message was handed out before a reconnection and not settled: mark it redelivered. */
        void markRedelivered(M message);
    }

    /**
     * Makes each delivery a whole {@link WireMessage} (headers, properties and a copy of the body), keeping nothing of
     * its buffer: for a user that reads messages as the protocol has them (the admin plugin). Such a message carries
     * no redelivered flag of its own.
     */
    public static final Decoder<WireMessage> WIRE_MESSAGE = new Decoder<>() {
        @Override
        public WireMessage decode(Frame.Deliver delivery) {
            return WireMessage.decode(delivery.message());
        }

        @Override
        public String messageId(WireMessage message) {
            return message.messageId;
        }

        @Override
        public void markRedelivered(WireMessage message) {
        }
    };

    private final CoreConnection connection;
    private final int id;
    /** Credit is returned in batches of this many consumed deliveries. */
    private final int creditBatch;
    /** The most deliveries the buffer holds unread ({@link ClientConfiguration#maxBuffered}): past it the server broke the window. */
    private final int maxBuffered;
    /**
     * Its session's settlement: whether the session drops what arrives (between a ROLLBACK and its answer, read on the
     * reading thread), and what each message handed out counts as.
     */
    private final CoreSettlement settlement;
    /** Its session's dispatch thread, which runs the handler. */
    private final SessionDispatcher dispatcher;
    /** What the server needs to create this consumer (again, after a reconnection). */
    private final Spec spec;
    /** Whether the server holds this consumer's window back until the connection starts ({@link #createFrame}). */
    private volatile boolean creditWithheld;
    /** Its first CREATE_CONSUMER has been written, so a CREDIT may follow; guarded by this. */
    private boolean createWritten;
    /** The wait of this consumer's receive: for a delivery, a PULL_DONE, a failure, a close or a lost connection. */
    private final FrameWait arrival;
    /** The link the consumer lives on (created, or created again by a reconnection); guarded by this. */
    private ConnectedLink link;
    /** The link of the delivery last taken from the buffer: what consuming it writes goes there. Receiving thread. */
    private ConnectedLink takenLink;
    /** The link {@link #unreturnedCredit} counts for: credit owed to a lost link is owed to nobody. Receiving thread. */
    private ConnectedLink creditLink;

    /** Deliveries not yet taken, in arrival order; guarded by this. */
    private final ArrayDeque<Frame.Deliver> buffer = new ArrayDeque<>();
    /** The last delivery consumed and not yet acknowledged, or 0; guarded by this. */
    private long unacknowledged;
    /** Whether the last take emptied the buffer (DUPS_OK flushes its acknowledgements then); receiving thread. */
    private boolean drained;
    /** The handler deliveries are handed to, rather than received; null for receive. */
    private volatile Handling<?> handling;
    private volatile boolean closed;
    private volatile ErrorCode failureCode;
    private volatile String failureMessage;
    /** The last PULL sent (receiving thread), the last PULL_DONE read (reading thread), the PULL awaited or 0. */
    private long lastPullId;
    private volatile long lastPullDone;
    private volatile long awaitedPull;
    /**
     * How far the user consumed, for CLOSE_CONSUMER: the delivery id, and in the bits above
     * {@link #GENERATION_SHIFT} the generation of the link it came on (delivery ids of another link mean nothing).
     */
    private volatile long lastConsumed;
    /** Deliveries consumed since credit was last returned; receiving thread. */
    private int unreturnedCredit;
    /** Their bytes (encoded lengths), which that credit settles if its link has a window in bytes; receiving thread. */
    private long unreturnedBytes;
    /**
     * Credit also goes back once this many bytes were consumed on {@link #creditLink}: half the window the link grants
     * ({@link ConnectedLink#grantedWindowBytes}), or no bound when it has no window in bytes; receiving thread.
     */
    private long creditBatchBytesOnLink;
    /** The delivery of the message {@link #next} handed out last, for {@link #received} or {@link #refused}. */
    private long handedOut;
    /** Its last AUTO_ACKNOWLEDGE acknowledgement queued, which later ones join while it waits; receiving thread. */
    private QueuedAcknowledgement queuedAcknowledgement;

    /**
     * @param id          from {@link CoreConnection#nextConsumerId()}
     * @param creditBatch credit is returned in batches of this many consumed deliveries (half the prefetch window)
     * @param settlement  its session's ({@link CoreSession#settlement()})
     * @param dispatcher  its session's
     */
    CoreConsumer(CoreConnection connection, int id, int creditBatch, Spec spec, CoreSettlement settlement,
                 SessionDispatcher dispatcher) {
        this.connection = connection;
        this.id = id;
        this.creditBatch = creditBatch;
        this.spec = spec;
        this.maxBuffered = ClientConfiguration.maxBuffered(spec.prefetch());
        this.settlement = settlement;
        this.dispatcher = dispatcher;
        this.arrival = new FrameWait(null) {
            @Override
            protected FrameLink link() {
                return connection.link(); // a reconnection puts a new one in place while a receive waits
            }

            @Override
            protected boolean isOver() {
                return closed || failureCode != null || connection.lostCause() != null || awaitedPullAnswered()
                        || (connection.isStarted() && hasBuffered());
            }
        };
    }

    public int id() {
        return id;
    }

    public Spec spec() {
        return spec;
    }

    /**
     * CREATE_CONSUMER for this consumer; {@code requestId} 0 for one not waited for. While the connection is stopped
     * it asks for no deliveries yet ({@link Frame#CONSUMER_STOPPED}): the window is sent by {@link #grantWithheldCredit}
     * when the connection starts, so that a consumer of a connection never started takes no message from the
     * queue's other consumers. Its window in bytes goes only to a server that speaks protocol version 3 (the link it
     * is created on, {@link #createdOn}).
     */
    public Frame.CreateConsumer createFrame(int requestId) {
        boolean stopped = !connection.isStarted();
        creditWithheld = stopped;
        return new Frame.CreateConsumer(requestId, spec.sessionId(), id, spec.destination(), spec.selector(),
                spec.prefetch(), spec.flags() | (stopped ? Frame.CONSUMER_STOPPED : 0), spec.subscriptionName(),
                windowBytesOn(currentLink()));
    }

    /** The window in bytes this consumer asks for on {@code on}: its own where the server takes one, else 0. */
    private int windowBytesOn(ConnectedLink on) {
        return on != null && on.consumerWindowBytes() ? spec.windowBytes() : 0;
    }

    /**
     * Its creating thread has written the first CREATE_CONSUMER: from now on {@link #grantWithheldCredit} may send the
     * window, which it does at once if the connection started meanwhile (the connection's start skipped it).
     */
    public void createWritten() throws ClientException {
        synchronized (this) {
            createWritten = true;
        }
        grantWithheldCredit();
    }

    /**
     * Sends the window {@link #createFrame} withheld, once the connection has started: called by the connection's
     * start and by {@link #createWritten} (whichever comes second sends it), never before the CREATE_CONSUMER; under
     * the connection's {@link CoreConnection#underEstablishing}, so not while a reconnection creates the consumer again
     * (with the window or without, as the connection then is).
     */
    public void grantWithheldCredit() throws ClientException {
        if (!creditWithheld || !connection.isStarted()) {
            return;
        }
        connection.underEstablishing(on -> {
            synchronized (this) {
                if (creditWithheld && createWritten && !closed && failureCode == null && link == on) {
                    creditWithheld = false;
                    on.write(new Frame.Credit(id, spec.prefetch()));
                }
            }
            return null;
        });
    }

    /** The consumer is created on {@code on}: its deliveries will come there. Before CREATE_CONSUMER is written. */
    public synchronized void createdOn(ConnectedLink on) {
        link = on;
    }

    /** The link of the delivery the receiving thread took last. */
    public ConnectedLink takenLink() {
        return takenLink;
    }

    public boolean isClosed() {
        return closed;
    }

    /** How far the user consumed of what came on {@code on}, for CLOSE_CONSUMER there; 0 for nothing. */
    public long lastConsumedOn(ConnectedLink on) {
        long last = lastConsumed;
        return last >>> GENERATION_SHIFT == on.generation() ? last & ((1L << GENERATION_SHIFT) - 1) : 0;
    }

    // ---- the reading thread's side ----

    /** A DELIVER for this consumer: buffered, for a receive to take or the dispatch thread. */
    @Override
    public void deliver(Frame.Deliver deliver) {
        boolean handedOn;
        ConnectedLink pastWindow = null;
        synchronized (this) {
            // between a ROLLBACK and its answer the server takes back whatever it sent meanwhile
            if (closed || settlement.isDiscarding()) {
                deliver.message().release();
                return;
            }
            if (buffer.size() >= maxBuffered) {
                pastWindow = link != null ? link : connection.current();
                handedOn = false;
            } else {
                buffer.addLast(deliver);
                handedOn = handling != null;
            }
        }
        if (pastWindow != null) {
            deliver.message().release();
            connection.deliveryPastWindow(pastWindow, "consumer " + id + " of " + spec.destination(), spec.prefetch(),
                    maxBuffered);
            return;
        }
        if (handedOn) {
            dispatcher.ready(this, 1);
        } else {
            arrival.wake();
        }
    }

    /** The server refused this consumer, which was created without waiting: its receive raises why. */
    @Override
    public void failed(ErrorCode code, String message) {
        failureMessage = message;
        failureCode = code;
        arrival.wake();
    }

    /** The server answered a PULL. */
    @Override
    public void pullDone(long pullId) {
        if (pullId > lastPullDone) {
            lastPullDone = pullId;
        }
        arrival.wake();
    }

    /** Wakes a waiting receive to look again: the connection started, closed or was lost. */
    @Override
    public void wake() {
        arrival.wake();
    }

    // ---- receiving ----

    /**
     * Waits for the next buffered delivery, reading the socket meanwhile if no other thread does. The caller consumes
     * it ({@link #consumed}) and owns its buffer.
     *
     * @param timeoutNanos negative to wait without limit
     * @return null on timeout, when the thread is interrupted or once the consumer is closed
     * @throws ClientException when the connection is lost for good or the server refused this consumer
     */
    Frame.Deliver take(long timeoutNanos) throws ClientException {
        long deadline = System.nanoTime() + timeoutNanos;
        while (true) {
            if (closedOrFailed()) {
                return null;
            }
            if (connection.isStarted()) {
                Frame.Deliver d = poll();
                if (d != null) {
                    return d;
                }
            }
            if (!awaitArrival(timeoutNanos, deadline)) {
                return null;
            }
        }
    }

    /**
     * One wait of {@link #take} or {@link #awaitDelivery} for what may end it (a delivery, a close, a failure).
     *
     * @return false when the time ran out or the thread is interrupted
     */
    private boolean awaitArrival(long timeoutNanos, long deadline) {
        long remaining = timeoutNanos < 0 ? -1 : deadline - System.nanoTime();
        if (timeoutNanos >= 0 && remaining <= 0) {
            return false;
        }
        connection.flushSoonFrames();   // a frame the wait may need (this consumer's opening) goes now; acks wait
        return arrival.await(remaining) || !Thread.currentThread().isInterrupted();
    }

    /**
     * Waits until a delivery is buffered, which the next {@link #take} or {@link #next} then returns without waiting,
     * taking none: what a user waits with before it begins the work its receive belongs to (an XA branch), so that
     * an idle consumer begins none. A buffered delivery was handed to this consumer alone: no other consumer of the
     * queue can take it meanwhile. It can still be gone by the next receive (it expired, or the link was lost and the
     * server took it back), which then waits as usual.
     *
     * @param timeoutNanos negative to wait without limit
     * @return whether a delivery is buffered; false on timeout, when the thread is interrupted or once the consumer is
     * closed (another thread's close ends the wait at once)
     * @throws ClientException when the connection is lost for good or the server refused this consumer
     */
    public boolean awaitDelivery(long timeoutNanos) throws ClientException {
        long deadline = System.nanoTime() + timeoutNanos;
        while (true) {
            if (closedOrFailed()) {
                return false;
            }
            if (connection.isStarted() && hasBuffered()) {
                return true;
            }
            if (!awaitArrival(timeoutNanos, deadline)) {
                return false;
            }
        }
    }

    /**
     * The buffered head, else a PULL so that a message already on the queue is found; returns null only once
     * PULL_DONE says the queue had none (or while the connection is stopped or reconnecting).
     */
    Frame.Deliver takeNow() throws ClientException {
        if (closed || !connection.isStarted()) {
            return null;
        }
        Frame.Deliver d = poll();
        if (d != null) {
            return d;
        }
        checkAccepted();
        if (connection.usableOrNull() == null) {
            connection.checkOpen();
            return null; // reconnecting: nothing is available now
        }
        long pullId = ++lastPullId;
        awaitedPull = pullId;
        try {
            currentLink().write(new Frame.Pull(id, pullId));
            int timeout = connection.settings().requestTimeoutMillis();
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeout);
            while (true) {
                if (closedOrFailed()) {
                    return null;
                }
                d = poll();
                if (d != null || lastPullDone >= pullId) {
                    return d;
                }
                long remaining = deadline - System.nanoTime();
                if (remaining <= 0) {
                    throw new ClientException("No PULL_DONE from Wharf at " + currentLink().address() + " within "
                            + timeout + " ms (requestTimeout)", null);
                }
                if (!arrival.await(remaining) && Thread.currentThread().isInterrupted()) {
                    return null;
                }
            }
        } finally {
            awaitedPull = 0;
        }
    }

    // ---- handing messages to the user ----

    /**
     * The next message, consumed and settled as the session's mode says: {@link #next}, then {@link #received}.
     *
     * @param timeoutNanos how long to wait; negative without limit
     * @param noWait       wait for no delivery: ask the server (PULL) for one already queued ({@link #takeNow})
     * @return null on timeout, when the thread is interrupted, or once the consumer is closed
     * @throws ClientException when the connection is lost for good or the server refused this consumer
     */
    public <M> M receive(long timeoutNanos, boolean noWait, Decoder<M> decoder) throws ClientException {
        M message = next(timeoutNanos, noWait, decoder);
        if (message != null) {
            received();
        }
        return message;
    }

    /**
     * The next message, consumed (its credit counted) and handed out (marked redelivered when it was handed out before
     * a reconnection, counted as the open transaction's work), but not yet settled: the caller says {@link #received}
     * or, when it cannot use it as asked, {@link #refused}. Expired deliveries are dropped and those that cannot be
     * decoded rejected; both are settled as received and skipped. Refused (ILLEGAL_STATE) while the consumer hands its
     * deliveries to a {@link MessageHandler}: the dispatch thread takes them.
     *
     * @see #receive
     */
    public <M> M next(long timeoutNanos, boolean noWait, Decoder<M> decoder) throws ClientException {
        if (handling != null) {
            throw new ClientException(ErrorCode.ILLEGAL_STATE, "Consumer " + id + " hands its messages to a message"
                    + " handler, so it cannot also receive them; call handleWith(decoder, null) first");
        }
        long deadline = System.nanoTime() + timeoutNanos;
        while (true) {
            Frame.Deliver d = noWait ? takeNow() : take(timeoutNanos < 0 ? -1 : Math.max(0, deadline - System.nanoTime()));
            if (d == null) {
                settlement.writeQueuedAcknowledgement();
                return null;
            }
            M message = consume(d, decoder);
            handedOut = d.deliveryId();
            if (message != null) {
                handOut(message, decoder);
                settlement.writeQueuedAcknowledgement(); // the one before's: in the socket before this one is the user's
                return message;
            }
            received();
        }
    }

    /** The message {@link #next} handed out is the user's: settled as the session's mode says. */
    public void received() {
        settlement.received(this, handedOut);
    }

    /**
     * The message {@link #next} handed out could not be used as asked (a body of another type): in AUTO and DUPS_OK
     * mode it is recovered, to be delivered again; otherwise it counts as delivered ({@link CoreSettlement#bodyRefused}).
     */
    public void refused() throws ClientException {
        settlement.bodyRefused(this, handedOut);
    }

    /**
     * Runs the handler on a delivery taken for it ({@link #poll}, on the dispatch thread), then settles it: recorded as
     * consumed before the handler runs, so that an acknowledgement, commit or recover inside it includes it;
     * acknowledged after it returns as the session's mode says, unless a rollback, a recover or a close came in
     * between. When the handler throws, an AUTO or DUPS_OK session recovers (the message comes again).
     *
     * @param handling the handler as it was when the delivery was taken
     */
    <M> void dispatch(Frame.Deliver deliver, Handling<M> handling) {
        Decoder<M> decoder = handling.decoder();
        M message = consume(deliver, decoder);
        long deliveryId = deliver.deliveryId();
        recordConsumed(deliveryId);
        int rollbacks = settlement.rollbackCount();
        if (message != null) {
            handOut(message, decoder);
            try {
                handling.handler().onMessage(message);
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "The message handler of consumer " + id + " threw on "
                        + decoder.messageId(message), e);
                if (settlement.recoverAfterHandlerFailure()) {
                    return;
                }
            }
        }
        settlement.afterHandler(this, deliveryId, rollbacks);
    }

    /**
     * Decodes a delivery and counts it as consumed for credit and CLOSE_CONSUMER. Returns null, and the caller goes
     * on to the next delivery, when it has expired (dropped) or cannot be decoded: that one is rejected back to the
     * server, which moves it to its dead-letter queue with the reason, so it is neither lost nor delivered again and
     * again (an acknowledgement that covers its delivery id later leaves it there). Releases the delivery's buffer.
     */
    private <M> M consume(Frame.Deliver deliver, Decoder<M> decoder) {
        M message = null;
        int bytes = deliver.message().readableBytes(); // what the server counts against the window in bytes
        try {
            long expiration = MessageReader.expirationOf(deliver.message());
            if (expiration == 0 || expiration > System.currentTimeMillis()) {
                message = decoder.decode(deliver);
            }
        } catch (MalformedFrameException | IndexOutOfBoundsException e) {
            LOG.log(System.Logger.Level.WARNING, "Delivery " + deliver.deliveryId() + " for consumer " + id
                    + " cannot be decoded (" + e.getMessage() + "); rejected: the server moves it to its"
                    + " dead-letter queue");
            reject(deliver.deliveryId(), e.getMessage());
        } finally {
            deliver.message().release();
        }
        consumed(deliver.deliveryId(), bytes);
        return message;
    }

    /** The user is about to get {@code message}, taken last: marked redelivered if it was handed out before. */
    private <M> void handOut(M message, Decoder<M> decoder) {
        if (settlement.handOut(decoder.messageId(message), takenLink)) {
            decoder.markRedelivered(message);
        }
    }

    /** True once closed; throws when the connection is lost or the server refused this consumer. */
    private boolean closedOrFailed() throws ClientException {
        if (closed) {
            return true;
        }
        connection.checkNotLost();
        checkAccepted();
        return false;
    }

    /** Throws a fresh exception saying why the server refused this consumer, if it has. */
    public void checkAccepted() throws ClientException {
        ErrorCode code = failureCode;
        if (code != null) {
            throw new ClientException(code, failureMessage);
        }
    }

    private boolean awaitedPullAnswered() {
        long pull = awaitedPull;
        return pull != 0 && lastPullDone >= pull;
    }

    /** How many deliveries wait in the buffer now. */
    public synchronized int buffered() {
        return buffer.size();
    }

    private synchronized boolean hasBuffered() {
        return !buffer.isEmpty();
    }

    /** Takes the head of the buffer, if any, noting whether that emptied it and the link it came on. */
    synchronized Frame.Deliver poll() {
        Frame.Deliver d = buffer.pollFirst();
        if (d != null) {
            drained = buffer.isEmpty();
            takenLink = link; // what is buffered came on the consumer's link: the buffer is emptied when it changes
        }
        return d;
    }

    private synchronized ConnectedLink currentLink() {
        return link;
    }

    /** Whether the last take emptied the buffer: DUPS_OK flushes its acknowledgements then. Receiving thread. */
    boolean drained() {
        return drained;
    }

    /**
     * Hands what is buffered and every later delivery to {@code handler} on the session's dispatch thread, made
     * messages by {@code decoder} ({@link MessageHandler} says how it is called); null: back to {@link #receive}. From
     * now on only the links' reader threads read the connection, since no thread of the user's waits in a receive.
     */
    public <M> void handleWith(Decoder<M> decoder, MessageHandler<? super M> handler) {
        int buffered;
        synchronized (this) {
            handling = handler == null ? null : new Handling<>(decoder, handler);
            buffered = handler == null ? 0 : buffer.size();
        }
        if (handler != null) {
            dispatcher.start();
            connection.readerOnly();
            connection.flushSoonFrames(); // the consumer's opening may still wait for a ride; a handler waits for it
            dispatcher.ready(this, buffered);
        }
    }

    /** The handler it hands its deliveries to, or null when they are for {@link #receive}. */
    Handling<?> handling() {
        return handling;
    }

    /** Whether it hands its deliveries on to a {@link MessageHandler} rather than to {@link #receive}. */
    boolean handsOn() {
        return handling != null;
    }

    // ---- consuming: credit and acknowledgement bookkeeping ----

    /**
     * Counts the delivery last taken, of {@code bytes} (its message's encoded length), as consumed: CLOSE_CONSUMER
     * position, and credit, returned at once in batches of {@link #creditBatch} deliveries or
     * {@link #creditBatchBytesOnLink} bytes, whichever comes first; the bytes are settled with it when the link has the
     * window in bytes.
     */
    void consumed(long deliveryId, int bytes) {
        ConnectedLink on = takenLink;
        lastConsumed = (long) on.generation() << GENERATION_SHIFT | deliveryId;
        if (on != creditLink) {
            creditLink = on; // created again on a new link with its whole window: nothing is owed
            unreturnedCredit = 0;
            unreturnedBytes = 0;
            creditBatchBytesOnLink = ClientConfiguration.creditBatchBytes(on.grantedWindowBytes(spec.windowBytes()));
        }
        unreturnedBytes += bytes;
        if ((++unreturnedCredit >= creditBatch || unreturnedBytes >= creditBatchBytesOnLink) && !closed) {
            on.write(new Frame.Credit(id, unreturnedCredit,
                    creditBatchBytesOnLink == Long.MAX_VALUE ? 0 : unreturnedBytes));
            unreturnedCredit = 0;
            unreturnedBytes = 0;
        }
    }

    /**
     * Moves this consumer's acknowledgement that waits on {@code on} to {@code deliveryId}, if one still waits there.
     *
     * @return false when none waits (none was queued, or it was taken for writing, or it is another link's)
     */
    boolean joinQueuedAcknowledgement(ConnectedLink on, long deliveryId) {
        QueuedAcknowledgement queued = queuedAcknowledgement;
        return queued != null && queued.link == on && queued.advance(deliveryId);
    }

    /** The acknowledgement later ones join, or null for none. */
    void acknowledgementQueued(QueuedAcknowledgement queued) {
        queuedAcknowledgement = queued;
    }

    /** Rejects the delivery last taken, which cannot be used: the server moves it to its dead-letter queue. */
    void reject(long deliveryId, String reason) {
        takenLink.write(new Frame.Reject(id, deliveryId, reason));
    }

    /**
     * Records a consumed delivery (the one last taken) that an ACK, COMMIT or ROLLBACK of the session is to settle;
     * one that came on a link since lost is settled by nobody: the server has taken it back.
     */
    synchronized void recordConsumed(long deliveryId) {
        if (takenLink == link) {
            unacknowledged = deliveryId;
        }
    }

    /** The last delivery consumed on {@code on} and not yet acknowledged, or 0. */
    synchronized long unacknowledgedOn(ConnectedLink on) {
        return link == on ? unacknowledged : 0;
    }

    /** The last delivery consumed and not yet acknowledged, or 0. */
    public synchronized long unacknowledged() {
        return unacknowledged;
    }

    /** An ACK or COMMIT settled the deliveries up to {@code deliveryId}; a later one stays unacknowledged. */
    synchronized void acknowledged(long deliveryId) {
        if (unacknowledged == deliveryId) {
            unacknowledged = 0;
        }
    }

    /**
     * A ROLLBACK is under way: the server takes back everything this consumer was sent, so nothing is unacknowledged
     * any more and the consumer restarts at its initial credit.
     */
    void rolledBack() {
        synchronized (this) {
            unacknowledged = 0;
        }
        unreturnedCredit = 0;
        unreturnedBytes = 0;
    }

    // ---- closing ----

    /**
     * Stops this consumer: a waiting receive returns null, buffered deliveries are released (the server takes them
     * back on CLOSE_CONSUMER).
     *
     * @return false if it was closed already
     */
    public boolean close() {
        synchronized (this) {
            if (closed) {
                return false;
            }
            closed = true;
            releaseBufferLocked();
        }
        arrival.wake();
        return true;
    }

    /** Releases what is buffered: a ROLLBACK or the connection lost takes it back. */
    public synchronized void releaseBuffer() {
        releaseBufferLocked();
    }

    /**
     * The consumer's link was lost: what it buffered is dropped (the server takes it back), and a takeNow waiting for
     * its PULL_DONE returns (nothing is available now); a take waits on.
     */
    public void linkLost() {
        synchronized (this) {
            releaseBufferLocked();
            answerPull();
        }
        arrival.wake();
    }

    /**
     * A reconnection creates this consumer again on {@code next}, before writing its CREATE_CONSUMER: the consumer
     * starts afresh there, at its whole prefetch window, with nothing consumed or unacknowledged (what was is the
     * server's again, and comes back marked redelivered).
     *
     * @return false for a consumer that is closed, or was refused: nothing to create
     */
    public synchronized boolean reattach(ConnectedLink next) {
        if (closed || failureCode != null) {
            return false;
        }
        releaseBufferLocked();
        answerPull();
        link = next;
        unacknowledged = 0;
        return true;
    }

    /** A PULL whose link is gone is answered by nobody: its takeNow finds nothing. Under this. */
    private void answerPull() {
        long pull = awaitedPull;
        if (pull > lastPullDone) {
            lastPullDone = pull;
        }
    }

    private void releaseBufferLocked() {
        for (Frame.Deliver d; (d = buffer.pollFirst()) != null; ) {
            d.message().release();
        }
    }
}
