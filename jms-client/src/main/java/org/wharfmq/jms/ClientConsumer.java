package org.wharfmq.jms;

import org.wharfmq.client.core.ClientException;
import org.wharfmq.client.core.CoreConsumer;

import org.wharfmq.jms.message.MessageCodec;
import org.wharfmq.jms.message.RecentValues;
import org.wharfmq.jms.message.WharfMessage;
import org.wharfmq.jms.message.WharfObjectMessage;
import org.wharfmq.jms.message.WharfStreamMessage;
import org.wharfmq.protocol.frame.Frame;

import javax.jms.JMSException;
import javax.jms.MessageListener;

/**
 * One consumer under its JMS facades ({@link WharfMessageConsumer}, {@link WharfJMSConsumer}), over the core's
 * {@link CoreConsumer}, which owns the deliveries the server has pushed ahead of the application (its buffer), the
 * credit it returns, its PULLs, its acknowledgement bookkeeping, and what handing a message out and settling it takes
 * (expired deliveries dropped, undecodable ones rejected, the session told). This class is the core consumer's
 * {@link CoreConsumer.Decoder} of JMS messages, adds receiveBody's rules, hands the core its MessageListener as a
 * {@link org.wharfmq.client.core.MessageHandler} (the core's session runs it), and gives the core's failures as JMS
 * exceptions.
 */
final class ClientConsumer implements CoreConsumer.Decoder<WharfMessage> {
    private final WharfConnection connection;
    private final SessionSettlement settlement;
    private final CoreConsumer core;
    private volatile MessageListener listener;
    /** What its messages repeat, from the one decoded last: not decoded again per message. */
    private final RecentValues recent = new RecentValues();

    /** @param core the consumer, created on the server ({@link org.wharfmq.client.core.CoreSession#createConsumer}) */
    ClientConsumer(WharfConnection connection, SessionSettlement settlement, CoreConsumer core) {
        this.connection = connection;
        this.settlement = settlement;
        this.core = core;
    }

    /** The core consumer under this one: what the connection routes deliveries to. */
    CoreConsumer core() {
        return core;
    }

    int id() {
        return core.id();
    }

    boolean isClosed() {
        return core.isClosed();
    }

    MessageListener listener() {
        return listener;
    }

    // ---- synchronous receive ----

    /**
     * The next message ({@link CoreConsumer#receive}), consumed and acknowledged as the session mode says.
     *
     * @param timeoutNanos how long to wait; negative without limit
     * @param noWait       receiveNoWait: do not wait for a delivery, ask the server (PULL) for one already queued
     * @return null on timeout, when the thread is interrupted, or once the consumer is closed
     */
    WharfMessage receive(long timeoutNanos, boolean noWait) throws JMSException {
        try {
            return core.receive(timeoutNanos, noWait, this);
        } catch (ClientException e) {
            throw connection.toJms(e);
        }
    }

    /**
     * Waits until a message is there for the next receive to return at once, taking none
     * ({@link CoreConsumer#awaitDelivery}).
     *
     * @param timeoutNanos how long to wait; negative without limit
     * @return whether one is there; false on timeout, when the thread is interrupted, or once the consumer is closed
     */
    boolean awaitMessage(long timeoutNanos) throws JMSException {
        try {
            return core.awaitDelivery(timeoutNanos);
        } catch (ClientException e) {
            throw connection.toJms(e);
        }
    }

    /**
     * JMSConsumer.receiveBody: {@link #receive} that returns the body as {@code type}. A message whose body cannot be
     * returned so (a plain Message, a StreamMessage, an unassignable or undeserialisable body) throws
     * MessageFormatException; in AUTO and DUPS_OK mode it is then recovered, to be delivered again, as if a
     * MessageListener had thrown; in CLIENT_ACKNOWLEDGE and transacted mode it counts as delivered (JMS 2.0).
     */
    <T> BodyReceipt<T> receiveBody(Class<T> type, long timeoutNanos, boolean noWait) throws JMSException {
        try {
            WharfMessage message = core.next(timeoutNanos, noWait, this);
            if (message == null) {
                return null;
            }
            T body;
            try {
                if (message instanceof WharfStreamMessage || message.getClass() == WharfMessage.class) {
                    throw new javax.jms.MessageFormatException("receiveBody cannot return the body of a "
                            + (message instanceof WharfStreamMessage ? "StreamMessage" : "Message without a body"));
                }
                body = message.getBody(type);
            } catch (JMSException e) {
                core.refused();
                throw e;
            }
            core.received();
            return new BodyReceipt<>(body);
        } catch (ClientException e) {
            throw connection.toJms(e);
        }
    }

    /** The body receiveBody returns; a record so that a null body differs from "no message". */
    record BodyReceipt<T>(T body) {
    }

    // ---- MessageListener ----

    /** Sets the listener; what is buffered goes to it, and so does every later delivery ({@link CoreConsumer#handleWith}). */
    void listen(MessageListener listener) {
        this.listener = listener;
        core.handleWith(this, listener == null ? null : listener::onMessage);
    }

    // ---- what makes a JMS message of a delivery ----

    @Override
    public WharfMessage decode(Frame.Deliver delivery) {
        WharfMessage message = MessageCodec.decode(delivery.message(), delivery.deliveryCount(), recent);
        message.setAcknowledger(settlement.clientAcknowledger());
        if (message instanceof WharfObjectMessage object) {
            object.setDeserializationPolicy(connection.url().deserialization());
        }
        return message;
    }

    @Override
    public String messageId(WharfMessage message) {
        return message.getJMSMessageID();
    }

    /** JMSRedelivered, and a JMSXDeliveryCount of at least 2. */
    @Override
    public void markRedelivered(WharfMessage message) {
        message.setDeliveryCount(Math.max(2, message.getDeliveryCount()));
    }
}
