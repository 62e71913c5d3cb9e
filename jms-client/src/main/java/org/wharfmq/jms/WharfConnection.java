package org.wharfmq.jms;

import org.wharfmq.client.core.ClientException;
import org.wharfmq.client.core.CoreSender;
import org.wharfmq.client.core.ConnectionListener;
import org.wharfmq.client.core.ConnectionSettings;
import org.wharfmq.client.core.CoreConnection;
import org.wharfmq.client.core.CoreSession;
import org.wharfmq.client.core.LinkLostException;
import org.wharfmq.client.core.Reconnector;
import org.wharfmq.client.core.transport.BrokerAddress;

import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.Frame;

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
import java.util.concurrent.atomic.AtomicReference;

/**
 * A JMS connection to a Wharf server, shared by all its sessions: a facade over the core client's
 * {@link CoreConnection}, which holds the links, the state (up, reconnecting, lost, closed), the requests and what a
 * reconnection re-creates. This class adds what JMS says of a connection (the client ID's rules, the
 * ExceptionListener, the JMS 1.1 domains, start and stop from listeners) and gives the core's failures as
 * JMSExceptions. Thread-safe. Extended only by {@link WharfXAConnection}, which also makes XA sessions.
 *
 * <p>While the connection reconnects, sends and requests wait for it, and receives wait as for any message. Only when
 * reconnecting gives up (or is turned off, {@code reconnectAttempts=0}) is the connection lost: every waiting request
 * fails, every blocked {@code receive} wakes, and the ExceptionListener is called once, on its own thread.
 */
public class WharfConnection implements Connection, QueueConnection, TopicConnection {
    private final BrokerUrl url;
    /** Which of the JMS 1.1 domains' methods this connection accepts: a QueueConnection refuses topic ones. */
    private final MessagingDomain domain;
    private final CoreConnection core;
    private final TemporaryDestinationOwner temporaries;
    /** The JMS form of the core's {@link CoreConnection#lostCause()}, made once. */
    private final AtomicReference<JMSException> lostCause = new AtomicReference<>();
    private volatile ExceptionListener exceptionListener;
    private volatile FailoverListener failoverListener;
    private final Object clientIdLock = new Object();
    /** Whether setClientID may no longer be called; under {@link #clientIdLock}. */
    private boolean clientIdFrozen;
    /** Whether the client ID came from the connection factory (option {@code clientID}); under {@link #clientIdLock}. */
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
        this.domain = domain;
        try {
            this.core = CoreConnection.connect(new ConnectionSettings(url.addresses(), url.tls(), user, password,
                    url.clientName(), url.heartbeatMillis(), url.connectTimeoutMillis(), url.requestTimeoutMillis(),
                    url.maxReceiveLength(), url.reconnect(), 0), new Listener());
        } catch (ClientException e) {
            throw JmsErrors.toException(e);
        }
        this.temporaries = new TemporaryDestinationOwner(this, core.temporaries());
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

    // ---- state used by sessions, producers and consumers ----

    BrokerUrl url() {
        return url;
    }

    /** The core connection under this one. */
    CoreConnection core() {
        return core;
    }

    /** Non-null once the connection has been lost for good. */
    JMSException lostCause() {
        ClientException lost = core.lostCause();
        if (lost == null) {
            return null;
        }
        JMSException known = lostCause.get();
        if (known == null) {
            lostCause.compareAndSet(null, lostToJms(lost));
            known = lostCause.get();
        }
        return known;
    }

    /** Creates and deletes this connection's temporary queues and topics. */
    TemporaryDestinationOwner temporaries() {
        return temporaries;
    }

    /** Throws once the connection is closed or lost for good; never waits (the connection may be reconnecting). */
    void checkOpen() throws JMSException {
        if (core.isClosing()) {
            throw new IllegalStateException("The connection is closed");
        }
        JMSException lost = lostCause();
        if (lost != null) {
            throw lostException(lost);
        }
    }

    /** A fresh exception, thrown on the caller's thread, that says the connection was lost and why. */
    JMSException lostException(JMSException cause) {
        return JmsErrors.wrap(cause.getMessage(), cause);
    }

    /**
     * The JMS form of a failure of the core: a request's link lost while the connection reconnects is a
     * {@link ReconnectingException}, a JMSException the facade handed the core ({@link JmsErrors#toCore}: a message
     * that cannot be encoded) is itself again, the connection lost for good is said afresh on this thread, a refusal is
     * the exception its error code names.
     */
    JMSException toJms(ClientException e) {
        if (e instanceof LinkLostException) {
            return new ReconnectingException(e.getMessage());
        }
        if (e.getCause() instanceof JMSException handed) {
            return handed;
        }
        ClientException lost = core.lostCause();
        if (lost != null && (e == lost || e.getCause() == lost)) {
            return lostException(lostCause());
        }
        if (e.code() == ErrorCode.ILLEGAL_STATE && core.isClosing()) {
            return new IllegalStateException(e.getMessage());
        }
        return JmsErrors.toException(e);
    }

    /** The JMS form of why the connection was lost, or of a reconnection's step (its cause mapped too). */
    private static JMSException lostToJms(ClientException failure) {
        JMSException e = new JMSException(failure.getMessage());
        Throwable cause = failure.getCause();
        if (cause != null) {
            Throwable linked = cause instanceof ClientException c ? JmsErrors.toException(c) : cause;
            if (linked instanceof Exception ex) {
                e.setLinkedException(ex);
            }
            e.initCause(linked);
        }
        return e;
    }

    /** What the core connection tells this one: the ExceptionListener's and the FailoverListener's events. */
    private final class Listener implements ConnectionListener {
        /** Only an ExceptionListener hears of the loss: without one the core starts no thread for it. */
        @Override
        public boolean listensForLoss() {
            return exceptionListener != null;
        }

        @Override
        public void lost(ClientException why) {
            ExceptionListener listener = exceptionListener;
            if (listener != null) {
                listener.onException(lostCause()); // on the core's own thread for it
            }
        }

        @Override
        public void failover(Reconnector.Step step, BrokerAddress address, int attempts, ClientException cause) {
            FailoverListener listener = failoverListener;
            if (listener == null) {
                return;
            }
            FailoverEvent event = new FailoverEvent(FailoverEvent.Kind.valueOf(step.name()), address.toString(),
                    attempts, cause == null ? null : step == Reconnector.Step.FAILED && lostCause() != null
                    ? lostCause() : lostToJms(cause));
            try {
                listener.onFailover(event);
            } catch (RuntimeException e) {
                System.getLogger(WharfConnection.class.getName()).log(System.Logger.Level.WARNING,
                        "FailoverListener threw on " + event.kind(), e);
            }
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
        WharfSession session = mode == Frame.SESSION_XA ? new WharfXASession(this, sessionDomain)
                : new WharfSession(this, mode, sessionDomain);
        try {
            session.core().open();
        } catch (ClientException e) {
            throw toJms(e);
        }
        return session;
    }

    @Override
    public String getClientID() throws JMSException {
        checkNotClosed();
        synchronized (clientIdLock) {
            return core.clientId();
        }
    }

    @Override
    public void setClientID(String clientID) throws JMSException {
        if (clientID == null || clientID.isEmpty()) {
            throw new InvalidClientIDException("The client ID must not be null or empty");
        }
        synchronized (clientIdLock) {
            if (clientIdAdministered) {
                throw new IllegalStateException("The client ID of this connection is '" + core.clientId() + "', configured by"
                        + " its connection factory (option clientID); it cannot be set again. Use a factory without"
                        + " clientID to choose the client ID in the application");
            }
            if (core.clientId() != null) {
                throw new IllegalStateException("The client ID is already set to '" + core.clientId() + "'");
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
        try {
            core.assignClientId(clientID); // InvalidClientIDException when another connection holds it
        } catch (ClientException e) {
            throw toJms(e);
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
        if (core.isClosing()) {
            throw new IllegalStateException("The connection is closed");
        }
    }

    @Override
    public void start() throws JMSException {
        checkNotClosed();
        freezeClientId();
        try {
            core.start();
        } catch (ClientException e) {
            throw toJms(e);
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
        core.stop();
    }

    private boolean isOwnDispatcherThread() {
        CoreSession dispatching = CoreSession.dispatching();
        return dispatching != null && dispatching.connection() == core;
    }

    private boolean isOwnCompletionThread() {
        CoreSender completing = CoreSender.completing();
        return completing != null && completing.connection() == core;
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
        core.close();
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
        return "WharfConnection[" + core.current().address() + (core.lostCause() != null ? ", lost"
                : core.isClosing() ? ", closed" : core.usableOrNull() == null ? ", reconnecting" : "") + "]";
    }
}
