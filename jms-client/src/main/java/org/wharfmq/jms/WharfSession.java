package org.wharfmq.jms;

import org.wharfmq.client.core.ClientException;
import org.wharfmq.client.core.CoreBrowser;
import org.wharfmq.client.core.CoreConsumer;
import org.wharfmq.client.core.CoreSender;
import org.wharfmq.client.core.CoreSession;

import org.wharfmq.jms.message.WharfBytesMessage;
import org.wharfmq.jms.message.WharfMapMessage;
import org.wharfmq.jms.message.WharfMessage;
import org.wharfmq.jms.message.WharfObjectMessage;
import org.wharfmq.jms.message.WharfStreamMessage;
import org.wharfmq.jms.message.WharfTextMessage;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.message.WireDestination;

import javax.jms.BytesMessage;
import javax.jms.CompletionListener;
import javax.jms.Destination;
import javax.jms.IllegalStateException;
import javax.jms.InvalidDestinationException;
import javax.jms.JMSException;
import javax.jms.MapMessage;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageListener;
import javax.jms.MessageProducer;
import javax.jms.ObjectMessage;
import javax.jms.Queue;
import javax.jms.QueueBrowser;
import javax.jms.QueueReceiver;
import javax.jms.QueueSender;
import javax.jms.QueueSession;
import javax.jms.Session;
import javax.jms.StreamMessage;
import javax.jms.TemporaryQueue;
import javax.jms.TemporaryTopic;
import javax.jms.TextMessage;
import javax.jms.Topic;
import javax.jms.TopicPublisher;
import javax.jms.TopicSession;
import javax.jms.TopicSubscriber;
import java.io.Serializable;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A Wharf session. Used by one application thread at a time (or by its dispatcher thread once it has
 * MessageListeners), as JMS requires; {@link #close()} and the consumers' {@code close()} may come from any
 * thread.
 *
 * <p>The session is the JMS facade over what it is made of: sending is its core session's {@code CoreSender} (producer
 * credit, synchronous and asynchronous sends, sends in a transaction), with JMS headers, encoding and
 * CompletionListeners added by its {@link SessionSender}; each consumer's deliveries, credit and
 * acknowledgement bookkeeping are its core consumer's ({@link ClientConsumer} over the core client's
 * {@code CoreConsumer}); acknowledgement in the session's mode, commit, rollback and recover are its
 * {@link SessionSettlement}'s (over the core's {@code CoreSettlement}); MessageListeners run on the core session's
 * dispatch thread. The core connection sees the session as a {@code SessionMember}.
 * What is left here is the JMS API, the session's producers and browsers, and the JMS rules of closing (the close
 * itself is the core session's). {@code close}, {@code commit} and {@code rollback} wait for asynchronous sends
 * first, and refuse to run on their listener's thread.
 *
 * <p>Extended only by {@link WharfXASession}, an XA session.
 */
public class WharfSession implements Session, QueueSession, TopicSession {

    private final WharfConnection connection;
    private final int id;
    private final int mode;
    /** Which of the JMS 1.1 domains' methods this session accepts: a QueueSession refuses topic ones. */
    private final MessagingDomain domain;

    /** Acknowledgement, commit and rollback of what the consumers consume; holds the session's consumers. */
    final SessionSettlement settlement;
    /** Sending: JMS headers, encoding and CompletionListeners over the core session's sender. */
    private final SessionSender sender;
    private final CopyOnWriteArrayList<WharfMessageProducer> producers = new CopyOnWriteArrayList<>();
    private final CopyOnWriteArrayList<WharfQueueBrowser> browsers = new CopyOnWriteArrayList<>();
    /** The core session under this one: its consumers, producers, settlement and re-creation after a reconnection. */
    private final CoreSession core;

    /**
     * @param domain {@link MessagingDomain#QUEUE} for a QueueSession, {@link MessagingDomain#TOPIC} for a
     *               TopicSession, else {@link MessagingDomain#BOTH}
     */
    WharfSession(WharfConnection connection, int mode, MessagingDomain domain) {
        this.connection = connection;
        this.mode = mode;
        this.domain = domain;
        this.core = new CoreSession(connection.core(), mode, connection.url().prefetch(), connection.url().syncSends(),
                new Hooks());
        this.id = core.id();
        this.settlement = new SessionSettlement(connection, core.settlement(), mode);
        this.sender = new SessionSender(connection, core.sender());
    }

    /** The session's sending side, which its producers send through. */
    SessionSender sender() {
        return sender;
    }

    /** The session's acknowledgement and transaction side. */
    SessionSettlement settlement() {
        return settlement;
    }

    int id() {
        return id;
    }

    /** The core session under this one. */
    CoreSession core() {
        return core;
    }

    /**
     * For the queue manager's flow host: runs {@code settle} before a send of any session of this session's connection
     * waits for producer credit (on the sending thread; it must not block), so that what the connection's owner took
     * inside the queue manager does not hold the memory budget that the credit waits for. Null: nothing.
     */
    public void beforeCreditWait(Runnable settle) {
        core.connection().beforeCreditWait(settle);
    }

    /**
     * For the queue manager's flow host: this session's sends outside a transaction that wait for no
     * CompletionListener are put by {@code put} inside the queue manager rather than written to the connection (null:
     * written to it again). Set by the session's sending thread before it sends.
     */
    public void putInProcess(CoreSender.LocalPut put) {
        core.sender().putLocally(put);
    }

    WharfConnection connection() {
        return connection;
    }

    /** Throws once the session or its connection is closed, or the connection lost for good; never waits. */
    void checkOpen() throws JMSException {
        if (core.isClosing()) {
            throw new IllegalStateException("The session is closed");
        }
        connection.checkOpen();
    }

    /** Refuses a method of the other domain on a QueueSession or TopicSession (JMS 1.1 section 4.11). */
    private void requireDomain(MessagingDomain needed, String method) throws IllegalStateException {
        domain.require(needed, method, "Session");
    }

    // ---- messages ----

    @Override
    public BytesMessage createBytesMessage() throws JMSException {
        checkOpen();
        return new WharfBytesMessage();
    }

    @Override
    public MapMessage createMapMessage() throws JMSException {
        checkOpen();
        return new WharfMapMessage();
    }

    @Override
    public Message createMessage() throws JMSException {
        checkOpen();
        return new WharfMessage();
    }

    @Override
    public ObjectMessage createObjectMessage() throws JMSException {
        checkOpen();
        return new WharfObjectMessage(connection.url().deserialization());
    }

    @Override
    public ObjectMessage createObjectMessage(Serializable object) throws JMSException {
        ObjectMessage message = createObjectMessage();
        message.setObject(object);
        return message;
    }

    @Override
    public StreamMessage createStreamMessage() throws JMSException {
        checkOpen();
        return new WharfStreamMessage();
    }

    @Override
    public TextMessage createTextMessage() throws JMSException {
        checkOpen();
        return new WharfTextMessage();
    }

    @Override
    public TextMessage createTextMessage(String text) throws JMSException {
        checkOpen();
        return new WharfTextMessage(text);
    }

    // ---- destinations ----

    @Override
    public Queue createQueue(String queueName) throws JMSException {
        requireDomain(MessagingDomain.QUEUE, "createQueue");
        checkOpen();
        if (queueName == null || queueName.isEmpty()) {
            throw new InvalidDestinationException("A queue name must not be null or empty");
        }
        return WharfQueue.parse(queueName);
    }

    @Override
    public Topic createTopic(String topicName) throws JMSException {
        requireDomain(MessagingDomain.TOPIC, "createTopic");
        checkOpen();
        if (topicName == null || topicName.isEmpty()) {
            throw new InvalidDestinationException("A topic name must not be null or empty");
        }
        return new WharfTopic(topicName);
    }

    /**
     * A temporary queue of this session's connection (JMS: its scope is the connection, not the session): deleted
     * with the connection, consumable only by it.
     */
    @Override
    public TemporaryQueue createTemporaryQueue() throws JMSException {
        requireDomain(MessagingDomain.QUEUE, "createTemporaryQueue");
        checkOpen();
        return connection.temporaries().createQueue();
    }

    /** A temporary topic of this session's connection: anyone may publish to it, only this connection subscribe. */
    @Override
    public TemporaryTopic createTemporaryTopic() throws JMSException {
        requireDomain(MessagingDomain.TOPIC, "createTemporaryTopic");
        checkOpen();
        return connection.temporaries().createTopic();
    }

    /**
     * The wire form of a queue or topic a producer or consumer names (the core refuses a temporary one its connection
     * deleted).
     */
    private static WireDestination wireDestination(Destination destination) throws JMSException {
        if (destination == null) {
            throw new InvalidDestinationException("The destination must not be null");
        }
        return WharfDestination.toWire(destination);
    }

    /** The wire form of a topic a subscription names. */
    private static WireDestination topicDestination(Topic topic) throws JMSException {
        if (topic == null) {
            throw new InvalidDestinationException("The topic must not be null");
        }
        return wireDestination(topic);
    }

    // ---- producers ----

    @Override
    public MessageProducer createProducer(Destination destination) throws JMSException {
        return newProducer(destination);
    }

    @Override
    public QueueSender createSender(Queue queue) throws JMSException {
        requireDomain(MessagingDomain.QUEUE, "createSender");
        return newProducer(queue);
    }

    @Override
    public TopicPublisher createPublisher(Topic topic) throws JMSException {
        requireDomain(MessagingDomain.TOPIC, "createPublisher");
        return newProducer(topic);
    }

    private WharfMessageProducer newProducer(Destination destination) throws JMSException {
        checkOpen();
        WireDestination wire = destination == null ? null : wireDestination(destination);
        int producerId = core.connection().nextProducerId();
        try {
            core.createProducer(producerId, wire);
        } catch (ClientException e) {
            throw connection.toJms(e);
        }
        WharfMessageProducer producer = new WharfMessageProducer(this, producerId, destination, wire);
        producers.add(producer);
        return producer;
    }

    void producerClosed(WharfMessageProducer producer) {
        if (producers.remove(producer)) {
            core.closeProducer(producer.id());
        }
    }

    /** The wire destination a producer sends to: its own, or for an anonymous producer the one given. */
    static WireDestination sendDestination(Destination destination) throws JMSException {
        return wireDestination(destination);
    }

    // ---- consumers ----

    @Override
    public MessageConsumer createConsumer(Destination destination) throws JMSException {
        return newConsumer(destination, null);
    }

    @Override
    public MessageConsumer createConsumer(Destination destination, String messageSelector) throws JMSException {
        return newConsumer(destination, messageSelector);
    }

    /** {@code noLocal} concerns topics only; for a queue it is ignored, as JMS says. */
    @Override
    public MessageConsumer createConsumer(Destination destination, String messageSelector, boolean noLocal) throws JMSException {
        checkOpen();
        WireDestination wire = wireDestination(destination);
        int flags = noLocal && !wire.kind().isQueue() ? Frame.CONSUMER_NO_LOCAL : 0;
        return newConsumer(destination, wire, messageSelector, flags, null);
    }

    @Override
    public QueueReceiver createReceiver(Queue queue) throws JMSException {
        return createReceiver(queue, null);
    }

    @Override
    public QueueReceiver createReceiver(Queue queue, String messageSelector) throws JMSException {
        requireDomain(MessagingDomain.QUEUE, "createReceiver");
        return newConsumer(queue, messageSelector);
    }

    private WharfMessageConsumer newConsumer(Destination destination, String selector) throws JMSException {
        checkOpen();
        return newConsumer(destination, wireDestination(destination), selector, 0, null);
    }

    // ---- publish/subscribe ----

    @Override
    public TopicSubscriber createSubscriber(Topic topic) throws JMSException {
        return createSubscriber(topic, null, false);
    }

    @Override
    public TopicSubscriber createSubscriber(Topic topic, String messageSelector, boolean noLocal) throws JMSException {
        requireDomain(MessagingDomain.TOPIC, "createSubscriber");
        checkOpen();
        return newConsumer(topic, topicDestination(topic), messageSelector, noLocal ? Frame.CONSUMER_NO_LOCAL : 0, null);
    }

    @Override
    public TopicSubscriber createDurableSubscriber(Topic topic, String name) throws JMSException {
        return createDurableSubscriber(topic, name, null, false);
    }

    @Override
    public TopicSubscriber createDurableSubscriber(Topic topic, String name, String messageSelector, boolean noLocal) throws JMSException {
        requireDomain(MessagingDomain.TOPIC, "createDurableSubscriber");
        return durableSubscriber(topic, name, messageSelector, noLocal);
    }

    @Override
    public MessageConsumer createDurableConsumer(Topic topic, String name) throws JMSException {
        return createDurableConsumer(topic, name, null, false);
    }

    @Override
    public MessageConsumer createDurableConsumer(Topic topic, String name, String messageSelector, boolean noLocal) throws JMSException {
        requireDomain(MessagingDomain.TOPIC, "createDurableConsumer");
        return durableSubscriber(topic, name, messageSelector, noLocal);
    }

    private WharfMessageConsumer durableSubscriber(Topic topic, String name, String messageSelector, boolean noLocal)
            throws JMSException {
        checkOpen();
        requireSubscriptionName(name);
        // the server refuses it without a client ID (IllegalStateException), after the topic and selector are checked
        return newConsumer(topic, topicDestination(topic), messageSelector,
                Frame.CONSUMER_DURABLE | (noLocal ? Frame.CONSUMER_NO_LOCAL : 0), name);
    }

    @Override
    public MessageConsumer createSharedConsumer(Topic topic, String sharedSubscriptionName) throws JMSException {
        return createSharedConsumer(topic, sharedSubscriptionName, null);
    }

    @Override
    public MessageConsumer createSharedConsumer(Topic topic, String sharedSubscriptionName, String messageSelector) throws JMSException {
        requireDomain(MessagingDomain.TOPIC, "createSharedConsumer");
        checkOpen();
        requireSubscriptionName(sharedSubscriptionName);
        return newConsumer(topic, topicDestination(topic), messageSelector, Frame.CONSUMER_SHARED, sharedSubscriptionName);
    }

    @Override
    public MessageConsumer createSharedDurableConsumer(Topic topic, String name) throws JMSException {
        return createSharedDurableConsumer(topic, name, null);
    }

    @Override
    public MessageConsumer createSharedDurableConsumer(Topic topic, String name, String messageSelector) throws JMSException {
        requireDomain(MessagingDomain.TOPIC, "createSharedDurableConsumer");
        checkOpen();
        requireSubscriptionName(name);
        return newConsumer(topic, topicDestination(topic), messageSelector,
                Frame.CONSUMER_DURABLE | Frame.CONSUMER_SHARED, name);
    }

    /**
     * Deletes a durable subscription of this connection's client ID: InvalidDestinationException when there is none
     * of that name, IllegalStateException while a consumer is open on it.
     */
    @Override
    public void unsubscribe(String name) throws JMSException {
        requireDomain(MessagingDomain.TOPIC, "unsubscribe");
        checkOpen();
        requireSubscriptionName(name);
        try {
            core.connection().unsubscribe(name);
        } catch (ClientException e) {
            throw connection.toJms(e);
        }
    }

    private static void requireSubscriptionName(String name) throws JMSException {
        if (name == null || name.isEmpty()) {
            throw new JMSException("A subscription name must not be null or empty");
        }
    }

    private WharfMessageConsumer newConsumer(Destination destination, WireDestination wire, String selector, int flags,
                                             String subscriptionName) throws JMSException {
        CoreConsumer consumer;
        try {
            consumer = core.createConsumer(new CoreConsumer.Spec(id, wire, selector, core.prefetch(), flags,
                    subscriptionName, connection.url().consumerWindowBytes()));
        } catch (ClientException e) {
            throw connection.toJms(e);
        }
        return new WharfMessageConsumer(this, new ClientConsumer(connection, settlement, consumer),
                destination, consumer.spec().selector(), (flags & Frame.CONSUMER_NO_LOCAL) != 0);
    }

    // ---- browsers ----

    @Override
    public QueueBrowser createBrowser(Queue queue) throws JMSException {
        return createBrowser(queue, null);
    }

    /**
     * A browser of {@code queue}; the queue and the selector are checked by the server now
     * (InvalidDestinationException, InvalidSelectorException), and each enumeration browses what is waiting then.
     */
    @Override
    public QueueBrowser createBrowser(Queue queue, String messageSelector) throws JMSException {
        requireDomain(MessagingDomain.QUEUE, "createBrowser");
        checkOpen();
        if (queue == null) {
            throw new InvalidDestinationException("The queue to browse must not be null");
        }
        WireDestination wire = wireDestination(queue);
        WharfQueueBrowser browser;
        try {
            browser = new WharfQueueBrowser(this, queue, wire, CoreBrowser.validate(core, wire, messageSelector));
        } catch (ClientException e) {
            throw connection.toJms(e);
        }
        browsers.add(browser);
        return browser;
    }

    void browserClosed(WharfQueueBrowser browser) {
        browsers.remove(browser);
    }

    // ---- delivery ----

    /** True on this session's MessageListener thread. */
    boolean isListenerThread() {
        return core.isDispatchThread();
    }

    /** Message.acknowledge() in CLIENT_ACKNOWLEDGE mode: acknowledges every message the session has consumed. */
    void acknowledgeConsumed() throws JMSException {
        settlement.acknowledge();
    }

    // ---- acknowledgement and transactions ----

    @Override
    public boolean getTransacted() throws JMSException {
        checkNotClosed();
        return mode == SESSION_TRANSACTED;
    }

    @Override
    public int getAcknowledgeMode() throws JMSException {
        checkNotClosed();
        return mode;
    }

    void checkNotClosed() throws IllegalStateException {
        if (core.isClosing()) {
            throw new IllegalStateException("The session is closed");
        }
    }

    /**
     * Commits: the transaction's sends become visible and its consumed messages are acknowledged. When the server
     * answers TRANSACTION_ROLLED_BACK (an earlier send of the transaction failed), it has dropped the sends and
     * taken back the consumed messages (to be redelivered); prefetched ones stay buffered, so the client only
     * forgets its consumed-list and throws TransactionRolledBackException.
     */
    @Override
    public void commit() throws JMSException {
        checkOpen();
        if (mode != SESSION_TRANSACTED) {
            throw new IllegalStateException("commit() needs a transacted session");
        }
        sender.checkNotInCompletionListener("commit its own session");
        settlement.commit(); // after the asynchronous sends' completions; the COMMIT answer reports a failed send
    }

    @Override
    public void rollback() throws JMSException {
        checkOpen();
        if (mode != SESSION_TRANSACTED) {
            throw new IllegalStateException("rollback() needs a transacted session");
        }
        sender.checkNotInCompletionListener("roll back its own session");
        settlement.rollback("ROLLBACK"); // after the asynchronous sends' completions
    }

    @Override
    public void recover() throws JMSException {
        checkOpen();
        if (mode == SESSION_TRANSACTED) {
            throw new IllegalStateException("recover() is for non-transacted sessions; use rollback()");
        }
        settlement.rollback("ROLLBACK (recover)");
    }

    // ---- closing ----

    /** Called by a consumer's close(): {@link CoreSession#closeConsumer}. */
    void closeConsumer(ClientConsumer consumer) {
        core.closeConsumer(consumer.core());
    }

    /**
     * Closes the session ({@link CoreSession#close}): its asynchronous sends complete, a running MessageListener is
     * waited for, its consumers and producers close, and the server rolls back an open transaction and gives back
     * what was received and not acknowledged, marked redelivered. Not allowed from this session's CompletionListener,
     * nor from its MessageListener: Jakarta Messaging lets a provider either refuse that or close, and Wharf refuses
     * it with IllegalStateException as it refuses Connection.close and stop and JMSContext.close from a listener (and
     * as the Jakarta Messaging TCK requires).
     */
    @Override
    public void close() throws JMSException {
        sender.checkNotInCompletionListener("close its own session");
        if (isListenerThread() && !core.isClosing()) {
            throw new IllegalStateException("A MessageListener must not close its own session; return from onMessage"
                    + " and close the session from another thread (or close the listener's consumer)");
        }
        try {
            core.close();
        } catch (ClientException e) {
            throw connection.toJms(e);
        }
    }

    // ---- not supported yet ----

    @Override
    public MessageListener getMessageListener() throws JMSException {
        throw JmsErrors.notSupported("Session-level MessageListener (application server facilities)");
    }

    @Override
    public void setMessageListener(MessageListener listener) throws JMSException {
        throw JmsErrors.notSupported("Session-level MessageListener (application server facilities)");
    }

    @Override
    public void run() {
        throw JmsErrors.notSupportedRuntime("Session.run (application server facilities)");
    }

    @Override
    public String toString() {
        return "WharfSession[" + id + ", mode=" + mode + ", " + connection + "]";
    }
    /** What the JMS session adds to its core session: its producers and browsers. */
    private final class Hooks implements CoreSession.Hooks {
        @Override
        public void closing() {
            for (WharfMessageProducer p : producers) {
                p.markClosed();
            }
            producers.clear();
            for (WharfQueueBrowser b : browsers) {
                b.close();
            }
            browsers.clear();
        }
    }
}
