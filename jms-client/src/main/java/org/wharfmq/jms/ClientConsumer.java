package org.wharfmq.jms;

import org.wharfmq.client.core.ConnectedLink;
import org.wharfmq.client.core.DeliveryTarget;
import org.wharfmq.client.core.transport.FrameLink;
import org.wharfmq.client.core.transport.FrameWait;

import io.netty.buffer.ByteBuf;
import org.wharfmq.jms.message.MessageCodec;
import org.wharfmq.jms.message.WharfMessage;
import org.wharfmq.jms.message.WharfObjectMessage;
import org.wharfmq.jms.message.WharfStreamMessage;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.frame.MalformedFrameException;
import org.wharfmq.protocol.message.WireDestination;

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
 *
 * <p>Across a reconnection: the consumer lives on its {@link ConnectedLink}; when that is lost, what it buffered is
 * dropped (the server takes it back), and the reconnection creates it again on the new link ({@link #reattach}), from
 * its {@link Spec}. Whatever a delivery leads to (credit, an acknowledgement, a REJECT) goes out on the link the
 * delivery came on, so nothing meant for the old link ever settles a delivery of the new one that has the same id.
 */
final class ClientConsumer implements DeliveryTarget {
    private static final System.Logger LOG = System.getLogger(ClientConsumer.class.getName());

    private final WharfConnection connection;
    private final SessionSettlement settlement;
    private final SessionDispatcher dispatcher;
    private final int id;
    /** Credit is returned in batches of this many consumed deliveries (half the prefetch window). */
    private final int creditBatch;
    /** Whether the server holds this consumer's window back until the connection starts ({@link #createFrame}). */
    private volatile boolean creditWithheld;
    /** Its first CREATE_CONSUMER has been written, so a CREDIT may follow; guarded by this. */
    private boolean createWritten;
    /** What the server needs to create this consumer (again, after a reconnection). */
    private final Spec spec;
    /** The wait of this consumer's receive: for a delivery, a PULL_DONE, a failure, a close or a lost connection. */
    private final FrameWait arrival;
    /** The link the consumer lives on (created, or created again by a reconnection); guarded by this. */
    private ConnectedLink link;
    /** The link of the delivery last taken from the buffer: what consuming it writes goes there. Receiving thread. */
    private ConnectedLink takenLink;
    /** The link {@link #unreturnedCredit} counts for: credit owed to a lost link is owed to nobody. Receiving thread. */
    private ConnectedLink creditLink;

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
    /**
     * How far the application consumed, for CLOSE_CONSUMER: the delivery id, and in the bits above
     * {@link #GENERATION_SHIFT} the generation of the link it came on (delivery ids of another link mean nothing).
     */
    private volatile long lastConsumed;
    /** Deliveries consumed since credit was last returned; receiving thread. */
    private int unreturnedCredit;

    /** Bits of {@link #lastConsumed} below the link's generation: delivery ids stay far below 2^40 per session. */
    private static final int GENERATION_SHIFT = 40;

    /**
     * What CREATE_CONSUMER says of a consumer, kept to create it again after a reconnection.
     *
     * @param sessionId        its session
     * @param destination      the queue, topic or topic filter
     * @param selector         the selector as sent, or null
     * @param prefetch         the credit it starts with
     * @param flags            {@code Frame.CONSUMER_*}
     * @param subscriptionName the durable or shared subscription's name, or null
     */
    record Spec(int sessionId, WireDestination destination, String selector, int prefetch, int flags,
                String subscriptionName) {
    }

    ClientConsumer(WharfConnection connection, SessionSettlement settlement, SessionDispatcher dispatcher, int id,
                   int creditBatch, Spec spec) {
        this.connection = connection;
        this.settlement = settlement;
        this.dispatcher = dispatcher;
        this.id = id;
        this.creditBatch = creditBatch;
        this.spec = spec;
        this.arrival = new FrameWait(null) {
            @Override
            protected FrameLink link() {
                return connection.link(); // a reconnection puts a new one in place while a receive waits
            }

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

    /**
     * CREATE_CONSUMER for this consumer; {@code requestId} 0 for one not waited for. While the connection is stopped
     * it asks for no deliveries yet ({@link Frame#CONSUMER_STOPPED}): the window is sent by {@link #grantWithheldCredit}
     * when the connection starts, so that a consumer of a connection never started takes no message from the
     * queue's other consumers.
     */
    Frame.CreateConsumer createFrame(int requestId) {
        boolean stopped = !connection.isStarted();
        creditWithheld = stopped;
        return new Frame.CreateConsumer(requestId, spec.sessionId(), id, spec.destination(), spec.selector(),
                spec.prefetch(), spec.flags() | (stopped ? Frame.CONSUMER_STOPPED : 0), spec.subscriptionName());
    }

    /**
     * Its creating thread has written the first CREATE_CONSUMER: from now on {@link #grantWithheldCredit} may send the
     * window, which it does at once if the connection started meanwhile (Connection.start skipped it).
     */
    void createWritten() throws JMSException {
        synchronized (this) {
            createWritten = true;
        }
        grantWithheldCredit();
    }

    /**
     * Sends the window {@link #createFrame} withheld, once the connection has started: called by Connection.start and
     * by {@link #createWritten} (whichever comes second sends it), never before the CREATE_CONSUMER; under the read
     * lock of the connection's establishing, so not while a reconnection creates the consumer again (with the window
     * or without, as the connection then is).
     */
    void grantWithheldCredit() throws JMSException {
        if (!creditWithheld || !connection.isStarted()) {
            return;
        }
        connection.underEstablishing(on -> {
            synchronized (this) {
                if (creditWithheld && createWritten && !closed && failureCode == null && link == on) {
                    creditWithheld = false;
                    on.write(new Frame.Credit(id, spec.prefetch()));
                }
            }
            return null;
        });
    }

    /** The consumer is created on {@code on}: its deliveries will come there. Before CREATE_CONSUMER is written. */
    synchronized void createdOn(ConnectedLink on) {
        link = on;
    }

    /** The link of the delivery the receiving thread took last. */
    ConnectedLink takenLink() {
        return takenLink;
    }

    boolean isClosed() {
        return closed;
    }

    MessageListener listener() {
        return listener;
    }

    /** How far the application consumed of what came on {@code on}, for CLOSE_CONSUMER there; 0 for nothing. */
    long lastConsumedOn(ConnectedLink on) {
        long last = lastConsumed;
        return last >>> GENERATION_SHIFT == on.generation() ? last & ((1L << GENERATION_SHIFT) - 1) : 0;
    }

    // ---- the reading thread's side ----

    /** A DELIVER for this consumer: buffered, for a receive to take or the session's listener thread. */
    @Override
    public void deliver(Frame.Deliver deliver) {
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
    @Override
    public void failed(ErrorCode code, String message) {
        failureMessage = message;
        failureCode = code;
        arrival.wake();
    }

    /** The server answered a PULL. */
    @Override
    public void pullDone(long pullId) {
        if (pullId > lastPullDone) {
            lastPullDone = pullId;
        }
        arrival.wake();
    }

    /** Wakes a waiting receive to look again: the connection started, closed or was lost. */
    @Override
    public void wake() {
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
            if (m != null) {
                settlement.handOut(m, takenLink);
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
            settlement.handOut(message, takenLink);
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
        if (connection.usableOrNull() == null) {
            connection.checkOpen();
            return null; // reconnecting: nothing is available now
        }
        long pullId = ++lastPullId;
        awaitedPull = pullId;
        try {
            currentLink().write(new Frame.Pull(id, pullId));
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
                    throw new JMSException("No PULL_DONE from Wharf at " + currentLink().address() + " within "
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
    void checkAccepted() throws JMSException {
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

    /** Takes the head of the buffer, noting whether that emptied it and the link it came on. */
    private synchronized Frame.Deliver poll() {
        Frame.Deliver d = buffer.pollFirst();
        if (d != null) {
            drained = buffer.isEmpty();
            takenLink = link; // what is buffered came on the consumer's link: the buffer is emptied when it changes
        }
        return d;
    }

    private synchronized ConnectedLink currentLink() {
        return link;
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
            settlement.handOut(message, takenLink);
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
            takenLink.write(new Frame.Reject(id, deliver.deliveryId(), e.getMessage()));
        } finally {
            buffer.release();
        }
        consumed(deliver.deliveryId());
        return message;
    }

    /** Counts a delivery as consumed: CLOSE_CONSUMER position, and credit, returned at once in batches. */
    private void consumed(long deliveryId) {
        ConnectedLink on = takenLink;
        lastConsumed = (long) on.generation() << GENERATION_SHIFT | deliveryId;
        if (on != creditLink) {
            creditLink = on; // created again on a new link with its whole window: nothing is owed
            unreturnedCredit = 0;
        }
        if (++unreturnedCredit >= creditBatch && !closed) {
            on.write(new Frame.Credit(id, unreturnedCredit));
            unreturnedCredit = 0;
        }
    }

    /**
     * Records a consumed delivery (the one last taken) that an ACK, COMMIT or ROLLBACK of the session is to settle;
     * one that came on a link since lost is settled by nobody: the server has taken it back.
     */
    synchronized void recordConsumed(long deliveryId) {
        if (takenLink == link) {
            unacknowledged = deliveryId;
        }
    }

    /** The last delivery consumed on {@code on} and not yet acknowledged, or 0. */
    synchronized long unacknowledgedOn(ConnectedLink on) {
        return link == on ? unacknowledged : 0;
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

    /**
     * The consumer's link was lost: what it buffered is dropped (the server takes it back), and a receiveNoWait
     * waiting for its PULL_DONE returns (nothing is available now); a receive waits on.
     */
    void linkLost() {
        synchronized (this) {
            releaseBufferLocked();
            answerPull();
        }
        arrival.wake();
    }

    /**
     * A reconnection creates this consumer again on {@code next}, before writing its CREATE_CONSUMER: the consumer
     * starts afresh there, at its whole prefetch window, with nothing consumed or unacknowledged (what was is the
     * server's again, and comes back marked JMSRedelivered).
     *
     * @return false for a consumer that is closed, or was refused: nothing to create
     */
    synchronized boolean reattach(ConnectedLink next) {
        if (closed || failureCode != null) {
            return false;
        }
        releaseBufferLocked();
        answerPull();
        link = next;
        unacknowledged = 0;
        return true;
    }

    /** A PULL whose link is gone is answered by nobody: its receiveNoWait finds nothing. Under this. */
    private void answerPull() {
        long pull = awaitedPull;
        if (pull > lastPullDone) {
            lastPullDone = pull;
        }
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
