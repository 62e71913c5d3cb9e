package org.wharfmq.jms;

import org.wharfmq.jms.message.WharfBytesMessage;
import org.wharfmq.jms.message.WharfMapMessage;
import org.wharfmq.jms.message.WharfMessage;
import org.wharfmq.jms.message.WharfObjectMessage;
import org.wharfmq.jms.message.WharfStreamMessage;
import org.wharfmq.jms.message.WharfTextMessage;

import javax.jms.BytesMessage;
import javax.jms.ConnectionMetaData;
import javax.jms.Destination;
import javax.jms.ExceptionListener;
import javax.jms.IllegalStateRuntimeException;
import javax.jms.InvalidDestinationRuntimeException;
import javax.jms.JMSConsumer;
import javax.jms.JMSContext;
import javax.jms.JMSException;
import javax.jms.JMSProducer;
import javax.jms.JMSRuntimeException;
import javax.jms.MapMessage;
import javax.jms.Message;
import javax.jms.ObjectMessage;
import javax.jms.Queue;
import javax.jms.QueueBrowser;
import javax.jms.StreamMessage;
import javax.jms.TemporaryQueue;
import javax.jms.TemporaryTopic;
import javax.jms.TextMessage;
import javax.jms.Topic;
import java.io.Serializable;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The JMS 2.0 simplified API: one connection (shared with the contexts {@link #createContext(int)} makes) and one
 * session, created on first use so that {@link #setClientID} can still come first. Errors are the unchecked
 * {@code ...RuntimeException} forms of the classic API's exceptions.
 *
 * <p>All {@link JMSProducer}s of a context send through one anonymous producer of its session. With
 * {@link #setAutoStart autoStart} (the default) the connection starts when a consumer is created. Closing the last
 * context of a connection closes the connection.
 *
 * <p>Listener rules (JMS 2.0 rev a): {@code stop} or {@code close} from a MessageListener of this context throws
 * IllegalStateRuntimeException (the specification lets a provider refuse them, and refusing cannot deadlock);
 * {@code close}, {@code commit} and {@code rollback} from a CompletionListener of this context throw it too.
 *
 * <p>Extended only by {@link WharfXAJMSContext}, whose session is an XA session.
 */
public class WharfJMSContext implements JMSContext {

    /** A connection and the number of open contexts using it. */
    private static final class SharedConnection {
        final WharfConnection connection;
        final AtomicInteger openContexts = new AtomicInteger(1);

        SharedConnection(WharfConnection connection) {
            this.connection = connection;
        }
    }

    private final SharedConnection shared;
    private final int sessionMode;
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile boolean autoStart = true;
    private volatile WharfSession session;
    private volatile WharfMessageProducer anonymousProducer;

    WharfJMSContext(WharfConnection connection, int sessionMode) {
        this(new SharedConnection(connection), sessionMode);
    }

    private WharfJMSContext(SharedConnection shared, int sessionMode) {
        this.shared = shared;
        this.sessionMode = sessionMode;
    }

    /** Refuses a session mode JMSContext does not define. */
    static void checkSessionMode(int mode) {
        if (mode < JMSContext.SESSION_TRANSACTED || mode > JMSContext.DUPS_OK_ACKNOWLEDGE) {
            throw new JMSRuntimeException("Invalid session mode " + mode + ": use JMSContext.SESSION_TRANSACTED (0),"
                    + " AUTO_ACKNOWLEDGE (1), CLIENT_ACKNOWLEDGE (2) or DUPS_OK_ACKNOWLEDGE (3)");
        }
    }

    private WharfConnection connection() {
        return shared.connection;
    }

    void checkOpen() {
        if (closed.get()) {
            throw new IllegalStateRuntimeException("The JMSContext is closed");
        }
    }

    /** The context's session, created on first use. */
    WharfSession session() {
        checkOpen();
        WharfSession s = session;
        if (s == null) {
            synchronized (this) {
                checkOpen(); // close() reads the session under this lock after marking the context closed
                s = session;
                if (s == null) {
                    try {
                        s = connection().openSession(sessionMode, MessagingDomain.BOTH);
                    } catch (JMSException e) {
                        throw JmsErrors.toRuntime(e);
                    }
                    session = s;
                }
            }
        }
        return s;
    }

    /** Sends for a {@link WharfJMSProducer} through the context's one anonymous producer. */
    void send(WharfJMSProducer producer, Destination destination, Message message) {
        WharfSession s = session();
        if (destination == null) {
            throw new InvalidDestinationRuntimeException("The destination must not be null");
        }
        try {
            WharfMessageProducer p = anonymousProducer(s);
            s.sender().send(p.id(), destination, WharfSession.sendDestination(destination), message, producer.deliveryMode(),
                    producer.priority(), producer.timeToLive(), producer.deliveryDelayMillis(), producer.disableMessageId(),
                    producer.disableTimestamp(), producer.completionListener());
        } catch (JMSException e) {
            throw JmsErrors.toRuntime(e);
        }
    }

    private WharfMessageProducer anonymousProducer(WharfSession s) throws JMSException {
        WharfMessageProducer p = anonymousProducer;
        if (p == null) {
            synchronized (this) {
                p = anonymousProducer;
                if (p == null) {
                    p = (WharfMessageProducer) s.createProducer(null);
                    anonymousProducer = p;
                }
            }
        }
        return p;
    }

    // ---- contexts and connection ----

    /** A new context with its own session on this context's connection. */
    @Override
    public JMSContext createContext(int sessionMode) {
        checkOpen();
        checkSessionMode(sessionMode);
        while (true) {
            int open = shared.openContexts.get();
            if (open == 0) {
                throw new IllegalStateRuntimeException("The connection of this JMSContext is closed");
            }
            if (shared.openContexts.compareAndSet(open, open + 1)) {
                break;
            }
        }
        return new WharfJMSContext(shared, sessionMode); // autoStart starts true, as for every new context
    }

    @Override
    public JMSProducer createProducer() {
        checkOpen();
        return new WharfJMSProducer(this);
    }

    @Override
    public String getClientID() {
        checkOpen();
        try {
            return connection().getClientID();
        } catch (JMSException e) {
            throw JmsErrors.toRuntime(e);
        }
    }

    @Override
    public void setClientID(String clientID) {
        checkOpen();
        try {
            connection().setClientID(clientID);
        } catch (JMSException e) {
            throw JmsErrors.toRuntime(e);
        }
    }

    @Override
    public ConnectionMetaData getMetaData() {
        checkOpen();
        try {
            return connection().getMetaData();
        } catch (JMSException e) {
            throw JmsErrors.toRuntime(e);
        }
    }

    @Override
    public ExceptionListener getExceptionListener() {
        checkOpen();
        try {
            return connection().getExceptionListener();
        } catch (JMSException e) {
            throw JmsErrors.toRuntime(e);
        }
    }

    @Override
    public void setExceptionListener(ExceptionListener listener) {
        checkOpen();
        try {
            connection().setExceptionListener(listener);
        } catch (JMSException e) {
            throw JmsErrors.toRuntime(e);
        }
    }

    /**
     * Sets the listener told when the context's connection loses its server and when it has reconnected, as
     * {@link WharfConnection#setFailoverListener} does for a classic connection (Wharf's own, beside the
     * ExceptionListener, which hears only of a loss reconnecting could not repair); null removes it. The listener
     * belongs to the connection, so the contexts {@link #createContext(int)} made from this one share it.
     *
     * @throws IllegalStateRuntimeException if the context is closed
     */
    public void setFailoverListener(FailoverListener listener) {
        checkOpen();
        try {
            connection().setFailoverListener(listener);
        } catch (JMSException e) {
            throw JmsErrors.toRuntime(e);
        }
    }

    /** The listener set with {@link #setFailoverListener} (on this context or one sharing its connection), or null. */
    public FailoverListener getFailoverListener() {
        checkOpen();
        try {
            return connection().getFailoverListener();
        } catch (JMSException e) {
            throw JmsErrors.toRuntime(e);
        }
    }

    @Override
    public void start() {
        checkOpen();
        try {
            connection().start();
        } catch (JMSException e) {
            throw JmsErrors.toRuntime(e);
        }
    }

    /** Stops the shared connection; refused from a MessageListener of it (IllegalStateRuntimeException). */
    @Override
    public void stop() {
        checkOpen();
        try {
            connection().stop();
        } catch (JMSException e) {
            throw JmsErrors.toRuntime(e);
        }
    }

    @Override
    public void setAutoStart(boolean autoStart) {
        checkOpen();
        this.autoStart = autoStart;
    }

    @Override
    public boolean getAutoStart() {
        checkOpen();
        return autoStart;
    }

    /**
     * Closes the session, its producers and consumers, and the connection when no other context uses it. Waits
     * for running listeners and incomplete asynchronous sends. Idempotent.
     */
    @Override
    public void close() {
        WharfSession s = session;
        if (closed.get()) {
            return;
        }
        if (s != null && s.isListenerThread()) {
            throw new IllegalStateRuntimeException("A MessageListener must not close its own JMSContext");
        }
        if (s != null && s.sender().isCompletionThread()) {
            throw new IllegalStateRuntimeException("A CompletionListener must not close its own JMSContext (JMS 2.0 section 7.3.8)");
        }
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            synchronized (this) {
                s = session;
            }
            if (s != null) {
                s.close();
            }
        } catch (JMSException e) {
            throw JmsErrors.toRuntime(e);
        } finally {
            if (shared.openContexts.decrementAndGet() == 0) {
                try {
                    connection().close();
                } catch (JMSException e) {
                    throw JmsErrors.toRuntime(e);
                }
            }
        }
    }

    // ---- messages ----

    @Override
    public BytesMessage createBytesMessage() {
        checkOpen();
        return new WharfBytesMessage();
    }

    @Override
    public MapMessage createMapMessage() {
        checkOpen();
        return new WharfMapMessage();
    }

    @Override
    public Message createMessage() {
        checkOpen();
        return new WharfMessage();
    }

    @Override
    public ObjectMessage createObjectMessage() {
        checkOpen();
        return new WharfObjectMessage(connection().url().deserialization());
    }

    @Override
    public ObjectMessage createObjectMessage(Serializable object) {
        ObjectMessage message = createObjectMessage();
        try {
            message.setObject(object);
        } catch (JMSException e) {
            throw JmsErrors.toRuntime(e);
        }
        return message;
    }

    @Override
    public StreamMessage createStreamMessage() {
        checkOpen();
        return new WharfStreamMessage();
    }

    @Override
    public TextMessage createTextMessage() {
        checkOpen();
        return new WharfTextMessage();
    }

    @Override
    public TextMessage createTextMessage(String text) {
        checkOpen();
        return new WharfTextMessage(text);
    }

    // ---- transactions and acknowledgement ----

    @Override
    public boolean getTransacted() {
        checkOpen();
        return sessionMode == JMSContext.SESSION_TRANSACTED;
    }

    @Override
    public int getSessionMode() {
        checkOpen();
        return sessionMode;
    }

    @Override
    public void commit() {
        try {
            session().commit();
        } catch (JMSException e) {
            throw JmsErrors.toRuntime(e);
        }
    }

    @Override
    public void rollback() {
        try {
            session().rollback();
        } catch (JMSException e) {
            throw JmsErrors.toRuntime(e);
        }
    }

    @Override
    public void recover() {
        try {
            session().recover();
        } catch (JMSException e) {
            throw JmsErrors.toRuntime(e);
        }
    }

    /** In CLIENT_ACKNOWLEDGE mode acknowledges every message the context has consumed; otherwise does nothing. */
    @Override
    public void acknowledge() {
        WharfSession s = session();
        if (sessionMode == JMSContext.CLIENT_ACKNOWLEDGE) {
            try {
                s.acknowledgeConsumed();
            } catch (JMSException e) {
                throw JmsErrors.toRuntime(e);
            }
        }
    }

    // ---- consumers ----

    @Override
    public JMSConsumer createConsumer(Destination destination) {
        return createConsumer(destination, null);
    }

    @Override
    public JMSConsumer createConsumer(Destination destination, String messageSelector) {
        return consumer(s -> s.createConsumer(destination, messageSelector));
    }

    /** {@code noLocal} concerns topics only; for a queue it is ignored, as JMS says. */
    @Override
    public JMSConsumer createConsumer(Destination destination, String messageSelector, boolean noLocal) {
        return consumer(s -> s.createConsumer(destination, messageSelector, noLocal));
    }

    /** What creates a consumer on the context's session. */
    @FunctionalInterface
    private interface ConsumerFactory {
        javax.jms.MessageConsumer create(WharfSession session) throws JMSException;
    }

    private JMSConsumer consumer(ConsumerFactory factory) {
        WharfSession s = session();
        try {
            WharfMessageConsumer consumer = (WharfMessageConsumer) factory.create(s);
            if (autoStart) {
                connection().start();
            }
            return new WharfJMSConsumer(consumer);
        } catch (JMSException e) {
            throw JmsErrors.toRuntime(e);
        }
    }

    @Override
    public JMSConsumer createDurableConsumer(Topic topic, String name) {
        return consumer(s -> s.createDurableConsumer(topic, name));
    }

    @Override
    public JMSConsumer createDurableConsumer(Topic topic, String name, String messageSelector, boolean noLocal) {
        return consumer(s -> s.createDurableConsumer(topic, name, messageSelector, noLocal));
    }

    @Override
    public JMSConsumer createSharedDurableConsumer(Topic topic, String name) {
        return consumer(s -> s.createSharedDurableConsumer(topic, name));
    }

    @Override
    public JMSConsumer createSharedDurableConsumer(Topic topic, String name, String messageSelector) {
        return consumer(s -> s.createSharedDurableConsumer(topic, name, messageSelector));
    }

    @Override
    public JMSConsumer createSharedConsumer(Topic topic, String sharedSubscriptionName) {
        return consumer(s -> s.createSharedConsumer(topic, sharedSubscriptionName));
    }

    @Override
    public JMSConsumer createSharedConsumer(Topic topic, String sharedSubscriptionName, String messageSelector) {
        return consumer(s -> s.createSharedConsumer(topic, sharedSubscriptionName, messageSelector));
    }

    @Override
    public void unsubscribe(String name) {
        try {
            session().unsubscribe(name);
        } catch (JMSException e) {
            throw JmsErrors.toRuntime(e);
        }
    }

    // ---- destinations ----

    @Override
    public Queue createQueue(String queueName) {
        checkOpen();
        if (queueName == null || queueName.isEmpty()) {
            throw new InvalidDestinationRuntimeException("A queue name must not be null or empty");
        }
        return new WharfQueue(queueName);
    }

    @Override
    public Topic createTopic(String topicName) {
        checkOpen();
        if (topicName == null || topicName.isEmpty()) {
            throw new InvalidDestinationRuntimeException("A topic name must not be null or empty");
        }
        return new WharfTopic(topicName);
    }

    // ---- not supported yet (browsing, temporary destinations) ----

    @Override
    public QueueBrowser createBrowser(Queue queue) {
        return createBrowser(queue, null);
    }

    @Override
    public QueueBrowser createBrowser(Queue queue, String messageSelector) {
        try {
            return session().createBrowser(queue, messageSelector);
        } catch (JMSException e) {
            throw JmsErrors.toRuntime(e);
        }
    }

    @Override
    public TemporaryQueue createTemporaryQueue() {
        try {
            return session().createTemporaryQueue();
        } catch (JMSException e) {
            throw JmsErrors.toRuntime(e);
        }
    }

    @Override
    public TemporaryTopic createTemporaryTopic() {
        try {
            return session().createTemporaryTopic();
        } catch (JMSException e) {
            throw JmsErrors.toRuntime(e);
        }
    }

    @Override
    public String toString() {
        return "WharfJMSContext[mode=" + sessionMode + ", " + connection() + (closed.get() ? ", closed" : "") + "]";
    }
}
