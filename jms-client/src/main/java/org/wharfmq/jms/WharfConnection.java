package org.wharfmq.jms;

import io.netty.buffer.ByteBufAllocator;
import org.wharfmq.jms.transport.FrameLink;
import org.wharfmq.jms.transport.FrameWait;
import org.wharfmq.jms.transport.Transport;
import org.wharfmq.protocol.Heartbeat;
import org.wharfmq.protocol.ProtocolVersion;
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
import javax.jms.Queue;
import javax.jms.QueueConnection;
import javax.jms.QueueSession;
import javax.jms.ServerSessionPool;
import javax.jms.Session;
import javax.jms.Topic;
import javax.jms.TopicConnection;
import javax.jms.TopicSession;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;

/**
 * A connection to a Wharf server: one {@link FrameLink}, shared by all its sessions. Thread-safe.
 *
 * <p>Requests that need an answer register a future under a fresh request id and wait for it with the
 * {@code requestTimeout}; no lock is held while writing or waiting. Inbound frames are routed on the IO thread
 * by consumer id (deliveries) and request id (answers) on the link's reading thread.
 *
 * <p>Losing the connection (the link closing without {@link #close()}, a heartbeat timeout, a protocol
 * error) fails every waiting request, wakes every blocked {@code receive}, and calls the ExceptionListener
 * once, on its own thread.
 */
public final class WharfConnection implements Connection, QueueConnection, TopicConnection {
    private static final System.Logger LOG = System.getLogger(WharfConnection.class.getName());
    private static final AtomicLong CONNECTIONS = new AtomicLong();
    /** Random per JVM run plus the pid, so message ids from different processes or runs never collide. */
    private static final String PROCESS_TAG = Long.toHexString(ThreadLocalRandom.current().nextLong() >>> 16)
            + "-" + ProcessHandle.current().pid();

    private final BrokerUrl url;
    private final FrameLink link;
    private final PendingRequests requests = new PendingRequests();
    private final ConcurrentHashMap<Integer, WharfSession> sessions = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Integer, ClientConsumer> consumers = new ConcurrentHashMap<>();
    /** Open QueueBrowser enumerations, by their consumer id (the same id space as consumers). */
    private final ConcurrentHashMap<Integer, WharfQueueBrowser.Cursor> browsers = new ConcurrentHashMap<>();
    private final AtomicInteger lastSessionId = new AtomicInteger();
    private final AtomicInteger lastProducerId = new AtomicInteger();
    private final AtomicInteger lastConsumerId = new AtomicInteger();
    private final AtomicLong lastMessageNumber = new AtomicLong();
    private final String messageIdPrefix;
    private final int maxMessageLength;
    private final int heartbeatMillis;
    private final String serverName;
    private final String serverVersion;
    /** The user the server authenticated (HELLO_OK), null for anonymous; sent messages carry it as JMSXUserID. */
    private final String userName;
    /** Which of the JMS 1.1 domains' methods this connection accepts: a QueueConnection refuses topic ones. */
    private final MessagingDomain domain;
    private final TemporaryDestinationOwner temporaries = new TemporaryDestinationOwner(this);
    private final AtomicBoolean closing = new AtomicBoolean();
    private volatile boolean closed;
    private volatile boolean started;
    private volatile JMSException lostCause;
    private volatile ExceptionListener exceptionListener;
    private final Set<WireDestination> consumableQueues = ConcurrentHashMap.newKeySet();
    private final Object clientIdLock = new Object();
    private String clientId;
    private boolean clientIdFrozen;

    /**
     * Connects, completes the handshake and agrees the heartbeat. The connection starts stopped.
     *
     * @param domain {@link MessagingDomain#QUEUE} for a QueueConnection, {@link MessagingDomain#TOPIC} for a
     *               TopicConnection, else {@link MessagingDomain#BOTH}
     */
    WharfConnection(BrokerUrl url, String user, String password, MessagingDomain domain) throws JMSException {
        this.url = url;
        this.domain = domain;
        this.messageIdPrefix = "ID:wharf-" + PROCESS_TAG + "-" + CONNECTIONS.incrementAndGet() + ":";
        // PLAIN (a password in clear) only over TLS
        ClientHandshake handshake = new ClientHandshake(user, password, url.tls() != null,
                url.tls() != null && url.tls().keyStore() != null, url.address().toString());
        ConnectionHandler handler = new ConnectionHandler(this, handshake);
        this.link = Transport.connect(url.address(), url.tls(), handler, url.connectTimeoutMillis());
        handshake.link(link);
        Frame.HelloOk ok;
        try {
            link.write(new Frame.Hello(ProtocolVersion.CURRENT, url.clientName(), url.heartbeatMillis()));
            ok = handler.hello().get(url.connectTimeoutMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            link.close(url.connectTimeoutMillis());
            if (e.getCause() instanceof JMSException refused) {
                throw refused;
            }
            if (url.address().isTls() && e.getCause() instanceof java.io.IOException lost) {
                // a TLS 1.3 server checks the client's certificate after the client's handshake has finished
                throw Transport.tlsFailure(url.address(), url.tls(), lost);
            }
            throw JmsErrors.wrap("Wharf at " + url.address() + " did not complete the handshake: " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            link.close(url.connectTimeoutMillis());
            throw new JMSException("Wharf at " + url.address() + " did not complete the handshake within " + url.connectTimeoutMillis()
                    + " ms (connectTimeout). Is it a Wharf server?");
        } catch (InterruptedException e) {
            link.close(url.connectTimeoutMillis());
            Thread.currentThread().interrupt();
            throw new JMSException("Interrupted while connecting to Wharf at " + url.address());
        }
        this.userName = ok.user().isEmpty() ? null : ok.user();
        this.maxMessageLength = ok.maxMessageLength();
        this.serverName = ok.serverName();
        this.serverVersion = ok.serverVersion();
        this.heartbeatMillis = agreedHeartbeat(url.heartbeatMillis(), ok.heartbeatMillis());
        if (heartbeatMillis > 0) {
            link.startHeartbeat(heartbeatMillis);
        }
    }

    /** The smaller non-zero interval of the two sides; 0 when both are 0. */
    static int agreedHeartbeat(int client, int server) {
        if (client <= 0) {
            return Math.max(server, 0);
        }
        return server <= 0 ? client : Math.min(client, server);
    }

    // ---- state used by sessions, producers and consumers ----

    BrokerUrl url() {
        return url;
    }

    /** The user the server authenticated this connection as, or null for anonymous. */
    String userName() {
        return userName;
    }

    int maxMessageLength() {
        return maxMessageLength;
    }

    int heartbeatMillis() {
        return heartbeatMillis;
    }

    String serverName() {
        return serverName;
    }

    String serverVersion() {
        return serverVersion;
    }

    ByteBufAllocator alloc() {
        return link.alloc();
    }

    boolean isStarted() {
        return started;
    }

    /** Non-null once the connection has been lost. */
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
                    url.address(), failed.consumerId(), failed.message());
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

    /** Throws unless the connection can carry requests. */
    void checkUsable() throws JMSException {
        if (closing.get()) {
            throw new IllegalStateException("The connection is closed");
        }
        JMSException lost = lostCause;
        if (lost != null) {
            throw lostException(lost);
        }
    }

    /** True when frames can still be written: not lost and not closed. */
    boolean isUsable() {
        return lostCause == null && !closed;
    }

    /** A fresh exception, thrown on the caller's thread, that says the connection was lost and why. */
    JMSException lostException(JMSException cause) {
        return JmsErrors.wrap(cause.getMessage(), cause);
    }

    /** Writes a frame, in order with this thread's earlier ones. Never blocks; a failure shows up as connection loss. */
    void write(Frame frame) {
        link.write(frame);
    }

    /**
     * Writes a frame that nobody waits for and that may leave with the next frame instead of on its own (see
     * {@link FrameLink#writeSoon}); order with every other frame is kept.
     */
    void writeSoon(Frame frame) {
        link.writeSoon(frame);
    }

    /** Sends the frames {@link #writeSoon} left waiting: called before the application blocks. */
    void flushSoonFrames() {
        link.flush();
    }

    /** Registers a request id, for callers that must act between registering and writing (rollback). */
    int newRequestId() {
        return requests.nextId();
    }

    /** Gives up on a registered request whose answer is no longer awaited. */
    void forgetRequest(int requestId) {
        requests.forget(requestId);
    }

    /** Registers a request id taken with {@link #newRequestId}, before its frame is written. */
    PendingRequests.Request register(int requestId) {
        return requests.register(requestId, link);
    }

    /**
     * Sends a request and waits for its answer, reading it on this thread while no other thread reads
     * ({@link FrameWait}): the caller must hold no lock that delivering a frame takes.
     *
     * @return null for OK, else the ERROR frame
     * @throws JMSException when the connection is lost or the answer does not come within requestTimeout
     */
    Frame.Error request(IntFunction<Frame> frame, String what) throws JMSException {
        checkUsable();
        PendingRequests.Request request = register(requests.nextId());
        write(frame.apply(request.id));
        return await(request, what);
    }

    /** {@link #request} that throws the mapped exception for an ERROR answer. */
    void requestOk(IntFunction<Frame> frame, String what) throws JMSException {
        Frame.Error error = request(frame, what);
        if (error != null) {
            throw JmsErrors.toException(error);
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
            throw new JMSException("No answer from Wharf at " + url.address() + " to " + what + " within "
                    + url.requestTimeoutMillis() + " ms (requestTimeout)");
        }
        try {
            return request.answer().join();
        } catch (CompletionException e) {
            Throwable cause = e.getCause();
            throw cause instanceof JMSException j ? lostException(j) : JmsErrors.wrap(what + " failed: " + cause, cause);
        }
    }

    /** The link, for the waits of this connection's consumers ({@link FrameWait}). */
    FrameLink link() {
        return link;
    }

    /** A MessageListener is in use: only the link's reader thread reads from now on ({@link FrameLink#readerOnly}). */
    void listenerInUse() {
        link.readerOnly();
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

    /** PRODUCER_CREDIT: the session's producers may send more (producer flow control). */
    void onProducerCredit(Frame.ProducerCredit credit) {
        WharfSession session = sessions.get(credit.sessionId());
        if (session != null) {
            session.sender().onProducerCredit(credit.bytes());
        }
    }

    void onAnswer(int requestId, Frame.Error error) {
        if (!requests.answer(requestId, error) && error != null) {
            LOG.log(System.Logger.Level.WARNING, "Wharf at {0} reported {1} for request {2}, which no longer waits: {3}",
                    url.address(), error.code(), requestId, error.message());
        }
    }

    void onError(Frame.Error error) {
        if (error.requestId() != 0) {
            onAnswer(error.requestId(), error);
            return;
        }
        if (error.code() == ErrorCode.PROTOCOL_ERROR) {
            connectionLost("the server reported a protocol error: " + error.message(), null);
            return;
        }
        WharfSession session = error.sessionId() == 0 ? null : sessions.get(error.sessionId());
        if (session != null && error.producerId() != 0) {
            session.sender().onAsyncSendError(error);
        } else {
            LOG.log(System.Logger.Level.WARNING, "Wharf at {0} reported {1} for a fire-and-forget request (session {2}): {3}",
                    url.address(), error.code(), error.sessionId(), error.message());
        }
    }

    void onChannelClosed() {
        if (closing.get()) {
            // close() may still wait for the answer to CLOSE; the server closing first is an answer too
            requests.failAll(new JMSException("The connection is closed"));
        } else {
            connectionLost("the connection was closed by the server or the network", null);
        }
    }

    void onHeartbeatTimeout() {
        connectionLost("nothing received for " + Heartbeat.deadAfterMillis(heartbeatMillis) + " ms ("
                + Heartbeat.MISSED_BEFORE_DEAD + " heartbeat intervals)", null);
    }

    void onTransportError(Throwable cause) {
        connectionLost(String.valueOf(cause.getMessage() == null ? cause : cause.getMessage()), cause);
    }

    void onProtocolViolation(String what) {
        connectionLost(what, null);
    }

    /**
     * Marks the connection lost (first reason wins): fails pending requests, wakes sessions, closes the link
     * and tells the ExceptionListener on a new thread.
     */
    private void connectionLost(String reason, Throwable cause) {
        JMSException lost = new JMSException("Connection to Wharf at " + url.address() + " was lost: " + reason);
        if (cause instanceof Exception e) {
            lost.setLinkedException(e);
            lost.initCause(e);
        }
        synchronized (this) {
            if (lostCause != null) {
                return;
            }
            lostCause = lost;
        }
        requests.failAll(lost);
        for (WharfSession session : sessions.values()) {
            session.onConnectionLost();
        }
        for (WharfQueueBrowser.Cursor browser : browsers.values()) {
            browser.wake();
        }
        link.close(0);
        ExceptionListener listener = exceptionListener;
        if (listener != null && !closing.get()) {
            Thread notifier = new Thread(() -> listener.onException(lost), "wharf-exception-listener");
            notifier.setDaemon(true);
            notifier.start();
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
    private void requireDomain(MessagingDomain needed, String method) throws IllegalStateException {
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
        freezeClientId();
        checkUsable();
        int id = lastSessionId.incrementAndGet();
        WharfSession session = new WharfSession(this, id, mode, sessionDomain);
        sessions.put(id, session);
        boolean transacted = mode == Session.SESSION_TRANSACTED;
        try {
            requestOk(rid -> new Frame.CreateSession(rid, id, transacted, mode), "CREATE_SESSION");
        } catch (JMSException e) {
            sessions.remove(id);
            throw e;
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
            if (clientId != null) {
                throw new IllegalStateException("The client ID is already set to '" + clientId + "'");
            }
            if (clientIdFrozen) {
                throw new IllegalStateException("setClientID must be called before the connection is used");
            }
            checkUsable();
            // the server keeps client IDs unique across its connections (InvalidClientIDException otherwise)
            requestOk(rid -> new Frame.SetClientId(rid, clientID), "SET_CLIENT_ID");
            clientId = clientID;
            clientIdFrozen = true;
        }
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
            session.wakeAll();
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
        try {
            for (WharfSession session : sessions.values()) {
                session.closeForConnection();
            }
            if (lostCause == null && link.isOpen()) {
                PendingRequests.Request request = register(requests.nextId());
                write(new Frame.Close(request.id));
                try {
                    await(request, "CLOSE");
                } catch (JMSException e) {
                    LOG.log(System.Logger.Level.DEBUG, "No orderly close answer from {0}: {1}", url.address(), e.getMessage());
                }
            }
        } finally {
            closed = true;
            requests.failAll(new JMSException("The connection is closed"));
            link.close(url.connectTimeoutMillis());
        }
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
        return "WharfConnection[" + url.address() + (lostCause != null ? ", lost" : closing.get() ? ", closed" : "") + "]";
    }
}
