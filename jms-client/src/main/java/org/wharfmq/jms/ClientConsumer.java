package org.wharfmq.jms;

import io.netty.buffer.ByteBuf;
import org.wharfmq.jms.message.MessageCodec;
import org.wharfmq.jms.message.WharfMessage;
import org.wharfmq.jms.message.WharfObjectMessage;
import org.wharfmq.jms.message.WharfStreamMessage;
import org.wharfmq.jms.transport.FrameWait;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.frame.MalformedFrameException;

import javax.jms.JMSException;
import javax.jms.MessageListener;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

/**
 * The core of one consumer, under its JMS facades ({@link WharfMessageConsumer}, {@link WharfJMSConsumer}): owns the
 * deliveries the server has pushed ahead of the application (its buffer), the credit it returns as they are consumed
 * ({@code CREDIT}, in batches of half the prefetch window), and its acknowledgement bookkeeping (the last delivery
 * consumed and not yet acknowledged, which its session's {@link SessionSettlement} lists in ACK, COMMIT and ROLLBACK).
 * Nothing outside this class touches those.
 *
 * <p>Deliveries come in on whichever thread reads the connection (often the receiving thread itself: see
 * {@link FrameWait}) straight from {@link WharfConnection}'s consumer-id lookup; the buffer and what the reading
 * thread writes are guarded by this object's monitor, held only briefly and never across I/O or a wait. Consuming
 * (decoding, credit, acknowledging) happens on the thread that receives, outside it: the session's thread, or its
 * {@link SessionDispatcher} once the consumer has a MessageListener.
 */
final class ClientConsumer {
    private static final System.Logger LOG = System.getLogger(ClientConsumer.class.getName());

    private final WharfConnection connection;
    private final SessionSettlement settlement;
    private final SessionDispatcher dispatcher;
    private final int id;
    /** Credit is returned in batches of this many consumed deliveries (half the prefetch window). */
    private final int creditBatch;
    /** The wait of this consumer's receive: for a delivery, a PULL_DONE, a failure, a close or a lost connection. */
    private final FrameWait arrival;

    /** Deliveries not yet taken, in arrival order; guarded by this. */
    private final ArrayDeque<Frame.Deliver> buffer = new ArrayDeque<>();
    /** The last delivery consumed and not yet acknowledged, or 0; guarded by this. */
    private long unacknowledged;
    /** Whether the last take emptied the buffer (DUPS_OK flushes its acknowledgements then); receiving thread. */
    private boolean drained;
    private volatile MessageListener listener;
    private volatile boolean closed;
    private volatile ErrorCode failureCode;
    private volatile String failureMessage;
    /** The last PULL sent (receiving thread), the last PULL_DONE read (reading thread), the PULL awaited or 0. */
    private long lastPullId;
    private volatile long lastPullDone;
    private volatile long awaitedPull;
    /** How far the application consumed, for CLOSE_CONSUMER. */
    private volatile long lastConsumedDeliveryId;
    /** Deliveries consumed since credit was last returned; receiving thread. */
    private int unreturnedCredit;

    ClientConsumer(WharfConnection connection, SessionSettlement settlement, SessionDispatcher dispatcher, int id,
                   int creditBatch) {
        this.connection = connection;
        this.settlement = settlement;
        this.dispatcher = dispatcher;
        this.id = id;
        this.creditBatch = creditBatch;
        this.arrival = new FrameWait(connection.link()) {
            @Override
            protected boolean isOver() {
                return closed || failureCode != null || connection.lostCause() != null || awaitedPullAnswered()
                        || (connection.isStarted() && hasBuffered());
            }
        };
    }

    int id() {
        return id;
    }

    boolean isClosed() {
        return closed;
    }

    MessageListener listener() {
        return listener;
    }

    long lastConsumedDeliveryId() {
        return lastConsumedDeliveryId;
    }

    // ---- the reading thread's side ----

    /** A DELIVER for this consumer: buffered, for a receive to take or the session's listener thread. */
    void deliver(Frame.Deliver deliver) {
        MessageListener current;
        synchronized (this) {
            // between a ROLLBACK and its answer the server takes back whatever it sent meanwhile
            if (closed || settlement.isDiscarding()) {
                deliver.message().release();
                return;
            }
            buffer.addLast(deliver);
            current = listener;
        }
        if (current != null) {
            dispatcher.ready(this, 1);
        } else {
            arrival.wake();
        }
    }

    /** The server refused this consumer, which was created without waiting: its receive raises why. */
    void failed(ErrorCode code, String message) {
        failureMessage = message;
        failureCode = code;
        arrival.wake();
    }

    /** The server answered a PULL. */
    void pullDone(long pullId) {
        if (pullId > lastPullDone) {
            lastPullDone = pullId;
        }
        arrival.wake();
    }

    /** Wakes a waiting receive to look again: the connection started, closed or was lost. */
    void wake() {
        arrival.wake();
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

    /** The next delivery: {@link #takeNow} for receiveNoWait, else {@link #take} until {@code deadline}. */
    private Frame.Deliver next(long timeoutNanos, boolean noWait, long deadline) throws JMSException {
        return noWait ? takeNow() : take(timeoutNanos < 0 ? -1 : Math.max(0, deadline - System.nanoTime()));
    }

    /**
     * Waits for the next buffered delivery, reading the socket meanwhile if no other thread does.
     *
     * @param timeoutNanos negative to wait without limit
     * @return null on timeout, when the thread is interrupted or once the consumer is closed
     */
    private Frame.Deliver take(long timeoutNanos) throws JMSException {
        long deadline = System.nanoTime() + timeoutNanos;
        while (true) {
            if (closedOrFailed()) {
                return null;
            }
            if (connection.isStarted()) {
                Frame.Deliver d = poll();
                if (d != null) {
                    return d;
                }
            }
            long remaining = timeoutNanos < 0 ? -1 : deadline - System.nanoTime();
            if (timeoutNanos >= 0 && remaining <= 0) {
                return null;
            }
            connection.flushSoonFrames();   // an acknowledgement waiting for a ride should not wait for this one
            if (!arrival.await(remaining) && Thread.currentThread().isInterrupted()) {
                return null;
            }
        }
    }

    /**
     * receiveNoWait: the buffered head, else a PULL so that a message already on the queue is found; returns null
     * only once PULL_DONE says the queue had none (or while the connection is stopped).
     */
    private Frame.Deliver takeNow() throws JMSException {
        if (closed || !connection.isStarted()) {
            return null;
        }
        Frame.Deliver d = poll();
        if (d != null) {
            return d;
        }
        checkAccepted();
        long pullId = ++lastPullId;
        awaitedPull = pullId;
        try {
            connection.checkUsable();
            connection.write(new Frame.Pull(id, pullId));
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(connection.url().requestTimeoutMillis());
            while (true) {
                if (closedOrFailed()) {
                    return null;
                }
                d = poll();
                if (d != null || lastPullDone >= pullId) {
                    return d;
                }
                long remaining = deadline - System.nanoTime();
                if (remaining <= 0) {
                    throw new JMSException("No PULL_DONE from Wharf at " + connection.url().address() + " within "
                            + connection.url().requestTimeoutMillis() + " ms (requestTimeout)");
                }
                if (!arrival.await(remaining) && Thread.currentThread().isInterrupted()) {
                    return null;
                }
            }
        } finally {
            awaitedPull = 0;
        }
    }

    /** True once closed; throws when the connection is lost or the server refused this consumer. */
    private boolean closedOrFailed() throws JMSException {
        if (closed) {
            return true;
        }
        JMSException lost = connection.lostCause();
        if (lost != null) {
            throw connection.lostException(lost);
        }
        checkAccepted();
        return false;
    }

    /** Throws a fresh exception saying why the server refused this consumer, if it has. */
    private void checkAccepted() throws JMSException {
        ErrorCode code = failureCode;
        if (code != null) {
            throw JmsErrors.toException(code, failureMessage);
        }
    }

    private boolean awaitedPullAnswered() {
        long pull = awaitedPull;
        return pull != 0 && lastPullDone >= pull;
    }

    /** How many deliveries wait in the buffer now. */
    synchronized int buffered() {
        return buffer.size();
    }

    private synchronized boolean hasBuffered() {
        return !buffer.isEmpty();
    }

    /** Takes the head of the buffer, noting whether that emptied it. */
    private synchronized Frame.Deliver poll() {
        Frame.Deliver d = buffer.pollFirst();
        if (d != null) {
            drained = buffer.isEmpty();
        }
        return d;
    }

    /** Whether the last take emptied the buffer: DUPS_OK flushes its acknowledgements then. Receiving thread. */
    boolean drained() {
        return drained;
    }

    // ---- MessageListener ----

    /** Sets the listener; what is buffered goes to it, and so does every later delivery. */
    void listen(MessageListener listener) {
        int buffered;
        synchronized (this) {
            this.listener = listener;
            buffered = listener == null ? 0 : buffer.size();
        }
        if (listener != null) {
            dispatcher.start();
            connection.listenerInUse();
            connection.flushSoonFrames(); // the consumer's opening may still wait for a ride; a listener waits
            dispatcher.ready(this, buffered);
        }
    }

    /** The next delivery for {@code listener}, or null if there is none or the consumer is closed. */
    Frame.Deliver takeForListener(MessageListener listener) {
        return listener == null || closed ? null : poll();
    }

    /** Runs the listener on a delivery taken for it (the session's listener thread), then acknowledges it. */
    void dispatch(MessageListener current, Frame.Deliver deliver) {
        WharfMessage message = consume(deliver);
        long deliveryId = deliver.deliveryId();
        // recorded before onMessage so that acknowledge(), commit() or recover() inside it include this message
        recordConsumed(deliveryId);
        int rollbacks = settlement.rollbackCount();
        if (message != null) {
            try {
                current.onMessage(message);
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "MessageListener of consumer " + id + " threw on "
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
            LOG.log(System.Logger.Level.WARNING, "Delivery " + deliver.deliveryId() + " for consumer " + id
                    + " cannot be decoded (" + e.getMessage() + "); rejected: the server moves it to its"
                    + " dead-letter queue");
            connection.write(new Frame.Reject(id, deliver.deliveryId(), e.getMessage()));
        } finally {
            buffer.release();
        }
        consumed(deliver.deliveryId());
        return message;
    }

    /** Counts a delivery as consumed: CLOSE_CONSUMER position, and credit, returned at once in batches. */
    private void consumed(long deliveryId) {
        lastConsumedDeliveryId = deliveryId;
        if (++unreturnedCredit >= creditBatch && !closed) {
            connection.write(new Frame.Credit(id, unreturnedCredit));
            unreturnedCredit = 0;
        }
    }

    /** Records a consumed delivery that an ACK, COMMIT or ROLLBACK of the session is to settle. */
    synchronized void recordConsumed(long deliveryId) {
        unacknowledged = deliveryId;
    }

    /** The last delivery consumed and not yet acknowledged, or 0. */
    synchronized long unacknowledged() {
        return unacknowledged;
    }

    /** An ACK or COMMIT settled the deliveries up to {@code deliveryId}; a later one stays unacknowledged. */
    synchronized void acknowledged(long deliveryId) {
        if (unacknowledged == deliveryId) {
            unacknowledged = 0;
        }
    }

    /**
     * A ROLLBACK is under way: the server takes back everything this consumer was sent, so the buffer is emptied,
     * nothing is unacknowledged any more and the consumer restarts at its initial credit.
     */
    void rolledBack() {
        synchronized (this) {
            unacknowledged = 0;
        }
        unreturnedCredit = 0;
    }

    // ---- closing ----

    /**
     * Stops this consumer: a waiting receive returns null, buffered deliveries are released (the server takes them
     * back on CLOSE_CONSUMER).
     *
     * @return false if it was closed already
     */
    boolean close() {
        synchronized (this) {
            if (closed) {
                return false;
            }
            closed = true;
            releaseBufferLocked();
        }
        arrival.wake();
        return true;
    }

    /** Releases what is buffered: a ROLLBACK or the connection lost takes it back. */
    synchronized void releaseBuffer() {
        releaseBufferLocked();
    }

    private void releaseBufferLocked() {
        for (Frame.Deliver d; (d = buffer.pollFirst()) != null; ) {
            d.message().release();
        }
    }

    @Override
    public String toString() {
        return "ClientConsumer[" + id + "]";
    }
}
