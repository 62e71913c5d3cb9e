package org.wharfmq.client.core;

import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.message.WireDestination;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One session of a {@link CoreConnection}, without JMS: creates its consumers ({@link CoreConsumer}) and producers on
 * the server, sends through its {@link CoreSender} (producer credit, synchronous and asynchronous sends, sends in a
 * transaction), settles what the consumers consume ({@link CoreSettlement}: acknowledgement, commit, rollback), is
 * created again, consumers and all, after a reconnection, runs its consumers' {@link MessageHandler}s on its dispatch
 * thread ({@link SessionDispatcher}), and closes ({@link #close}). What the user made of the session (producers,
 * browsers) hears of the connection's events and of the close through its {@link Hooks}. Used by one thread at a time,
 * as the user's session is (its dispatch thread, once a consumer has a handler); closing it and its consumers may come
 * from others.
 *
 * <p>Owns whether the session is closing or closed: set by {@link #close} or by its connection's close, read by any
 * thread.
 */
public final class CoreSession {

    /** What the session's user adds to it, told of the connection's events; every method has a do-nothing default. */
    public interface Hooks {
        /** Hears nothing. */
        Hooks NONE = new Hooks() {
        };

        /** The link was lost and the connection reconnects (after the consumers dropped their buffers). */
        default void onLinkLost() {
        }

        /** The connection is lost for good (after the consumers dropped their buffers). */
        default void onConnectionLost() {
        }

        /**
         * The session closes ({@link #close}, or its connection's close): what the user made of the session (producers,
         * browsers) is closed. Called once, after the session's asynchronous sends completed and its handlers took
         * their last delivery, before it waits for a running handler.
         */
        default void closing() {
        }
    }

    private final CoreConnection connection;
    private final int id;
    private final int mode;
    /** The window of the session's consumers and browses. */
    private final int prefetch;
    private final Hooks hooks;
    private final CoreSettlement settlement;
    private final CoreSender sender;
    /** Runs the consumers' message handlers. */
    private final SessionDispatcher dispatcher;
    private final Member member = new Member();
    /** Set once by the close, its user's or its connection's: sends, acknowledgements and reconnections see it. */
    private final AtomicBoolean closing = new AtomicBoolean();
    /** Set once the close has completed (the server answered, or had forgotten the session). */
    private volatile boolean closed;

    /**
     * A session not yet created on the server ({@link #open}).
     *
     * @param mode      {@link CoreSettlement#SESSION_TRANSACTED}, {@link CoreSettlement#AUTO_ACKNOWLEDGE},
     *                  {@link CoreSettlement#CLIENT_ACKNOWLEDGE}, {@link CoreSettlement#DUPS_OK_ACKNOWLEDGE} or
     *                  {@link Frame#SESSION_XA}
     * @param prefetch  the window of the session's consumers and browses: messages the server may send each ahead of
     *                  its user; DUPS_OK acknowledgements go back in batches of half of it
     *                  ({@link ClientConfiguration#creditBatch})
     * @param syncSends every send waits for the server's answer, not only a persistent one outside a transaction
     */
    public CoreSession(CoreConnection connection, int mode, int prefetch, boolean syncSends, Hooks hooks) {
        this.connection = connection;
        this.id = connection.nextSessionId();
        this.mode = mode;
        this.prefetch = prefetch;
        this.hooks = hooks;
        this.sender = new CoreSender(this, syncSends);
        this.settlement = new CoreSettlement(this, ClientConfiguration.creditBatch(prefetch), sender);
        this.dispatcher = new SessionDispatcher(this);
    }

    /** Creates the session on the server; a reconnection from now on creates it again. */
    public void open() throws ClientException {
        connection.openSession(member);
    }

    public int id() {
        return id;
    }

    public int mode() {
        return mode;
    }

    /** The window of the session's consumers and browses: messages the server may send each ahead of its user. */
    public int prefetch() {
        return prefetch;
    }

    /** Whether the session is closing or closed ({@link #close}, or its connection's close). */
    public boolean isClosing() {
        return closing.get();
    }

    /** Whether the session's close has completed. */
    public boolean isClosed() {
        return closed;
    }

    /** The thread that runs the consumers' message handlers. */
    SessionDispatcher dispatcher() {
        return dispatcher;
    }

    /** True on this session's dispatch thread, inside one of its consumers' {@link MessageHandler}s. */
    public boolean isDispatchThread() {
        return dispatcher.isDispatchThread();
    }

    /** The session whose dispatch thread the caller is (inside one of its {@link MessageHandler}s), or null. */
    public static CoreSession dispatching() {
        return SessionDispatcher.current();
    }

    public CoreConnection connection() {
        return connection;
    }

    /** The session's acknowledgement and transactions, which hold its consumers. */
    public CoreSettlement settlement() {
        return settlement;
    }

    /** The session's sending side, which its producers send through. */
    public CoreSender sender() {
        return sender;
    }

    /** CREATE_SESSION for this session (again, after a reconnection). */
    public Frame.CreateSession createFrame(int requestId) {
        return new Frame.CreateSession(requestId, id, mode == CoreSettlement.SESSION_TRANSACTED, mode);
    }

    // ---- consumers and producers ----

    /**
     * Creates a consumer on the server. A plain queue consumer where the server has accepted one on this connection
     * before is not waited for: it leaves in one packet with what the user sends next (or when it waits), and a refusal
     * (the queue deleted since) is raised by its {@link CoreConsumer#receive}; any other waits for the server's answer.
     * Registered before the request, since deliveries may follow the answer at once. Its credit goes back in batches of
     * half its window ({@link ClientConfiguration#creditBatch}). Refused before anything is sent: a selector the
     * grammar refuses ({@code INVALID_SELECTOR}, saying what is wrong where), a temporary destination this connection
     * deleted ({@code UNKNOWN_DESTINATION}).
     *
     * @throws ClientException the server's refusal (no such queue, no permission, a bad selector), or the connection's
     *                         failure
     */
    public CoreConsumer createConsumer(CoreConsumer.Spec spec) throws ClientException {
        WireDestination destination = spec.destination();
        connection.temporaries().checkNotDeleted(destination);
        Selectors.checked(spec.selector());
        CoreConsumer consumer = new CoreConsumer(connection, connection.nextConsumerId(),
                ClientConfiguration.creditBatch(spec.prefetch()), spec, settlement, dispatcher);
        ConsumerRegistry registry = connection.consumers();
        try {
            boolean plainQueue = spec.flags() == 0 && destination.kind().isQueue();
            if (plainQueue && registry.consumerAcceptedBefore(destination)) {
                connection.underEstablishing(link -> {
                    register(consumer, link);
                    link.writeSoon(consumer.createFrame(0));
                    return null;
                });
            } else {
                Frame.Error error = connection.establish(link -> register(consumer, link), consumer::createFrame,
                        "CREATE_CONSUMER");
                if (error != null) {
                    throw ClientException.of(error);
                }
                consumer.checkAccepted(); // created again by a reconnection meanwhile: refused there, perhaps
                if (plainQueue) {
                    registry.consumerAccepted(destination);
                }
            }
            consumer.createWritten();
        } catch (ClientException e) {
            connection.unregister(link -> registry.unregisterConsumer(consumer.id(), consumer));
            consumer.close();
            settlement.closed(consumer);
            throw e;
        }
        return consumer;
    }

    /** Makes {@code consumer} one of this session's consumers, created on {@code link}. */
    private void register(CoreConsumer consumer, ConnectedLink link) {
        consumer.createdOn(link);
        settlement.added(consumer);
        connection.consumers().registerConsumer(consumer.id(), consumer);
    }

    /**
     * Closes {@code consumer}: a waiting take returns null, its buffered deliveries are released, a running handler of
     * the session is waited for when the consumer hands its deliveries on (unless the caller is that handler), and
     * the server is told how far it consumed (no answer): what it had buffered goes back to the queue now. What it
     * consumed stays to be settled by the session.
     *
     * @return false if it was closed already
     */
    public boolean closeConsumer(CoreConsumer consumer) {
        if (!consumer.close()) {
            return false;
        }
        if (consumer.handsOn()) {
            dispatcher.awaitIdle(); // what the running handler consumes counts in how far the consumer got
        }
        connection.unregister(link -> {
            connection.consumers().unregisterConsumer(consumer.id(), consumer);
            settlement.closed(consumer);
            if (link != null) {
                // at once, not with the next frame: a user that closes a consumer expects its acknowledgements to
                // count and its buffered messages to go to other consumers now, not up to 20 ms later
                link.write(new Frame.CloseConsumer(0, id, consumer.id(), consumer.lastConsumedOn(link)));
            }
        });
        return true;
    }

    /**
     * Creates producer {@code producerId} (from {@link CoreConnection#nextProducerId()}) for {@code destination}, null
     * for one that names its destination per message. Producers hold no state on the server, which only checks the
     * destination: asked again after a reconnection. A temporary destination this connection deleted is refused
     * without asking ({@code UNKNOWN_DESTINATION}).
     */
    public void createProducer(int producerId, WireDestination destination) throws ClientException {
        if (destination != null) {
            connection.temporaries().checkNotDeleted(destination);
        }
        connection.requestOkRetrying(rid -> new Frame.CreateProducer(rid, id, producerId, destination), "CREATE_PRODUCER");
    }

    /**
     * Tells the server that producer {@code producerId} is closed; no answer. Nothing is sent while the connection
     * reconnects or once the session closes: the server has forgotten the producer with the link, or does with the
     * session.
     */
    public void closeProducer(int producerId) {
        ConnectedLink on = connection.usableOrNull();
        if (on != null && !isClosing()) {
            on.write(new Frame.CloseProducer(0, id, producerId));
        }
    }

    // ---- closing ----

    /**
     * Closes the session, the one way to (its connection's close does the same without CLOSE_SESSION, since the
     * connection's CLOSE releases it on the server). In order: sends stop (a send waiting for producer credit gives
     * up) and the asynchronous sends complete, their completions returned; the handlers take no more deliveries, what
     * the user made of the session closes ({@link Hooks#closing}) and a running handler is waited for (unless the
     * caller is that handler); DUPS_OK's pending
     * acknowledgements go out; each consumer closes, telling the server how far it consumed, so what it had buffered
     * goes back to the queue as it was; and CLOSE_SESSION tells the server, which rolls back the open transaction and
     * gives back, marked redelivered, what was consumed and not settled; its answer is awaited. While the connection
     * reconnects nothing is waited for: the server forgot the session with the link, and the reconnection does not
     * create it again. Idempotent; any thread.
     *
     * @throws ClientException the server's refusal of CLOSE_SESSION or no answer in time, or the connection closed
     *                         meanwhile: the session is closed on this side all the same
     */
    public void close() throws ClientException {
        if (!closeLocally()) {
            return;
        }
        try {
            PendingRequests.Request[] request = new PendingRequests.Request[1];
            connection.unregister(link -> {
                if (link != null) {
                    request[0] = connection.register(link);
                    link.write(new Frame.CloseSession(request[0].id, id));
                }
            });
            if (request[0] != null) {
                try {
                    Frame.Error error = connection.await(request[0], "CLOSE_SESSION");
                    if (error != null) {
                        throw ClientException.of(error);
                    }
                } catch (LinkLostException lost) {
                    // the server forgot the session with the link, and the reconnection does not create it again
                }
            }
        } finally {
            closedLocally();
        }
    }

    /** Everything {@link #close} does but tell the server. @return false when closing already */
    private boolean closeLocally() {
        if (!closing.compareAndSet(false, true)) {
            return false;
        }
        sender.close();
        dispatcher.close();
        hooks.closing();
        member.wakeAll();
        dispatcher.awaitIdle(); // what a running handler consumes counts in how far each consumer got
        if (mode == CoreSettlement.DUPS_OK_ACKNOWLEDGE) {
            settlement.acknowledgeConsumedNow();
        }
        for (CoreConsumer c : settlement.consumers()) {
            closeConsumer(c);
        }
        return true;
    }

    private void closedLocally() {
        closed = true;
        connection.removeSession(member);
    }

    // ---- what the connection asks of the session ----

    /** The session's side of its connection. */
    private final class Member implements SessionMember {
        @Override
        public int id() {
            return id;
        }

        @Override
        public boolean isClosing() {
            return closing.get();
        }

        @Override
        public Frame createFrame(int requestId) {
            return CoreSession.this.createFrame(requestId);
        }

        /**
         * A reconnection creates this session's open consumers again on {@code next}: each CREATE_CONSUMER is written
         * now, and added to {@code pending} to be awaited; one the server refuses there raises why from its next take.
         */
        @Override
        public void reattachConsumers(ConnectedLink next, List<Reestablishing> pending) {
            for (CoreConsumer c : settlement.consumers()) {
                if (c.reattach(next)) {
                    pending.add(Reestablishing.of(connection, next, c::createFrame, "CREATE_CONSUMER",
                            error -> c.failed(error.code(), error.message())));
                }
            }
        }

        @Override
        public void onProducerCredit(int generation, int bytes) {
            sender.onProducerCredit(generation, bytes);
        }

        @Override
        public void onAsyncSendError(Frame.Error error) {
            sender.onAsyncSendError(error);
        }

        /** The connection has started: its consumers get the window withheld while it was stopped. */
        @Override
        public void connectionStarted() throws ClientException {
            for (CoreConsumer c : settlement.consumers()) {
                c.grantWithheldCredit();
            }
            wakeAll();
        }

        @Override
        public void awaitIdle() {
            dispatcher.awaitIdle();
        }

        /** The link was lost and the connection reconnects: buffered deliveries are dropped; takes wait on. */
        @Override
        public void onLinkLost() {
            settlement.linkLost();
            sender.linkLost();
            hooks.onLinkLost();
            wakeAll();
        }

        /** The connection is lost for good: buffered deliveries are dropped, waiting threads woken to find out. */
        @Override
        public void onConnectionLost() {
            for (CoreConsumer c : settlement.consumers()) {
                c.releaseBuffer();
            }
            dispatcher.clear();
            sender.connectionLost();
            hooks.onConnectionLost();
            wakeAll();
        }

        /** Wakes every waiting take and the dispatch thread: start, close and connection loss change what they wait for. */
        @Override
        public void wakeAll() {
            dispatcher.wake();
            for (CoreConsumer c : settlement.consumers()) {
                c.wake();
            }
        }

        /** The connection closes: the session closes locally (the connection's CLOSE releases it on the server). */
        @Override
        public void closeForConnection() {
            if (closeLocally()) {
                closedLocally();
            }
        }
    }
}
