package org.wharfmq.client.core;

import org.wharfmq.client.core.transport.BrokerAddress;
import org.wharfmq.client.core.transport.FrameLink;
import org.wharfmq.client.core.transport.FrameWait;
import org.wharfmq.protocol.TemporaryNames;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.Frame;

import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.IntFunction;

/**
 * A connection to a Wharf server without JMS, shared by its sessions: its links, its state (up, reconnecting, lost,
 * closed), its requests and what it registers to be re-created after a reconnection (sessions, consumers, temporary
 * destinations, client ID). Thread-safe. The JMS facade's {@code WharfConnection} is a thin layer over it.
 *
 * <p>Requests that need an answer register under a fresh request id and wait for it with the {@code requestTimeout};
 * no lock is held while writing or waiting. Inbound frames are routed by consumer id ({@link ConsumerRegistry}) and
 * request id ({@link PendingRequests}) on the link's reading thread.
 *
 * <p><b>Links and reconnection.</b> The connection talks to its server over one {@link ConnectedLink} at a time. When
 * that link is lost (the server or the network drops it, the heartbeat finds the server silent), the connection is
 * made again ({@link Reconnector}, as the settings' {@link ReconnectPolicy} says) to the same address or the next in
 * the list, and everything the server knew of it is re-established on the new link: its connection key (which takes
 * over from the old connection if the server still holds it), client ID, temporary destinations, sessions and
 * consumers. Meanwhile sends and requests wait for {@link #usableLink()}, and receives wait as for any message. Only
 * when reconnecting gives up (or is off) is the connection lost: every waiting request fails, every session hears of
 * it, and the {@link ConnectionListener} is told once.
 *
 * <p>What re-establishment restores is registered, and its request written, under the read side of
 * {@link #establishing}; the reconnection holds the write side while it re-creates everything and publishes the new
 * link. So state registered on a link that died is either re-created by the reconnection that follows, or registered
 * and requested on the new link, never neither or both. Sends, receives and acknowledgements never take that lock.
 */
public final class CoreConnection {
    private static final System.Logger LOG = System.getLogger(CoreConnection.class.getName());
    private static final AtomicLong CONNECTIONS = new AtomicLong();
    private static final SecureRandom KEYS = new SecureRandom();
    /** Random per JVM run plus the pid, so message ids from different processes or runs never collide. */
    private static final String PROCESS_TAG = Long.toHexString(ThreadLocalRandom.current().nextLong() >>> 16)
            + "-" + ProcessHandle.current().pid();

    private final ConnectionSettings settings;
    private final ConnectionListener listener;
    /** The connection key (CLAIM_KEY): secret, drawn once, presented on every link of this connection. */
    private final byte[] key = new byte[TemporaryNames.KEY_BYTES];
    private final PendingRequests requests = new PendingRequests();
    private final ConsumerRegistry consumers = new ConsumerRegistry();
    /** What this connection's links hand on besides deliveries, once handshaken (on their reading threads). */
    private final LinkEvents events = new Events();
    /** What a reconnection of this connection asks of it (on the reconnection's thread). */
    private final Reconnector.Connection reconnection = new Reconnection();
    private final ConcurrentHashMap<Integer, SessionMember> sessions = new ConcurrentHashMap<>();
    private final TemporaryDestinations temporaries;
    private final AtomicInteger lastSessionId = new AtomicInteger();
    private final AtomicInteger lastProducerId = new AtomicInteger();
    private final AtomicInteger lastConsumerId = new AtomicInteger();
    private final AtomicInteger lastGeneration = new AtomicInteger();
    private final AtomicLong lastMessageNumber = new AtomicLong();
    private final String messageIdPrefix;
    private final AtomicBoolean closing = new AtomicBoolean();
    private volatile boolean started;
    /** The newest link: deliveries come on it, waiting threads read it. Never null after construction. */
    private volatile ConnectedLink current;
    /** {@link #current} while it is up and everything is re-established on it; null while reconnecting, lost or closed. */
    private volatile ConnectedLink usable;
    /** What runs before a send waits for producer credit ({@link #beforeCreditWait(Runnable)}); null: nothing. */
    private volatile Runnable beforeCreditWait;
    /** Why the connection is lost for good (reconnecting gave up, or is off); null while it works or reconnects. */
    private volatile ClientException lostCause;
    /** The reconnection under way, or null; guarded by {@link #stateLock}. */
    private Reconnector reconnector;
    /** Guards the changes of state above; threads waiting for {@link #usable} wait on it. */
    private final Object stateLock = new Object();
    private final ReentrantReadWriteLock establishing = new ReentrantReadWriteLock();
    /** Whether only the links' reader threads read (a message listener is in use): every new link then does too. */
    private volatile boolean readerOnly;
    /** The client ID, which each new link sets again; null for none. */
    private volatile String clientId;

    private CoreConnection(ConnectionSettings settings, ConnectionListener listener) {
        this.settings = settings;
        this.listener = listener;
        this.messageIdPrefix = "ID:wharf-" + PROCESS_TAG + "-" + CONNECTIONS.incrementAndGet() + ":";
        KEYS.nextBytes(key);
        this.temporaries = new TemporaryDestinations(this, TemporaryNames.namespace(key));
    }

    /**
     * Connects to the first of the settings' addresses that answers (each is tried once), completes the handshake and
     * agrees the heartbeat. The connection starts stopped: consumers get no messages until {@link #start}.
     *
     * @param listener hears of reconnections and of the connection's loss
     * @throws ClientException why no address could be connected to (the last address's failure, or all of them named,
     *                         with the code NOT_ACTIVE when a replica of a replicated queue manager was among them);
     *                         a refusal of the credentials at once, since every address would refuse them
     */
    public static CoreConnection connect(ConnectionSettings settings, ConnectionListener listener) throws ClientException {
        CoreConnection connection = new CoreConnection(settings, listener);
        ConnectedLink first = connection.connectFirst();
        connection.current = first;
        connection.usable = first;
        if (!first.statusSession()) {
            // not waited for: a fresh key is nobody else's, and it leaves with the first frame the application sends
            first.writeSoon(new Frame.ClaimKey(0, connection.key));
        }
        return connection;
    }

    /**
     * Whether the server made this connection a replica's status session (it asked with
     * {@link org.wharfmq.protocol.frame.Frame.Hello#STATUS_SESSION}): then it takes {@link #status} alone.
     */
    public boolean statusSession() {
        return current.statusSession();
    }

    /**
     * Runs the read-only admin command {@code command} in this status session (STATUS_REQUEST).
     *
     * @return the command's answer, the admin protocol's JSON
     * @throws ClientException the server's refusal (NOT_AUTHORISED, NOT_ACTIVE naming the active member), or the
     *                         connection's failure
     */
    public String status(String command) throws ClientException {
        ConnectedLink on = usableLink();
        PendingRequests.Request request = register(on);
        on.write(new Frame.StatusRequest(request.id, command));
        throwIfError(await(request, "STATUS_REQUEST " + command));
        return request.required(request.statusReply(), "STATUS_REPLY").json();
    }

    /** The first link: the addresses in order, each once. */
    private ConnectedLink connectFirst() throws ClientException {
        List<ClientException> failures = new ArrayList<>();
        for (BrokerAddress address : settings.addresses()) {
            try {
                return reconnection.open(address);
            } catch (ClientException e) {
                if (e.code() == ErrorCode.AUTHENTICATION_FAILED || e.code() == ErrorCode.NOT_AUTHORISED) {
                    throw e; // the same credentials would be refused by the next address too
                }
                failures.add(e);
            }
        }
        if (failures.size() == 1) {
            throw failures.get(0);
        }
        StringBuilder why = new StringBuilder("Cannot connect to Wharf at any of its " + failures.size() + " addresses: ");
        for (int i = 0; i < failures.size(); i++) {
            why.append(i == 0 ? "" : "; ").append(failures.get(i).getMessage());
        }
        // a replica among them (a replicated queue manager whose active member was not reached): said by the code
        boolean replica = failures.stream().anyMatch(f -> f.code() == ErrorCode.NOT_ACTIVE);
        throw new ClientException(replica ? ErrorCode.NOT_ACTIVE : null, why.toString(), failures.get(0));
    }

    // ---- state ----

    public ConnectionSettings settings() {
        return settings;
    }

    /** The newest link: what waiting threads read, and what an in-flight delivery's link is compared with. */
    public ConnectedLink current() {
        return current;
    }

    /** The link of {@link #current()}, for the waits of this connection's consumers ({@link FrameWait}). */
    public FrameLink link() {
        return current.link();
    }

    /** The usable link, or null while reconnecting, once lost, or closed: for frames worth sending only now. */
    public ConnectedLink usableOrNull() {
        return usable;
    }

    /** Non-null once the connection has been lost for good. */
    public ClientException lostCause() {
        return lostCause;
    }

    /** Whether {@link #close} has been called. */
    public boolean isClosing() {
        return closing.get();
    }

    public boolean isStarted() {
        return started;
    }

    /** Where deliveries are routed by consumer id. */
    public ConsumerRegistry consumers() {
        return consumers;
    }

    /** Creates and deletes this connection's temporary queues and topics. */
    public TemporaryDestinations temporaries() {
        return temporaries;
    }

    public int nextSessionId() {
        return lastSessionId.incrementAndGet();
    }

    public int nextProducerId() {
        return lastProducerId.incrementAndGet();
    }

    public int nextConsumerId() {
        return lastConsumerId.incrementAndGet();
    }

    /** A message id unique across connections, processes and runs ({@code ID:wharf-...}). */
    public String nextMessageId() {
        return messageIdPrefix + lastMessageNumber.incrementAndGet();
    }

    /** The client ID set with {@link #assignClientId}, or null. */
    public String clientId() {
        return clientId;
    }

    /**
     * Throws once the connection is closed (code {@link ErrorCode#ILLEGAL_STATE}) or lost for good (the cause is
     * {@link #lostCause()}); never waits (the connection may be reconnecting).
     */
    public void checkOpen() throws ClientException {
        if (closing.get()) {
            throw closed();
        }
        checkNotLost();
    }

    /** Throws once the connection is lost for good (the cause is {@link #lostCause()}); never waits. */
    public void checkNotLost() throws ClientException {
        ClientException lost = lostCause;
        if (lost != null) {
            throw lostException(lost);
        }
    }

    private static ClientException closed() {
        return new ClientException(ErrorCode.ILLEGAL_STATE, "The connection is closed");
    }

    /** A fresh exception, thrown on the caller's thread, that says the connection was lost and why ({@code lost}). */
    private static ClientException lostException(ClientException lost) {
        return new ClientException(lost.code(), lost.getMessage(), lost);
    }

    /**
     * The link to send on: at once while the connection is up; while it reconnects, waits until it is up again.
     *
     * @throws ClientException once closed or lost for good (reconnecting gave up), or when interrupted while waiting
     */
    public ConnectedLink usableLink() throws ClientException {
        ConnectedLink link = usable;
        return link != null ? link : awaitUsable();
    }

    private ConnectedLink awaitUsable() throws ClientException {
        synchronized (stateLock) {
            while (true) {
                checkOpen();
                ConnectedLink link = usable;
                if (link != null) {
                    return link;
                }
                try {
                    stateLock.wait();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new ClientException("Interrupted while waiting for the connection to Wharf to be made again", e);
                }
            }
        }
    }

    /** Sends the frames {@link FrameLink#writeSoon} left waiting: called before the application blocks. */
    public void flushSoonFrames() {
        current.link().flush();
    }

    /**
     * Runs {@code settle} on a thread of this connection before a send of any of its sessions waits for producer
     * credit, after the frames waiting to go with the next one went: what the connection's owner owes the server
     * outside this connection, which the server may need before it grants credit. The queue manager's flow host gives
     * one: a flow's reader settles the messages it took inside the queue manager, whose bytes hold the memory budget
     * that the credit waits for (docs/architecture.md, "Flows inside the queue manager"). It runs on whatever thread
     * sends, and must not block. Null: none.
     */
    public void beforeCreditWait(Runnable settle) {
        this.beforeCreditWait = settle;
    }

    /** Before a send waits for producer credit: what waits to go with the next frame, then {@link #beforeCreditWait}. */
    void creditWaitComing() {
        flushSoonFrames();
        Runnable settle = beforeCreditWait;
        if (settle != null) {
            settle.run();
        }
    }

    /** A message listener is in use: only the links' reader threads read from now on ({@link FrameLink#readerOnly}). */
    public void readerOnly() {
        readerOnly = true;
        current.link().readerOnly();
    }

    // ---- requests ----

    /** Gives up on a registered request whose answer is no longer awaited. */
    public void forgetRequest(int requestId) {
        requests.forget(requestId);
    }

    /** Registers a request that goes out on {@code on}, before its frame is written. */
    public PendingRequests.Request register(ConnectedLink on) {
        return requests.register(requests.nextId(), on);
    }

    /**
     * Sends a request on the usable link and waits for its answer, reading it on this thread while no other thread
     * reads ({@link FrameWait}): the caller must hold no lock that delivering a frame takes.
     *
     * @return null for OK, else the ERROR frame
     * @throws LinkLostException when the link was lost before the answer (the connection reconnects)
     * @throws ClientException   when the connection is lost or the answer does not come within requestTimeout
     */
    public Frame.Error request(IntFunction<Frame> frame, String what) throws ClientException {
        return request(usableLink(), frame, what);
    }

    /** {@link #request} on a given link. */
    public Frame.Error request(ConnectedLink on, IntFunction<Frame> frame, String what) throws ClientException {
        PendingRequests.Request request = register(on);
        on.write(frame.apply(request.id));
        return await(request, what);
    }

    /** {@link #request} that throws the server's refusal for an ERROR answer. */
    public void requestOk(IntFunction<Frame> frame, String what) throws ClientException {
        throwIfError(request(frame, what));
    }

    /**
     * {@link #requestOk} for a request that is simply made again after a reconnection: one whose effect is the same
     * made twice (CREATE_PRODUCER, which only checks; CLOSE_SESSION, answered OK for a session the server does not
     * know), or whose state the reconnection does not restore.
     */
    public void requestOkRetrying(IntFunction<Frame> frame, String what) throws ClientException {
        requestOkRetrying(frame, what, null);
    }

    /**
     * {@link #requestOkRetrying}, for a request whose first try may have done its work on a server that the
     * reconnection found again: there, the answer {@code doneBefore} to the repeat means the first did it (an
     * UNSUBSCRIBE or a DELETE_TEMPORARY finding nothing left to delete).
     */
    public void requestOkRetrying(IntFunction<Frame> frame, String what, ErrorCode doneBefore) throws ClientException {
        boolean repeat = false;
        while (true) {
            try {
                Frame.Error error = request(frame, what);
                if (error != null && !(repeat && error.code() == doneBefore)) {
                    throw ClientException.of(error);
                }
                return;
            } catch (LinkLostException lost) {
                repeat = true; // made again on the new link, which request() waits for
            }
        }
    }

    /**
     * Registers state that a reconnection re-establishes (a session, a consumer, a temporary destination) and sends
     * the request that creates it, both under the read lock of {@link #establishing}, then waits for the answer.
     *
     * @param register records the state where the reconnection finds it, given the link the request goes out on;
     *                 runs before the request is written
     * @return null for OK, else the ERROR frame; null also when the link was lost before the answer and the
     * reconnection that followed has re-created the state (what went wrong there shows on the state itself)
     */
    public Frame.Error establish(Consumer<ConnectedLink> register, IntFunction<Frame> frame, String what)
            throws ClientException {
        PendingRequests.Request request = underEstablishing(link -> {
            register.accept(link);
            PendingRequests.Request r = register(link);
            link.write(frame.apply(r.id));
            return r;
        });
        try {
            return await(request, what);
        } catch (LinkLostException lost) {
            usableLink(); // the reconnection re-created it with the rest; this waits for it to finish (or throws)
            return null;
        }
    }

    /**
     * Runs {@code change} on the usable link under the read lock of {@link #establishing}, waiting first while the
     * connection reconnects: for registering (or unregistering) what a reconnection restores, together with the
     * frame that tells the server.
     */
    public <T> T underEstablishing(Function<ConnectedLink, T> change) throws ClientException {
        while (true) {
            ConnectedLink link = usableLink();
            establishing.readLock().lock();
            try {
                if (usable == link) {
                    return change.apply(link);
                }
            } finally {
                establishing.readLock().unlock();
            }
        }
    }

    /**
     * Runs {@code change} under the read lock of {@link #establishing} at once, with the usable link or, while the
     * connection reconnects (or is lost), null: for closing what a reconnection would otherwise restore, which needs
     * no server while there is none (the server forgot it with the link).
     */
    public void unregister(Consumer<ConnectedLink> change) {
        establishing.readLock().lock();
        try {
            change.accept(usable);
        } finally {
            establishing.readLock().unlock();
        }
    }

    /**
     * Waits up to requestTimeout for a registered request's answer (see {@link #request}).
     *
     * @throws LinkLostException when the request's link was lost before the answer, while the connection reconnects
     * @throws RequestTimeoutException when no answer came in time
     * @throws ClientException   when the connection was closed or lost (the cause is then {@link #lostCause()})
     */
    public Frame.Error await(PendingRequests.Request request, String what) throws ClientException {
        boolean answered = request.await(TimeUnit.MILLISECONDS.toNanos(settings.requestTimeoutMillis()));
        if (!answered) {
            requests.forget(request.id);
            if (Thread.currentThread().isInterrupted()) {
                throw new ClientException("Interrupted while waiting for the answer to " + what, null);
            }
            throw new RequestTimeoutException("No answer from Wharf at " + request.on.address() + " to " + what
                    + " within " + settings.requestTimeoutMillis() + " ms (requestTimeout)");
        }
        try {
            return request.answer().join();
        } catch (CompletionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof LinkLostException lost) {
                throw new LinkLostException(lost.getMessage()); // on this thread, for its stack trace
            }
            if (cause instanceof ClientException failure) {
                throw new ClientException(failure.code(), failure.getMessage(), failure); // on this thread
            }
            throw new ClientException(what + " failed: " + cause, cause);
        }
    }

    private static void throwIfError(Frame.Error error) throws ClientException {
        if (error != null) {
            throw ClientException.of(error);
        }
    }

    // ---- sessions and the client ID ----

    /**
     * Creates a session on the server, registered first so that a reconnection meanwhile creates it again.
     *
     * @param session the session, whose {@link SessionMember#id()} came from {@link #nextSessionId()}
     * @throws ClientException the server's refusal, or the connection's failure
     */
    public void openSession(SessionMember session) throws ClientException {
        checkOpen();
        int id = session.id();
        Frame.Error error;
        try {
            error = establish(link -> sessions.put(id, session), session::createFrame, "CREATE_SESSION");
        } catch (ClientException e) {
            sessions.remove(id, session);
            throw e;
        }
        if (error != null) {
            sessions.remove(id, session);
            throw ClientException.of(error);
        }
    }

    /** Forgets a closed session. */
    public void removeSession(SessionMember session) {
        sessions.remove(session.id(), session);
    }

    /** The open sessions. */
    public Collection<SessionMember> sessions() {
        return sessions.values();
    }

    /**
     * Deletes the durable subscription {@code name} of this connection's client ID: UNKNOWN_DESTINATION when there is
     * none of that name, ILLEGAL_STATE while a consumer is open on it. Asked again after a reconnection, where "no such
     * subscription" may be the first request's work.
     */
    public void unsubscribe(String name) throws ClientException {
        requestOkRetrying(rid -> new Frame.Unsubscribe(rid, name), "UNSUBSCRIBE", ErrorCode.UNKNOWN_DESTINATION);
    }

    /**
     * Sets the client ID on the server, which keeps client IDs unique across its connections (INVALID_CLIENT_ID when
     * another connection holds it); every link the connection makes after a reconnection sets it again. The caller
     * makes sure it is set once.
     */
    public void assignClientId(String id) throws ClientException {
        checkOpen();
        // set before the request, so that a reconnection meanwhile sets it on the new link
        Frame.Error error;
        try {
            error = establish(link -> clientId = id, rid -> new Frame.SetClientId(rid, id), "SET_CLIENT_ID");
        } catch (ClientException e) {
            clientId = null;
            throw e;
        }
        if (error != null) {
            clientId = null;
            throw ClientException.of(error);
        }
    }

    /** Starts delivery to the consumers of every session. */
    public void start() throws ClientException {
        started = true;
        for (SessionMember session : sessions.values()) {
            session.connectionStarted();
        }
    }

    /** Stops delivery and returns once no message handler of this connection runs. */
    public void stop() {
        started = false;
        for (SessionMember session : sessions.values()) {
            session.awaitIdle();
        }
    }

    /**
     * Closes every session, tells the server CLOSE and closes the link. Idempotent. A reconnection under way stops;
     * threads waiting for it find the connection closed.
     */
    public void close() {
        if (!closing.compareAndSet(false, true)) {
            return;
        }
        started = false;
        Reconnector reconnecting;
        synchronized (stateLock) {
            reconnecting = reconnector;
            reconnector = null;
            stateLock.notifyAll(); // threads waiting for the reconnection find the connection closed
        }
        if (reconnecting != null) {
            reconnecting.stop();
        }
        try {
            for (SessionMember session : sessions.values()) {
                session.closeForConnection();
            }
            ConnectedLink link = usable;
            if (link != null && lostCause == null && link.link().isOpen()) {
                try {
                    PendingRequests.Request request = register(link);
                    link.write(new Frame.Close(request.id));
                    await(request, "CLOSE");
                } catch (ClientException e) {
                    LOG.log(System.Logger.Level.DEBUG, "No orderly close answer from {0}: {1}", link.address(), e.getMessage());
                }
            }
        } finally {
            synchronized (stateLock) {
                usable = null;
            }
            requests.failAll(new ClientException("The connection is closed", null));
            current.link().close(settings.connectTimeoutMillis());
        }
    }

    // ---- inbound, on the reading thread ----

    /** PRODUCER_CREDIT read from {@code on}: the session's producers may send more there (producer flow control). */
    private void onProducerCredit(ConnectedLink on, Frame.ProducerCredit credit) {
        SessionMember session = sessions.get(credit.sessionId());
        if (session != null) {
            session.onProducerCredit(on.generation(), credit.bytes());
        }
    }

    /** The failure of a fire-and-forget request: an asynchronous send's goes to its session. */
    private void onAsyncError(ConnectedLink on, Frame.Error error) {
        SessionMember session = error.sessionId() == 0 ? null : sessions.get(error.sessionId());
        if (session != null && error.producerId() != 0) {
            session.onAsyncSendError(error);
        } else {
            LOG.log(System.Logger.Level.WARNING, "Wharf at {0} reported {1} for a fire-and-forget request (session {2}): {3}",
                    on.address(), error.code(), error.sessionId(), error.message());
        }
    }

    /**
     * Link {@code link} has ended (first report wins). The end of an older link, or of the new link a reconnection
     * is setting up, only fails the requests that went out on it. The end of the current link starts a reconnection,
     * unless reconnecting is off or {@code mayReconnect} is false (a protocol error), in which case the connection is
     * lost: see {@link #giveUp}. While it reconnects, requests on the lost link fail (each caller knows what that means
     * for it), buffered deliveries are dropped (the server takes them back), and waiting threads wait on.
     */
    /**
     * The server sent {@code what} (a consumer, a browse) a delivery past its window: {@code buffered} deliveries wait
     * unread, {@link ClientConfiguration#maxBuffered} of its {@code prefetch}. The link ends and the connection is
     * lost without reconnecting, as for a protocol error: the application's memory is not the server's to fill.
     * Called on {@code on}'s reading thread, by the target, outside its own lock.
     */
    void deliveryPastWindow(ConnectedLink on, String what, int prefetch, int buffered) {
        linkLost(on, "the server sent " + what + " more deliveries than its prefetch window of " + prefetch
                + " allows: " + buffered + " wait unread (a server sends at most the window, and one message per PULL;"
                + " the client holds at most twice the window and " + ClientConfiguration.DELIVERY_SLACK + "). The"
                + " client does not reconnect: a server that breaks the protocol, or a stream rewritten in transit"
                + " (use ssl://)", null, false);
    }

    private void linkLost(ConnectedLink link, String reason, Throwable cause, boolean mayReconnect) {
        ClientException lost = new ClientException("Connection to Wharf at " + link.address() + " was lost: " + reason, cause);
        Reconnector starting;
        synchronized (stateLock) {
            if (closing.get()) {
                // close() may still wait for the answer to CLOSE; the server closing first is an answer too
                requests.failAll(new ClientException("The connection is closed", null));
                return;
            }
            if (link != current || lostCause != null || reconnector != null) {
                requests.failLink(link, ConnectedLink.reconnecting(link));
                link.link().close(0);
                return;
            }
            usable = null;
            starting = mayReconnect && settings.reconnect().enabled()
                    ? new Reconnector(reconnection, settings.addresses(), settings.reconnect(), link, lost) : null;
            reconnector = starting;
        }
        if (starting == null) {
            giveUp(lost, null);
            return;
        }
        LOG.log(System.Logger.Level.WARNING, "{0}; reconnecting ({1})", lost.getMessage(), settings.reconnect().describe());
        requests.failLink(link, ConnectedLink.reconnecting(link));
        sessions.values().forEach(SessionMember::onLinkLost);
        consumers.wakeBrowsers();
        link.link().close(0);
        starting.start();
    }

    /**
     * The connection is lost for good: fails every request, tells every session, closes the link and tells the
     * listener, once.
     *
     * @param stopped the reconnection that gave up, or null when none ran
     */
    private void giveUp(ClientException lost, Reconnector stopped) {
        synchronized (stateLock) {
            if (lostCause != null || (stopped != null && reconnector != stopped)) {
                return;
            }
            lostCause = lost;
            usable = null;
            reconnector = null;
            stateLock.notifyAll();
        }
        requests.failAll(lost);
        sessions.values().forEach(SessionMember::onConnectionLost);
        consumers.wakeBrowsers();
        current.link().close(0);
        if (!closing.get() && listener.listensForLoss()) {
            notifyLost(lost);
        }
    }

    /**
     * Tells the listener the connection is lost, on a thread of its own ({@code wharf-connection-lost}, a daemon): the
     * thread that found it out (a link's reader, a reconnection) must not wait for the user's code, and that code may
     * call the connection back (close it, make another). Started only for a listener that listens
     * ({@link ConnectionListener#listensForLoss}). What the listener throws is logged.
     */
    private void notifyLost(ClientException lost) {
        Thread notifier = new Thread(() -> {
            try {
                listener.lost(lost);
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "The connection listener threw on the loss of the connection", e);
            }
        }, "wharf-connection-lost");
        notifier.setDaemon(true);
        notifier.start();
    }

    /**
     * Re-establishes the connection on {@code next}, a link a reconnection has just opened, under the write lock of
     * {@link #establishing}: claims the key (which releases the old connection if the server still holds it), sets the
     * client ID, creates the temporary destinations, sessions and consumers again, and publishes {@code next} as usable.
     * A consumer the server now refuses (its queue is gone, its permission withdrawn) raises why from its next receive;
     * anything else failing fails the attempt, and the reconnection tries again.
     */
    private void reestablish(ConnectedLink next) throws ClientException {
        establishing.writeLock().lock();
        try {
            synchronized (stateLock) {
                checkOpen();
                current = next;
            }
            if (readerOnly) {
                next.link().readerOnly();
            }
            throwIfError(request(next, rid -> new Frame.ClaimKey(rid, key), "CLAIM_KEY"));
            String id = clientId;
            if (id != null) {
                throwIfError(request(next, rid -> new Frame.SetClientId(rid, id), "SET_CLIENT_ID"));
            }
            List<Reestablishing> pending = new ArrayList<>();
            temporaries.reestablish(next, pending);
            for (SessionMember session : sessions.values()) {
                if (!session.isClosing()) {
                    pending.add(Reestablishing.of(this, next, session::createFrame, "CREATE_SESSION",
                            Reestablishing::fail));
                }
            }
            for (SessionMember session : sessions.values()) {
                if (!session.isClosing()) {
                    session.reattachConsumers(next, pending);
                }
            }
            consumers.browsersLinkReplaced();
            for (Reestablishing step : pending) {
                step.await(this);
            }
            consumers.forgetAcceptedQueues(); // another server, perhaps: its queues are to be found again
            synchronized (stateLock) {
                checkOpen();
                usable = next;
                reconnector = null;
                stateLock.notifyAll();
            }
        } finally {
            establishing.writeLock().unlock();
        }
        sessions.values().forEach(SessionMember::wakeAll);
    }

    /** The connection's side of its links' {@link LinkHandler}s, besides the deliveries. */
    private final class Events implements LinkEvents {
        @Override
        public void onProducerCredit(ConnectedLink on, Frame.ProducerCredit credit) {
            CoreConnection.this.onProducerCredit(on, credit);
        }

        @Override
        public void onAsyncError(ConnectedLink on, Frame.Error error) {
            CoreConnection.this.onAsyncError(on, error);
        }

        @Override
        public void linkLost(ConnectedLink link, String reason, Throwable cause, boolean mayReconnect) {
            CoreConnection.this.linkLost(link, reason, cause, mayReconnect);
        }
    }

    /** The connection's side of its {@link Reconnector}s. */
    private final class Reconnection implements Reconnector.Connection {
        @Override
        public ConnectedLink open(BrokerAddress address) throws ClientException {
            return LinkHandler.open(address, settings.tls(), settings.user(), settings.password(), settings.clientName(),
                    settings.heartbeatMillis(), settings.helloFlags(), settings.connectTimeoutMillis(),
                    settings.maxReceiveLength(), lastGeneration::incrementAndGet,
                    requests, consumers, events);
        }

        @Override
        public void reestablish(ConnectedLink next) throws ClientException {
            CoreConnection.this.reestablish(next);
        }

        @Override
        public void giveUp(ClientException why, Reconnector stopped) {
            CoreConnection.this.giveUp(why, stopped);
        }

        @Override
        public void failover(Reconnector.Step step, BrokerAddress address, int attempts, ClientException cause) {
            listener.failover(step, address, attempts, cause);
        }
    }

    @Override
    public String toString() {
        return "CoreConnection[" + current.address() + (lostCause != null ? ", lost" : closing.get() ? ", closed"
                : usable == null ? ", reconnecting" : "") + "]";
    }
}
