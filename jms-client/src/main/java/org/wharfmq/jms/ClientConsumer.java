package org.wharfmq.jms;

import org.wharfmq.client.core.ClientException;
import org.wharfmq.client.core.CoreConsumer;

import io.netty.buffer.ByteBuf;
import org.wharfmq.jms.message.MessageCodec;
import org.wharfmq.jms.message.WharfMessage;
import org.wharfmq.jms.message.WharfObjectMessage;
import org.wharfmq.jms.message.WharfStreamMessage;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.frame.MalformedFrameException;

import javax.jms.JMSException;
import javax.jms.MessageListener;

/**
 * One consumer under its JMS facades ({@link WharfMessageConsumer}, {@link WharfJMSConsumer}), over the core's
 * {@link CoreConsumer}, which owns the deliveries the server has pushed ahead of the application (its buffer), the
 * credit it returns, its PULLs and its acknowledgement bookkeeping. This class makes JMS messages of what the core
 * consumer hands out (decoding, expiry, rejecting what cannot be decoded), runs the MessageListener on its session's
 * {@link SessionDispatcher}, and tells its session's {@link SessionSettlement} what was consumed.
 */
final class ClientConsumer {
    private static final System.Logger LOG = System.getLogger(ClientConsumer.class.getName());

    private final WharfConnection connection;
    private final SessionSettlement settlement;
    private final SessionDispatcher dispatcher;
    private final CoreConsumer core;
    private volatile MessageListener listener;

    /** @param core the consumer, created on the server ({@link org.wharfmq.client.core.CoreSession#createConsumer}) */
    ClientConsumer(WharfConnection connection, SessionSettlement settlement, SessionDispatcher dispatcher,
                   CoreConsumer core) {
        this.connection = connection;
        this.settlement = settlement;
        this.dispatcher = dispatcher;
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
     * The next message, consumed and acknowledged as the session mode says; expired and undecodable deliveries
     * are skipped (they count as consumed).
     *
     * @param timeoutNanos how long to wait; negative without limit
     * @param noWait       receiveNoWait: do not wait for a delivery, ask the server (PULL) for one already queued
     * @return null on timeout, when the thread is interrupted, or once the consumer is closed
     */
    WharfMessage receive(long timeoutNanos, boolean noWait) throws JMSException {
        long deadline = System.nanoTime() + timeoutNanos;
        while (true) {
            Frame.Deliver d = next(timeoutNanos, noWait, deadline);
            if (d == null) {
                return null;
            }
            WharfMessage m = consume(d);
            if (m != null) {
                settlement.handOut(m, core.takenLink());
            }
            settlement.received(this, d.deliveryId());
            if (m != null) {
                return m;
            }
        }
    }

    /**
     * JMSConsumer.receiveBody: {@link #receive} that returns the body as {@code type}. A message whose body cannot be
     * returned so (a plain Message, a StreamMessage, an unassignable or undeserialisable body) throws
     * MessageFormatException; in AUTO and DUPS_OK mode it is then recovered, to be delivered again, as if a
     * MessageListener had thrown; in CLIENT_ACKNOWLEDGE and transacted mode it counts as delivered (JMS 2.0).
     */
    <T> BodyReceipt<T> receiveBody(Class<T> type, long timeoutNanos, boolean noWait) throws JMSException {
        long deadline = System.nanoTime() + timeoutNanos;
        while (true) {
            Frame.Deliver d = next(timeoutNanos, noWait, deadline);
            if (d == null) {
                return null;
            }
            WharfMessage message = consume(d);
            long deliveryId = d.deliveryId();
            if (message == null) {
                settlement.received(this, deliveryId);
                continue;
            }
            settlement.handOut(message, core.takenLink());
            T body;
            try {
                if (message instanceof WharfStreamMessage || message.getClass() == WharfMessage.class) {
                    throw new javax.jms.MessageFormatException("receiveBody cannot return the body of a "
                            + (message instanceof WharfStreamMessage ? "StreamMessage" : "Message without a body"));
                }
                body = message.getBody(type);
            } catch (JMSException e) {
                settlement.bodyRefused(this, deliveryId);
                throw e;
            }
            settlement.received(this, deliveryId);
            return new BodyReceipt<>(body);
        }
    }

    /** The body receiveBody returns; a record so that a null body differs from "no message". */
    record BodyReceipt<T>(T body) {
    }

    /** The next delivery: {@link CoreConsumer#takeNow} for receiveNoWait, else {@link CoreConsumer#take}. */
    private Frame.Deliver next(long timeoutNanos, boolean noWait, long deadline) throws JMSException {
        try {
            return noWait ? core.takeNow() : core.take(timeoutNanos < 0 ? -1 : Math.max(0, deadline - System.nanoTime()));
        } catch (ClientException e) {
            throw connection.toJms(e);
        }
    }

    // ---- MessageListener ----

    /** Sets the listener; what is buffered goes to it, and so does every later delivery. */
    void listen(MessageListener listener) {
        this.listener = listener;
        int buffered = core.handleWith(listener == null ? null : count -> dispatcher.ready(this, count));
        if (listener != null) {
            dispatcher.start();
            connection.listenerInUse();
            connection.flushSoonFrames(); // the consumer's opening may still wait for a ride; a listener waits
            dispatcher.ready(this, buffered);
        }
    }

    /** The next delivery for {@code listener}, or null if there is none or the consumer is closed. */
    Frame.Deliver takeForListener(MessageListener listener) {
        return listener == null || core.isClosed() ? null : core.poll();
    }

    /** Runs the listener on a delivery taken for it (the session's listener thread), then acknowledges it. */
    void dispatch(MessageListener current, Frame.Deliver deliver) {
        WharfMessage message = consume(deliver);
        long deliveryId = deliver.deliveryId();
        // recorded before onMessage so that acknowledge(), commit() or recover() inside it include this message
        recordConsumed(deliveryId);
        int rollbacks = settlement.rollbackCount();
        if (message != null) {
            settlement.handOut(message, core.takenLink());
            try {
                current.onMessage(message);
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "MessageListener of consumer " + core.id() + " threw on "
                        + message.getJMSMessageID(), e);
                if (settlement.recoverAfterListenerFailure()) {
                    return;
                }
            }
        }
        settlement.afterListener(this, deliveryId, rollbacks);
    }

    // ---- consuming: credit and acknowledgement bookkeeping ----

    /**
     * Decodes a delivery and counts it as consumed for credit and CLOSE_CONSUMER. Returns null, and the caller goes
     * on to the next delivery, when it has expired (dropped, as JMS allows) or cannot be decoded: that one is
     * rejected back to the server, which moves it to its dead-letter queue with the reason, so it is neither lost
     * nor delivered again and again. (JMS has no way to hand the application a message it cannot build; an
     * acknowledgement that covers its delivery id later leaves it in the dead-letter queue.)
     */
    private WharfMessage consume(Frame.Deliver deliver) {
        ByteBuf buffer = deliver.message();
        WharfMessage message = null;
        try {
            long expiration = MessageCodec.expirationOf(buffer);
            if (expiration == 0 || expiration > System.currentTimeMillis()) {
                message = MessageCodec.decode(buffer, deliver.deliveryCount());
                message.setAcknowledger(settlement.clientAcknowledger());
                if (message instanceof WharfObjectMessage object) {
                    object.setDeserializationPolicy(connection.url().deserialization());
                }
            }
        } catch (MalformedFrameException | IndexOutOfBoundsException e) {
            LOG.log(System.Logger.Level.WARNING, "Delivery " + deliver.deliveryId() + " for consumer " + core.id()
                    + " cannot be decoded (" + e.getMessage() + "); rejected: the server moves it to its"
                    + " dead-letter queue");
            core.reject(deliver.deliveryId(), e.getMessage());
        } finally {
            buffer.release();
        }
        core.consumed(deliver.deliveryId());
        return message;
    }

    /** {@link CoreConsumer#recordConsumed}. */
    void recordConsumed(long deliveryId) {
        core.recordConsumed(deliveryId);
    }

    /** Stops this consumer ({@link CoreConsumer#close}); false if it was closed already. */
    boolean close() {
        return core.close();
    }

}
