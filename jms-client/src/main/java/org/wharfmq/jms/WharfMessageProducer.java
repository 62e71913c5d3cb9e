package org.wharfmq.jms;

import org.wharfmq.jms.message.WharfMessage;
import org.wharfmq.protocol.message.WireDestination;

import javax.jms.CompletionListener;
import javax.jms.DeliveryMode;
import javax.jms.Destination;
import javax.jms.IllegalStateException;
import javax.jms.InvalidDestinationException;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.Queue;
import javax.jms.Topic;
import javax.jms.TopicPublisher;
import javax.jms.QueueSender;

/**
 * Sends messages to a queue (or, when created without a destination, to the queue named on each send).
 * Persistent sends outside a transaction wait for the server's OK; non-persistent ones and all sends in a
 * transaction do not (the URL option {@code syncSends=true} makes every send wait). Sends with a
 * {@link CompletionListener} return at once and complete through it. The message ID and timestamp hints are
 * honoured: disabled, the message goes without an ID (null) or timestamp (0).
 */
public final class WharfMessageProducer implements QueueSender, TopicPublisher {
    private final WharfSession session;
    private final int id;
    private final Destination destination;
    private final WireDestination wireDestination;
    private volatile boolean closed;
    private int deliveryMode = DeliveryMode.PERSISTENT;
    private int priority = Message.DEFAULT_PRIORITY;
    private long timeToLive = Message.DEFAULT_TIME_TO_LIVE;
    private long deliveryDelay = Message.DEFAULT_DELIVERY_DELAY;
    private boolean disableMessageId;
    private boolean disableMessageTimestamp;

    WharfMessageProducer(WharfSession session, int id, Destination destination, WireDestination wireDestination) {
        this.session = session;
        this.id = id;
        this.destination = destination;
        this.wireDestination = wireDestination;
    }

    int id() {
        return id;
    }

    void markClosed() {
        closed = true;
    }

    private void checkOpen() throws JMSException {
        if (closed) {
            throw new IllegalStateException("The producer is closed");
        }
        session.checkOpen();
    }

    // ---- settings ----

    @Override
    public void setDisableMessageID(boolean value) throws JMSException {
        checkOpen();
        disableMessageId = value;
    }

    @Override
    public boolean getDisableMessageID() throws JMSException {
        checkOpen();
        return disableMessageId;
    }

    @Override
    public void setDisableMessageTimestamp(boolean value) throws JMSException {
        checkOpen();
        disableMessageTimestamp = value;
    }

    @Override
    public boolean getDisableMessageTimestamp() throws JMSException {
        checkOpen();
        return disableMessageTimestamp;
    }

    @Override
    public void setDeliveryMode(int deliveryMode) throws JMSException {
        checkOpen();
        this.deliveryMode = WharfMessage.checkDeliveryMode(deliveryMode);
    }

    @Override
    public int getDeliveryMode() throws JMSException {
        checkOpen();
        return deliveryMode;
    }

    @Override
    public void setPriority(int priority) throws JMSException {
        checkOpen();
        this.priority = WharfMessage.checkPriority(priority);
    }

    @Override
    public int getPriority() throws JMSException {
        checkOpen();
        return priority;
    }

    @Override
    public void setTimeToLive(long timeToLive) throws JMSException {
        checkOpen();
        this.timeToLive = timeToLive;
    }

    @Override
    public long getTimeToLive() throws JMSException {
        checkOpen();
        return timeToLive;
    }

    @Override
    public void setDeliveryDelay(long deliveryDelay) throws JMSException {
        checkOpen();
        this.deliveryDelay = deliveryDelay;
    }

    @Override
    public long getDeliveryDelay() throws JMSException {
        checkOpen();
        return deliveryDelay;
    }

    @Override
    public Destination getDestination() throws JMSException {
        checkOpen();
        return destination;
    }

    @Override
    public Queue getQueue() throws JMSException {
        checkOpen();
        return (Queue) destination;
    }

    @Override
    public Topic getTopic() throws JMSException {
        checkOpen();
        return (Topic) destination;
    }

    @Override
    public void publish(Message message) throws JMSException {
        send(message);
    }

    @Override
    public void publish(Message message, int deliveryMode, int priority, long timeToLive) throws JMSException {
        send(message, deliveryMode, priority, timeToLive);
    }

    @Override
    public void publish(Topic topic, Message message) throws JMSException {
        send(topic, message);
    }

    @Override
    public void publish(Topic topic, Message message, int deliveryMode, int priority, long timeToLive) throws JMSException {
        send(topic, message, deliveryMode, priority, timeToLive);
    }

    // ---- sending ----

    @Override
    public void send(Message message) throws JMSException {
        send(message, deliveryMode, priority, timeToLive);
    }

    @Override
    public void send(Message message, int deliveryMode, int priority, long timeToLive) throws JMSException {
        sendToOwn(message, deliveryMode, priority, timeToLive, null);
    }

    @Override
    public void send(Destination destination, Message message) throws JMSException {
        send(destination, message, deliveryMode, priority, timeToLive);
    }

    @Override
    public void send(Destination destination, Message message, int deliveryMode, int priority, long timeToLive) throws JMSException {
        sendTo(destination, message, deliveryMode, priority, timeToLive, null);
    }

    @Override
    public void send(Queue queue, Message message) throws JMSException {
        send((Destination) queue, message);
    }

    @Override
    public void send(Queue queue, Message message, int deliveryMode, int priority, long timeToLive) throws JMSException {
        send((Destination) queue, message, deliveryMode, priority, timeToLive);
    }

    @Override
    public void send(Message message, CompletionListener completionListener) throws JMSException {
        send(message, deliveryMode, priority, timeToLive, completionListener);
    }

    @Override
    public void send(Message message, int deliveryMode, int priority, long timeToLive, CompletionListener completionListener) throws JMSException {
        sendToOwn(message, deliveryMode, priority, timeToLive, requireListener(completionListener));
    }

    @Override
    public void send(Destination destination, Message message, CompletionListener completionListener) throws JMSException {
        send(destination, message, deliveryMode, priority, timeToLive, completionListener);
    }

    @Override
    public void send(Destination destination, Message message, int deliveryMode, int priority, long timeToLive,
                     CompletionListener completionListener) throws JMSException {
        sendTo(destination, message, deliveryMode, priority, timeToLive, requireListener(completionListener));
    }

    private static CompletionListener requireListener(CompletionListener listener) {
        if (listener == null) {
            throw new IllegalArgumentException("The CompletionListener must not be null");
        }
        return listener;
    }

    private void sendToOwn(Message message, int deliveryMode, int priority, long timeToLive, CompletionListener listener)
            throws JMSException {
        checkOpen();
        if (destination == null) {
            throw new UnsupportedOperationException("This producer was created without a destination; use send(destination, message)");
        }
        session.sender().send(id, destination, wireDestination, message, WharfMessage.checkDeliveryMode(deliveryMode),
                WharfMessage.checkPriority(priority), timeToLive, deliveryDelay, disableMessageId,
                disableMessageTimestamp, listener);
    }

    private void sendTo(Destination destination, Message message, int deliveryMode, int priority, long timeToLive,
                        CompletionListener listener) throws JMSException {
        checkOpen();
        if (this.destination != null) {
            throw new UnsupportedOperationException("This producer sends to " + this.destination + "; use send(message)");
        }
        if (destination == null) {
            throw new InvalidDestinationException("The destination must not be null");
        }
        WireDestination wire = WharfSession.sendDestination(destination);
        session.sender().send(id, destination, wire, message, WharfMessage.checkDeliveryMode(deliveryMode),
                WharfMessage.checkPriority(priority), timeToLive, deliveryDelay, disableMessageId,
                disableMessageTimestamp, listener);
    }

    /**
     * Closes the producer. Not allowed from a CompletionListener of its session (JMS 2.0); otherwise waits for
     * the session's incomplete asynchronous sends.
     */
    @Override
    public void close() throws JMSException {
        session.sender().checkNotInCompletionListener("close its own MessageProducer");
        if (!closed) {
            session.sender().awaitCompletions();
            closed = true;
            session.producerClosed(this);
        }
    }

    @Override
    public String toString() {
        return "WharfMessageProducer[" + id + ", " + (destination == null ? "anonymous" : destination) + "]";
    }
}
