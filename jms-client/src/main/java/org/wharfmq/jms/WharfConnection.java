package org.wharfmq.jms;

import org.wharfmq.client.core.ClientException;
import org.wharfmq.client.core.ConnectedLink;
import org.wharfmq.client.core.LinkEvents;
import org.wharfmq.client.core.LinkHandler;
import org.wharfmq.client.core.LinkLostException;
import org.wharfmq.client.core.PendingRequests;
import org.wharfmq.client.core.Reconnector;
import org.wharfmq.client.core.transport.BrokerAddress;
import org.wharfmq.client.core.transport.FrameLink;
import org.wharfmq.client.core.transport.FrameWait;

import org.wharfmq.protocol.TemporaryNames;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.message.WireDestination;

import javax.jms.Connection;
import javax.jms.ConnectionConsumer;
import javax.jms.ConnectionMetaData;
import javax.jms.Destination;
import javax.jms.ExceptionListener;
import javax.jms.IllegalStateException;
import javax.jms.InvalidClientIDException;
import javax.jms.JMSException;
import javax.jms.JMSSecurityException;
import javax.jms.Queue;
import javax.jms.QueueConnection;
import javax.jms.QueueSession;
import javax.jms.ServerSessionPool;
import javax.jms.Session;
import javax.jms.Topic;
import javax.jms.TopicConnection;
import javax.jms.TopicSession;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
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
 * A connection to a Wharf server, shared by all its sessions. Thread-safe. Extended only by
 * {@link WharfXAConnection}, which also makes XA sessions.
 *
 * <p>Requests that need an answer register a future under a fresh request id and wait for it with the
 * {@code requestTimeout}; no lock is held while writing or waiting. Inbound frames are routed by consumer id
 * (deliveries) and request id (answers) on the link's reading thread.
 *
 * <p><b>Links and reconnection.</b> The connection talks to its server over one {@link ConnectedLink} at a time. When
 * that link is lost (the server or the network drops it, the heartbeat finds the server silent), the connection is
 * made again ({@link Reconnector}, as the URL's reconnect options say) to the same address or the next in the URL's
 * list, and everything the server knew of it is re-established on the new link: its connection key (which takes over
 * from the old connection if the server still holds it), client ID, temporary destinations, sessions and consumers.
 * Meanwhile sends and requests wait for {@link #usableLink()}, and receives wait as for any message. Only when
 * reconnecting gives up (or is turned off, {@code reconnectAttempts=0}) is the connection lost: every waiting request
 * fails, every blocked {@code receive} wakes, and the ExceptionListener is called once, on its own thread.
 *
 * <p>What re-establishment restores is registered, and its request written, under the read side of
 * {@link #establishing}; the reconnection holds the write side while it re-creates everything and publishes the new
 * link. So state registered on a link that died is either re-created by the reconnection that follows, or registered
 * and requested on the new link, never neither or both. Sends, receives and acknowledgements never take that lock.
 */
public class WharfConnection implements Connection, QueueConnection, TopicConnection {
    private static final System.Logger LOG = System.getLogger(WharfConnection.class.getName());
    private static final AtomicLong CONNECTIONS = new AtomicLong();
    private static final SecureRandom KEYS = new SecureRandom();
    /** Random per JVM run plus the pid, so message ids from different processes or runs never collide. */
    private static final String PROCESS_TAG = Long.toHexString(ThreadLocalRandom.current().nextLong() >>> 16)
            + "-" + ProcessHandle.current().pid();

    private final BrokerUrl url;
    /** The credentials every link logs in with; the factory that made this connection holds them too. */
    private final String user;
    private final String password;
    /** The connection key (CLAIM_KEY): secret, drawn once, presented on every link of this connection. */
    private final byte[] key = new byte[TemporaryNames.KEY_BYTES];
    private final PendingRequests requests = new PendingRequests();
    /** What this connection's links hand on, once handshaken (on their reading threads). */
    private final LinkEvents events = new Events();
    /** What a reconnection of this connection asks of it (on the reconnection's thread). */
    private final Reconnector.Connection reconnection = new Reconnection();
    private final ConcurrentHashMap<Integer, WharfSession> sessions = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Integer, ClientConsumer> consumers = new ConcurrentHashMap<>();
    /** Open QueueBrowser enumerations, by their consumer id (the same id space as consumers). */
    private final ConcurrentHashMap<Integer, WharfQueueBrowser.Cursor> browsers = new ConcurrentHashMap<>();
    private final AtomicInteger lastSessionId = new AtomicInteger();
    private final AtomicInteger lastProducerId = new AtomicInteger();
    private final AtomicInteger lastConsumerId = new AtomicInteger();
    private final AtomicInteger lastGeneration = new AtomicInteger();
    private final AtomicLong lastMessageNumber = new AtomicLong();
    private final String messageIdPrefix;
    /** Which of the JMS 1.1 domains' methods this connection accepts: a QueueConnection refuses topic ones. */
    private final MessagingDomain domain;
    private final TemporaryDestinationOwner temporaries;
    private final AtomicBoolean closing = new AtomicBoolean();
    private volatile boolean closed;
    private volatile boolean started;
    /** The newest link: deliveries come on it, waiting threads read it. Never null after construction. */
    private volatile ConnectedLink current;
    /** {@link #current} while it is up and everything is re-established on it; null while reconnecting, lost or closed. */
    private volatile ConnectedLink usable;
    /** Why the connection is lost for good (reconnecting gave up, or is off); null while it works or reconnects. */
    private volatile JMSException lostCause;
    /** The reconnection under way, or null; guarded by {@link #stateLock}. */
    private Reconnector reconnector;
    /** Guards the changes of state above; threads waiting for {@link #usable} wait on it. */
    private final Object stateLock = new Object();
    private final ReentrantReadWriteLock establishing = new ReentrantReadWriteLock();
    private volatile ExceptionListener exceptionListener;
    private volatile FailoverListener failoverListener;
    /** Whether a MessageListener was ever set: every link then reads on its reader thread only. */
    private volatile boolean listenerUsed;
    private final Set<WireDestination> consumableQueues = ConcurrentHashMap.newKeySet();
    private final Object clientIdLock = new Object();
    /** The client ID, which each new link sets again; written under {@link #clientIdLock}. */
    private volatile String clientId;
    private boolean clientIdFrozen;
    /** Whether {@link #clientId} came from the connection factory (option {@code clientID}); under {@link #clientIdLock}. */
    private boolean clientIdAdministered;

    /**
     * Connects to the first of the URL's addresses that answers (each is tried once), completes the handshake and
     * agrees the heartbeat. The connection starts stopped.
     *
     * @param domain {@link MessagingDomain#QUEUE} for a QueueConnection, {@link MessagingDomain#TOPIC} for a
     *               TopicConnection, else {@link MessagingDomain#BOTH}
     */
    WharfConnection(BrokerUrl url, String user, String password, MessagingDomain domain) throws JMSException {
        this.url = url;
        this.user = user;
        this.password = password;
        this.domain = domain;
        this.messageIdPrefix = "ID:wharf-" + PROCESS_TAG + "-" + CONNECTIONS.incrementAndGet() + ":";
        KEYS.nextBytes(key);
        this.temporaries = new TemporaryDestinationOwner(this, TemporaryNames.namespace(key));
        ConnectedLink first = connectFirst();
        current = first;
        usable = first;
        // not waited for: a fresh key is nobody else's, and it leaves with the first frame the application sends
        first.writeSoon(new Frame.ClaimKey(0, key));
        if (url.clientId() != null) {
            administeredClientId();
        }
    }

    /**
     * Sets the client ID the connection factory configures (option {@code clientID}) before the application sees the
     * connection; closes the connection when the server refuses it (another connection holds that client ID).
     */
    private void administeredClientId() throws JMSException {
        try {
            synchronized (clientIdLock) {
                assignClientId(url.clientId());
                clientIdAdministered = true;
            }
        } catch (JMSException e) {
            try {
                close();
            } catch (JMSException closing) {
                e.addSuppressed(closing);
            }
            throw e;
        }
    }

    /** The first link: the URL's addresses in order, each once. */
    private ConnectedLink connectFirst() throws JMSException {
        List<JMSException> failures = new ArrayList<>();
        for (BrokerAddress address : url.addresses()) {
            try {
                return open(address);
            } catch (JMSSecurityException refused) {
                throw refused; // the same credentials would be refused by the next address too
            } catch (JMSException e) {
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
        throw JmsErrors.wrap(why.toString(), failures.get(0));
    }

    /**
     * Opens one link to {@code address}: connects, completes the handshake with this connection's credentials and
     * starts the heartbeat ({@link LinkHandler#open}). It is not yet the connection's current link.
     */
    ConnectedLink open(BrokerAddress address) throws JMSException {
        try {
            return reconnection.open(address);
        } catch (ClientException e) {
            throw JmsErrors.toException(e);
        }
    }

    // ---- state used by sessions, producers and consumers ----

    BrokerUrl url() {
        return url;
    }

    /** The newest link: what waiting threads read, and what an in-flight delivery's link is compared with. */
    ConnectedLink current() {
        return current;
    }

    /** The link of {@link #current()}, for the waits of this connection's consumers ({@link FrameWait}). */
    FrameLink link() {
        return current.link();
    }

    boolean isStarted() {
        return started;
    }

    /** Non-null once the connection has been lost for good. */
    JMSException lostCause() {
        return lostCause;
    }

    /** Creates and deletes this connection's temporary queues and topics. */
    TemporaryDestinationOwner temporaries() {
        return temporaries;
    }

    int nextProducerId() {
        return lastProducerId.incrementAndGet();
    }

    int nextConsumerId() {
        return lastConsumerId.incrementAndGet();
    }

    String nextMessageId() {
        return messageIdPrefix + lastMessageNumber.incrementAndGet();
    }

    /**
     * Whether the server has accepted a plain consumer on {@code queue} on this connection before: another one
     * there is then created without waiting for the answer (see {@link WharfSession}), saving a round trip per
     * consumer in the request/reply pattern that opens a consumer per request.
     */
    boolean consumerAcceptedBefore(WireDestination queue) {
        return consumableQueues.contains(queue);
    }

    /** Records that the server accepted a plain consumer on {@code queue}. */
    void consumerAccepted(WireDestination queue) {
        consumableQueues.add(queue);
    }

    /** Forgets that consumers were accepted on {@code queue}, which this connection has deleted. */
    void queueGone(WireDestination queue) {
        consumableQueues.remove(queue);
    }

    /**
     * A consumer created without waiting was refused (its queue was deleted since, say): its next receive raises
     * the error, and every later consumer waits for the server's answer again until one is accepted.
     */
    void onConsumerFailed(Frame.ConsumerFailed failed) {
        consumableQueues.clear();
        ClientConsumer consumer = consumers.get(failed.consumerId());
        if (consumer != null) {
            consumer.failed(failed.code(), failed.message());
        } else {
            LOG.log(System.Logger.Level.WARNING, "Wharf at {0} refused consumer {1}, which is closed already: {2}",
                    current.address(), failed.consumerId(), failed.message());
        }
    }

    void registerConsumer(ClientConsumer consumer) {
        consumers.put(consumer.id(), consumer);
    }

    void unregisterConsumer(ClientConsumer consumer) {
        consumers.remove(consumer.id(), consumer);
    }

    void registerBrowser(WharfQueueBrowser.Cursor cursor) {
        browsers.put(cursor.id, cursor);
    }

    void unregisterBrowser(WharfQueueBrowser.Cursor cursor) {
        browsers.remove(cursor.id, cursor);
    }

    void removeSession(WharfSession session) {
        sessions.remove(session.id(), session);
    }

    /** Throws once the connection is closed or lost for good; never waits (the connection may be reconnecting). */
    void checkOpen() throws JMSException {
        if (closing.get()) {
            throw new IllegalStateException("The connection is closed");
        }
        JMSException lost = lostCause;
        if (lost != null) {
            throw lostException(lost);
        }
    }

    /** The usable link, or null while reconnecting, once lost, or closed: for frames worth sending only now. */
    ConnectedLink usableOrNull() {
        return usable;
    }

    /**
     * The link to send on: at once while the connection is up; while it reconnects, waits until it is up again.
     *
     * @throws JMSException once closed or lost for good (reconnecting gave up), or when interrupted while waiting
     */
    ConnectedLink usableLink() throws JMSException {
        ConnectedLink link = usable;
        return link != null ? link : awaitUsable();
    }

    private ConnectedLink awaitUsable() throws JMSException {
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
                    throw new JMSException("Interrupted while waiting for the connection to Wharf to be made again");
                }
            }
        }
    }

    /** A fresh exception, thrown on the caller's thread, that says the connection was lost and why. */
    JMSException lostException(JMSException cause) {
        return JmsErrors.wrap(cause.getMessage(), cause);
    }

    /** Sends the frames {@link FrameLink#writeSoon} left waiting: called before the application blocks. */
    void flushSoonFrames() {
        current.link().flush();
    }

    /** Gives up on a registered request whose answer is no longer awaited. */
    void forgetRequest(int requestId) {
        requests.forget(requestId);
    }

    /** Registers a request that goes out on {@code on}, before its frame is written. */
    PendingRequests.Request register(ConnectedLink on) {
        return requests.register(requests.nextId(), on);
    }

    /**
     * Sends a request on the usable link and waits for its answer, reading it on this thread while no other thread
     * reads ({@link FrameWait}): the caller must hold no lock that delivering a frame takes.
     *
     * @return null for OK, else the ERROR frame
     * @throws ReconnectingException when the link was lost before the answer (the connection reconnects)
     * @throws JMSException when the connection is lost or the answer does not come within requestTimeout
     */
    Frame.Error request(IntFunction<Frame> frame, String what) throws JMSException {
        return request(usableLink(), frame, what);
    }

    /** {@link #request} on a given link. */
    Frame.Error request(ConnectedLink on, IntFunction<Frame> frame, String what) throws JMSException {
        PendingRequests.Request request = register(on);
        on.write(frame.apply(request.id));
        return await(request, what);
    }

    /** {@link #request} that throws the mapped exception for an ERROR answer. */
    void requestOk(IntFunction<Frame> frame, String what) throws JMSException {
        throwIfError(request(frame, what));
    }

    /**
     * {@link #requestOk} for a request that is simply made again after a reconnection: one whose effect is the same
     * made twice (CREATE_PRODUCER, which only checks; CLOSE_SESSION, answered OK for a session the server does not
     * know), or whose state the reconnection does not restore.
     */
    void requestOkRetrying(IntFunction<Frame> frame, String what) throws JMSException {
        requestOkRetrying(frame, what, null);
    }

    /**
     * {@link #requestOkRetrying}, for a request whose first try may have done its work on a server that the
     * reconnection found again: there, the answer {@code doneBefore} to the repeat means the first did it (an
     * UNSUBSCRIBE or a DELETE_TEMPORARY finding nothing left to delete).
     */
    void requestOkRetrying(IntFunction<Frame> frame, String what, ErrorCode doneBefore) throws JMSException {
        boolean repeat = false;
        while (true) {
            try {
                Frame.Error error = request(frame, what);
                if (error != null && !(repeat && error.code() == doneBefore)) {
                    throw JmsErrors.toException(error);
                }
                return;
            } catch (ReconnectingException lost) {
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
    Frame.Error establish(Consumer<ConnectedLink> register, IntFunction<Frame> frame, String what) throws JMSException {
        PendingRequests.Request request = underEstablishing(link -> {
            register.accept(link);
            PendingRequests.Request r = register(link);
            link.write(frame.apply(r.id));
            return r;
        });
        try {
            return await(request, what);
        } catch (ReconnectingException lost) {
            usableLink(); // the reconnection re-created it with the rest; this waits for it to finish (or throws)
            return null;
        }
    }

    /**
     * Runs {@code change} on the usable link under the read lock of {@link #establishing}, waiting first while the
     * connection reconnects: for registering (or unregistering) what a reconnection restores, together with the
     * frame that tells the server.
     */
    <T> T underEstablishing(Function<ConnectedLink, T> change) throws JMSException {
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
    void unregister(Consumer<ConnectedLink> change) {
        establishing.readLock().lock();
        try {
            change.accept(usable);
        } finally {
            establishing.readLock().unlock();
        }
    }

    /** Waits up to requestTimeout for a registered request's answer (see {@link #request}). */
    Frame.Error await(PendingRequests.Request request, String what) throws JMSException {
        boolean answered = request.await(TimeUnit.MILLISECONDS.toNanos(url.requestTimeoutMillis()));
        if (!answered) {
            requests.forget(request.id);
            if (Thread.currentThread().isInterrupted()) {
                throw new JMSException("Interrupted while waiting for the answer to " + what);
            }
            throw new JMSException("No answer from Wharf at " + request.on.address() + " to " + what + " within "
                    + url.requestTimeoutMillis() + " ms (requestTimeout)");
        }
        try {
            return request.answer().join();
        } catch (CompletionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof LinkLostException lost) {
                throw new ReconnectingException(lost.getMessage()); // on this thread, for its stack trace
            }
            JMSException failure = JmsErrors.fromCore(cause, what);
            throw failure == cause || failure == cause.getCause() ? lostException(failure) : failure;
        }
    }

    private static void throwIfError(Frame.Error error) throws JMSException {
        if (error != null) {
            throw JmsErrors.toException(error);
        }
    }

    /** A MessageListener is in use: only the links' reader threads read from now on ({@link FrameLink#readerOnly}). */
    void listenerInUse() {
        listenerUsed = true;
        current.link().readerOnly();
    }

    // ---- inbound, on the IO thread ----

    void onDeliver(Frame.Deliver deliver) {
        ClientConsumer consumer = consumers.get(deliver.consumerId());
        if (consumer != null) {
            consumer.deliver(deliver);
            return;
        }
        WharfQueueBrowser.Cursor browser = browsers.get(deliver.consumerId());
        if (browser != null) {
            browser.enqueue(deliver);
        } else {
            deliver.message().release(); // the consumer was closed; the server takes these back
        }
    }

    void onPullDone(Frame.PullDone done) {
        ClientConsumer consumer = consumers.get(done.consumerId());
        if (consumer != null) {
            consumer.pullDone(done.pullId());
            return;
        }
        WharfQueueBrowser.Cursor browser = browsers.get(done.consumerId());
        if (browser != null) {
            browser.pullDone(done.pullId());
        }
    }

    /** PRODUCER_CREDIT read from {@code on}: the session's producers may send more there (producer flow control). */
    void onProducerCredit(ConnectedLink on, Frame.ProducerCredit credit) {
        WharfSession session = sessions.get(credit.sessionId());
        if (session != null) {
            session.sender().onProducerCredit(on.generation(), credit.bytes());
        }
    }

    /** The failure of a fire-and-forget request: an asynchronous send's goes to its session. */
    void onAsyncError(ConnectedLink on, Frame.Error error) {
        WharfSession session = error.sessionId() == 0 ? null : sessions.get(error.sessionId());
        if (session != null && error.producerId() != 0) {
            session.sender().onAsyncSendError(error);
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
    void linkLost(ConnectedLink link, String reason, Throwable cause, boolean mayReconnect) {
        JMSException lost = new JMSException("Connection to Wharf at " + link.address() + " was lost: " + reason);
        if (cause instanceof Exception e) {
            lost.setLinkedException(e);
            lost.initCause(e);
        }
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
            starting = mayReconnect && url.reconnect().enabled()
                    ? new Reconnector(reconnection, url.addresses(), url.reconnect(), link, JmsErrors.toCore(lost)) : null;
            reconnector = starting;
        }
        if (starting == null) {
            giveUp(lost, null);
            return;
        }
        LOG.log(System.Logger.Level.WARNING, "{0}; reconnecting ({1})", lost.getMessage(), url.reconnect().describe());
        requests.failLink(link, ConnectedLink.reconnecting(link));
        forEverySession(WharfSession::onLinkLost);
        browsers.values().forEach(WharfQueueBrowser.Cursor::wake);
        link.link().close(0);
        starting.start();
    }

    /**
     * The connection is lost for good: fails every request, wakes every waiting thread, closes the link and tells the
     * ExceptionListener, once, on a new thread.
     *
     * @param stopped the reconnection that gave up, or null when none ran
     */
    void giveUp(JMSException lost, Reconnector stopped) {
        synchronized (stateLock) {
            if (lostCause != null || (stopped != null && reconnector != stopped)) {
                return;
            }
            lostCause = lost;
            usable = null;
            reconnector = null;
            stateLock.notifyAll();
        }
        requests.failAll(JmsErrors.toCore(lost));
        forEverySession(WharfSession::onConnectionLost);
        browsers.values().forEach(WharfQueueBrowser.Cursor::wake);
        current.link().close(0);
        ExceptionListener listener = exceptionListener;
        if (listener != null && !closing.get()) {
            Thread notifier = new Thread(() -> listener.onException(lost), "wharf-exception-listener");
            notifier.setDaemon(true);
            notifier.start();
        }
    }

    private void forEverySession(Consumer<WharfSession> action) {
        for (WharfSession session : sessions.values()) {
            action.accept(session);
        }
    }

    /**
     * Re-establishes the connection on {@code next}, a link a reconnection has just opened, under the write lock of
     * {@link #establishing}: claims the key (which releases the old connection if the server still holds it), sets the
     * client ID, creates the temporary destinations, sessions and consumers again, and publishes {@code next} as usable.
     * A consumer the server now refuses (its queue is gone, its permission withdrawn) raises why from its next receive;
     * anything else failing fails the attempt, and the reconnection tries again.
     */
    void reestablish(ConnectedLink next) throws JMSException {
        establishing.writeLock().lock();
        try {
            synchronized (stateLock) {
                checkOpen();
                current = next;
            }
            if (listenerUsed) {
                next.link().readerOnly();
            }
            throwIfError(request(next, rid -> new Frame.ClaimKey(rid, key), "CLAIM_KEY"));
            String id = clientId;
            if (id != null) {
                throwIfError(request(next, rid -> new Frame.SetClientId(rid, id), "SET_CLIENT_ID"));
            }
            List<Reestablishing> pending = new ArrayList<>();
            temporaries.reestablish(next, pending);
            for (WharfSession session : sessions.values()) {
                if (!session.isClosing()) {
                    pending.add(Reestablishing.of(this, next, session::createFrame, "CREATE_SESSION",
                            Reestablishing::fail));
                }
            }
            for (WharfSession session : sessions.values()) {
                if (!session.isClosing()) {
                    session.reattachConsumers(next, pending);
                }
            }
            browsers.values().forEach(WharfQueueBrowser.Cursor::interrupted);
            for (Reestablishing step : pending) {
                step.await(this);
            }
            consumableQueues.clear(); // another server, perhaps: its queues are to be found again
            synchronized (stateLock) {
                checkOpen();
                usable = next;
                reconnector = null;
                stateLock.notifyAll();
            }
        } finally {
            establishing.writeLock().unlock();
        }
        forEverySession(WharfSession::wakeAll);
    }

    /** Tells the FailoverListener, if any, on the calling (reconnection) thread. */
    void failover(FailoverEvent event) {
        FailoverListener listener = failoverListener;
        if (listener != null) {
            try {
                listener.onFailover(event);
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "FailoverListener threw on " + event.kind(), e);
            }
        }
    }

    /**
     * One request a reconnection sends to re-create something, written at once and awaited after all the others:
     * a reconnection of a connection with many consumers waits one round trip, not one per consumer.
     */
    record Reestablishing(PendingRequests.Request request, String what, ErrorHandler onError) {
        /** What an ERROR answer means for the thing re-created. */
        @FunctionalInterface
        interface ErrorHandler {
            void handle(Frame.Error error) throws JMSException;
        }

        /** Writes the request on {@code on} now. */
        static Reestablishing of(WharfConnection connection, ConnectedLink on, IntFunction<Frame> frame, String what,
                                 ErrorHandler onError) {
            PendingRequests.Request request = connection.register(on);
            on.write(frame.apply(request.id));
            return new Reestablishing(request, what, onError);
        }

        /** An ERROR fails the reconnection attempt. */
        static void fail(Frame.Error error) throws JMSException {
            throw JmsErrors.toException(error);
        }

        void await(WharfConnection connection) throws JMSException {
            Frame.Error error = connection.await(request, what);
            if (error != null) {
                onError.handle(error);
            }
        }
    }

    /** The connection's side of its links' {@link LinkHandler}s. */
    private final class Events implements LinkEvents {
        @Override
        public void onDeliver(Frame.Deliver deliver) {
            WharfConnection.this.onDeliver(deliver);
        }

        @Override
        public void onPullDone(Frame.PullDone done) {
            WharfConnection.this.onPullDone(done);
        }

        @Override
        public void onConsumerFailed(Frame.ConsumerFailed failed) {
            WharfConnection.this.onConsumerFailed(failed);
        }

        @Override
        public void onProducerCredit(ConnectedLink on, Frame.ProducerCredit credit) {
            WharfConnection.this.onProducerCredit(on, credit);
        }

        @Override
        public void onAsyncError(ConnectedLink on, Frame.Error error) {
            WharfConnection.this.onAsyncError(on, error);
        }

        @Override
        public void linkLost(ConnectedLink link, String reason, Throwable cause, boolean mayReconnect) {
            WharfConnection.this.linkLost(link, reason, cause, mayReconnect);
        }
    }

    /** The connection's side of its {@link Reconnector}s: the core's failures in JMS terms, and back. */
    private final class Reconnection implements Reconnector.Connection {
        @Override
        public ConnectedLink open(BrokerAddress address) throws ClientException {
            return LinkHandler.open(address, url.tls(), user, password, url.clientName(), url.heartbeatMillis(),
                    url.connectTimeoutMillis(), lastGeneration::incrementAndGet, requests, events);
        }

        @Override
        public void reestablish(ConnectedLink next) throws ClientException {
            try {
                WharfConnection.this.reestablish(next);
            } catch (JMSException e) {
                throw JmsErrors.toCore(e);
            }
        }

        @Override
        public void giveUp(ClientException why, Reconnector stopped) {
            WharfConnection.this.giveUp(toJms(why), stopped);
        }

        @Override
        public void failover(Reconnector.Step step, BrokerAddress address, int attempts, ClientException cause) {
            WharfConnection.this.failover(new FailoverEvent(FailoverEvent.Kind.valueOf(step.name()), address.toString(),
                    attempts, cause == null ? null : toJms(cause)));
        }

        /** The JMS form of why the link was lost, or of why reconnecting gave up (its cause mapped too). */
        private JMSException toJms(ClientException failure) {
            if (failure.getCause() instanceof JMSException j && failure.getMessage().equals(j.getMessage())) {
                return j; // the facade's own, handed to the core as it was
            }
            JMSException e = new JMSException(failure.getMessage());
            Throwable cause = failure.getCause();
            if (cause != null) {
                JMSException mapped = JmsErrors.fromCore(cause, "reconnecting");
                e.setLinkedException(mapped);
                e.initCause(mapped);
            }
            return e;
        }
    }

    // ---- javax.jms.Connection ----

    private void freezeClientId() {
        synchronized (clientIdLock) {
            clientIdFrozen = true;
        }
    }

    @Override
    public Session createSession(boolean transacted, int acknowledgeMode) throws JMSException {
        return newSession(transacted ? Session.SESSION_TRANSACTED : acknowledgeMode);
    }

    @Override
    public Session createSession(int sessionMode) throws JMSException {
        return newSession(sessionMode);
    }

    @Override
    public Session createSession() throws JMSException {
        return newSession(Session.AUTO_ACKNOWLEDGE);
    }

    /** A session that refuses publish/subscribe methods (JMS 1.1 section 4.11). Not on a TopicConnection. */
    @Override
    public QueueSession createQueueSession(boolean transacted, int acknowledgeMode) throws JMSException {
        requireDomain(MessagingDomain.QUEUE, "createQueueSession");
        return newSession(transacted ? Session.SESSION_TRANSACTED : acknowledgeMode, MessagingDomain.QUEUE);
    }

    /** A session that refuses point-to-point methods (JMS 1.1 section 4.11). Not on a QueueConnection. */
    @Override
    public TopicSession createTopicSession(boolean transacted, int acknowledgeMode) throws JMSException {
        requireDomain(MessagingDomain.TOPIC, "createTopicSession");
        return newSession(transacted ? Session.SESSION_TRANSACTED : acknowledgeMode, MessagingDomain.TOPIC);
    }

    /** Refuses a method of the other domain on a QueueConnection or TopicConnection. */
    void requireDomain(MessagingDomain needed, String method) throws IllegalStateException {
        domain.require(needed, method, "Connection");
    }

    private WharfSession newSession(int mode) throws JMSException {
        return newSession(mode, MessagingDomain.BOTH);
    }

    private WharfSession newSession(int mode, MessagingDomain sessionDomain) throws JMSException {
        if (mode < Session.SESSION_TRANSACTED || mode > Session.DUPS_OK_ACKNOWLEDGE) {
            throw new JMSException("Invalid session mode " + mode + ": use SESSION_TRANSACTED (0), AUTO_ACKNOWLEDGE (1),"
                    + " CLIENT_ACKNOWLEDGE (2) or DUPS_OK_ACKNOWLEDGE (3)");
        }
        return openSession(mode, sessionDomain);
    }

    /**
     * A session of any mode, {@link Frame#SESSION_XA} included (a {@link WharfXASession}), created on the server.
     *
     * @param mode a JMS session mode or {@link Frame#SESSION_XA}, already checked
     */
    WharfSession openSession(int mode, MessagingDomain sessionDomain) throws JMSException {
        freezeClientId();
        checkOpen();
        int id = lastSessionId.incrementAndGet();
        WharfSession session = mode == Frame.SESSION_XA ? new WharfXASession(this, id, sessionDomain)
                : new WharfSession(this, id, mode, sessionDomain);
        Frame.Error error;
        try {
            error = establish(link -> sessions.put(id, session), session::createFrame, "CREATE_SESSION");
        } catch (JMSException e) {
            sessions.remove(id);
            throw e;
        }
        if (error != null) {
            sessions.remove(id);
            throw JmsErrors.toException(error);
        }
        return session;
    }

    @Override
    public String getClientID() throws JMSException {
        checkNotClosed();
        synchronized (clientIdLock) {
            return clientId;
        }
    }

    @Override
    public void setClientID(String clientID) throws JMSException {
        if (clientID == null || clientID.isEmpty()) {
            throw new InvalidClientIDException("The client ID must not be null or empty");
        }
        synchronized (clientIdLock) {
            if (clientIdAdministered) {
                throw new IllegalStateException("The client ID of this connection is '" + clientId + "', configured by"
                        + " its connection factory (option clientID); it cannot be set again. Use a factory without"
                        + " clientID to choose the client ID in the application");
            }
            if (clientId != null) {
                throw new IllegalStateException("The client ID is already set to '" + clientId + "'");
            }
            if (clientIdFrozen) {
                throw new IllegalStateException("setClientID must be called before the connection is used");
            }
            assignClientId(clientID);
        }
    }

    /** Sets the client ID on the server, which keeps client IDs unique across its connections; under {@link #clientIdLock}. */
    private void assignClientId(String clientID) throws JMSException {
        checkOpen();
        // InvalidClientIDException when another connection holds it; set before the request, so that a reconnection
        // meanwhile sets it on the new link
        Frame.Error error;
        try {
            error = establish(link -> clientId = clientID, rid -> new Frame.SetClientId(rid, clientID), "SET_CLIENT_ID");
        } catch (JMSException e) {
            clientId = null;
            throw e;
        }
        if (error != null) {
            clientId = null;
            throw JmsErrors.toException(error);
        }
        clientIdFrozen = true;
    }

    @Override
    public ConnectionMetaData getMetaData() throws JMSException {
        checkNotClosed();
        return WharfConnectionMetaData.INSTANCE;
    }

    @Override
    public ExceptionListener getExceptionListener() throws JMSException {
        checkNotClosed();
        return exceptionListener;
    }

    @Override
    public void setExceptionListener(ExceptionListener listener) throws JMSException {
        checkNotClosed();
        this.exceptionListener = listener;
    }

    /**
     * Sets the listener told when the connection loses its server and when it has reconnected (Wharf's own, beside
     * the JMS ExceptionListener, which hears only of a loss reconnecting could not repair); null removes it.
     */
    public void setFailoverListener(FailoverListener listener) throws JMSException {
        checkNotClosed();
        this.failoverListener = listener;
    }

    /** The listener set with {@link #setFailoverListener}, or null. */
    public FailoverListener getFailoverListener() throws JMSException {
        checkNotClosed();
        return failoverListener;
    }

    private void checkNotClosed() throws IllegalStateException {
        if (closing.get()) {
            throw new IllegalStateException("The connection is closed");
        }
    }

    @Override
    public void start() throws JMSException {
        checkNotClosed();
        freezeClientId();
        started = true;
        for (WharfSession session : sessions.values()) {
            session.connectionStarted();
        }
    }

    /** Stops delivery and returns once no MessageListener of this connection is running. */
    @Override
    public void stop() throws JMSException {
        checkNotClosed();
        if (isOwnDispatcherThread()) {
            throw new IllegalStateException("A MessageListener must not stop its own connection");
        }
        freezeClientId();
        started = false;
        for (WharfSession session : sessions.values()) {
            session.awaitListenerIdle();
        }
    }

    private boolean isOwnDispatcherThread() {
        return Thread.currentThread() instanceof SessionDispatcher.ListenerThread t && t.session().connection() == this;
    }

    private boolean isOwnCompletionThread() {
        return Thread.currentThread() instanceof CompletionDispatcher d && d.session().connection() == this;
    }

    /**
     * Closes every session (waiting for running MessageListeners), tells the server CLOSE and closes the
     * socket. Idempotent. Not allowed from a MessageListener or CompletionListener of this connection (JMS 2.0
     * lets a provider refuse the first; it must refuse the second).
     */
    @Override
    public void close() throws JMSException {
        if (isOwnDispatcherThread()) {
            throw new IllegalStateException("A MessageListener must not close its own connection");
        }
        if (isOwnCompletionThread()) {
            throw new IllegalStateException("A CompletionListener must not close its own connection (JMS 2.0 section 7.3.8)");
        }
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
            for (WharfSession session : sessions.values()) {
                session.closeForConnection();
            }
            ConnectedLink link = usable;
            if (link != null && lostCause == null && link.link().isOpen()) {
                try {
                    await(writeClose(link), "CLOSE");
                } catch (JMSException e) {
                    LOG.log(System.Logger.Level.DEBUG, "No orderly close answer from {0}: {1}", link.address(), e.getMessage());
                }
            }
        } finally {
            closed = true;
            synchronized (stateLock) {
                usable = null;
            }
            requests.failAll(new ClientException("The connection is closed", null));
            current.link().close(url.connectTimeoutMillis());
        }
    }

    /** Registers and writes CLOSE on {@code link}. */
    private PendingRequests.Request writeClose(ConnectedLink link) {
        PendingRequests.Request request = register(link);
        link.write(new Frame.Close(request.id));
        return request;
    }

    @Override
    public ConnectionConsumer createConnectionConsumer(Destination destination, String messageSelector,
                                                       ServerSessionPool sessionPool, int maxMessages) throws JMSException {
        throw JmsErrors.notSupported("ConnectionConsumer (application server facilities)");
    }

    @Override
    public ConnectionConsumer createConnectionConsumer(Queue queue, String messageSelector, ServerSessionPool sessionPool,
                                                       int maxMessages) throws JMSException {
        requireDomain(MessagingDomain.QUEUE, "createConnectionConsumer(Queue, ...)");
        throw JmsErrors.notSupported("ConnectionConsumer (application server facilities)");
    }

    @Override
    public ConnectionConsumer createConnectionConsumer(Topic topic, String messageSelector, ServerSessionPool sessionPool,
                                                       int maxMessages) throws JMSException {
        requireDomain(MessagingDomain.TOPIC, "createConnectionConsumer(Topic, ...)");
        throw JmsErrors.notSupported("ConnectionConsumer (application server facilities)");
    }

    @Override
    public ConnectionConsumer createSharedConnectionConsumer(Topic topic, String subscriptionName, String messageSelector,
                                                             ServerSessionPool sessionPool, int maxMessages) throws JMSException {
        requireDomain(MessagingDomain.TOPIC, "createSharedConnectionConsumer");
        throw JmsErrors.notSupported("ConnectionConsumer (application server facilities)");
    }

    @Override
    public ConnectionConsumer createDurableConnectionConsumer(Topic topic, String subscriptionName, String messageSelector,
                                                              ServerSessionPool sessionPool, int maxMessages) throws JMSException {
        requireDomain(MessagingDomain.TOPIC, "createDurableConnectionConsumer");
        throw JmsErrors.notSupported("ConnectionConsumer (application server facilities)");
    }

    @Override
    public ConnectionConsumer createSharedDurableConnectionConsumer(Topic topic, String subscriptionName, String messageSelector,
                                                                    ServerSessionPool sessionPool, int maxMessages) throws JMSException {
        requireDomain(MessagingDomain.TOPIC, "createSharedDurableConnectionConsumer");
        throw JmsErrors.notSupported("ConnectionConsumer (application server facilities)");
    }

    @Override
    public String toString() {
        return "WharfConnection[" + current.address() + (lostCause != null ? ", lost" : closing.get() ? ", closed"
                : usable == null ? ", reconnecting" : "") + "]";
    }
}
