package org.wharfmq.jms;

import org.wharfmq.jms.message.WharfMessage;
import org.wharfmq.jms.transport.FrameWait;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.Frame;

import javax.jms.IllegalStateException;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageListener;
import javax.jms.Queue;
import javax.jms.Topic;
import javax.jms.TopicSubscriber;
import javax.jms.QueueReceiver;
import javax.jms.Destination;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

/**
 * A consumer of a queue or of a topic subscription (whose queue lives on the server). The server pushes up to {@code prefetch} messages ahead of the application into this
 * consumer's buffer; the consumer returns credit in batches of half the window as the application consumes.
 * {@link #receiveNoWait()} asks the server with PULL when the buffer is empty, so it never misses a message
 * already on the queue. Expired messages are dropped (and count as consumed) instead of being returned.
 *
 * <p>Buffer, pull state and listener are guarded by the session's lock; the consumption counters are used
 * only by the session's thread.
 */
public final class WharfMessageConsumer implements QueueReceiver, TopicSubscriber {
    private static final long MAX_TIMEOUT_NANOS = Long.MAX_VALUE / 4;

    private final WharfSession session;
    private final int id;
    private final Destination destination;
    private final String selector;
    private final boolean noLocal;
    /** The wait of this consumer's receive: for a delivery, a PULL_DONE, a failure or a close. */
    private final FrameWait arrival;
    private final ArrayDeque<Frame.Deliver> buffer = new ArrayDeque<>();
    private volatile MessageListener listener;
    private volatile boolean closed;
    private volatile ErrorCode failureCode;
    private volatile String failureMessage;
    private boolean drained;
    private long lastPullId;
    private long lastPullDone;
    /** The PULL a receiveNoWait waits for the answer to, or 0. */
    private long awaitedPull;
    private volatile long lastConsumedDeliveryId;
    private int unreturnedCredit;

    WharfMessageConsumer(WharfSession session, int id, Destination destination, String selector, boolean noLocal) {
        this.session = session;
        this.id = id;
        this.destination = destination;
        this.selector = selector;
        this.noLocal = noLocal;
        this.arrival = new FrameWait(session.connection().link()) {
            @Override
            protected boolean isOver() {
                return session.receivable(WharfMessageConsumer.this);
            }
        };
    }

    // ---- state shared with the session (under its lock unless noted) ----

    int id() {
        return id;
    }

    WharfSession session() {
        return session;
    }

    FrameWait arrival() {
        return arrival;
    }

    ArrayDeque<Frame.Deliver> buffer() {
        return buffer;
    }

    /** Takes the head of the buffer, noting whether that emptied it. */
    Frame.Deliver takeBuffered() {
        Frame.Deliver d = buffer.pollFirst();
        if (d != null) {
            drained = buffer.isEmpty();
        }
        return d;
    }

    /** Whether the last take emptied the buffer: DUPS_OK flushes its acks then. Session thread. */
    boolean drained() {
        return drained;
    }

    MessageListener listener() {
        return listener;
    }

    void listener(MessageListener listener) {
        this.listener = listener;
    }

    boolean isClosed() {
        return closed;
    }

    void markClosed() {
        closed = true;
    }

    /** Records that the server refused this consumer, which was created without waiting (IO thread). */
    void markFailed(ErrorCode code, String message) {
        failureMessage = message;
        failureCode = code;
    }

    /** Throws a fresh exception saying why the server refused this consumer, if it has. */
    void checkAccepted() throws JMSException {
        ErrorCode code = failureCode;
        if (code != null) {
            throw JmsErrors.toException(code, failureMessage);
        }
    }

    void releaseBuffer() {
        for (Frame.Deliver d; (d = buffer.pollFirst()) != null; ) {
            d.message().release();
        }
    }

    /** A fresh PULL id, whose answer the receive then waits for. */
    long nextPullId() {
        awaitedPull = ++lastPullId;
        return awaitedPull;
    }

    void pullNoLongerAwaited() {
        awaitedPull = 0;
    }

    boolean awaitedPullAnswered() {
        return awaitedPull != 0 && lastPullDone >= awaitedPull;
    }

    boolean hasFailed() {
        return failureCode != null;
    }

    void pullDone(long pullId) {
        lastPullDone = Math.max(lastPullDone, pullId);
    }

    boolean pullAnswered(long pullId) {
        return lastPullDone >= pullId;
    }

    long lastConsumedDeliveryId() {
        return lastConsumedDeliveryId;
    }

    /** Counts a delivery as consumed (session thread): CLOSE_CONSUMER position and credit. */
    void consumed(long deliveryId) {
        lastConsumedDeliveryId = deliveryId;
        if (++unreturnedCredit >= session.batchSize() && !closed) {
            session.connection().write(new Frame.Credit(id, unreturnedCredit));
            unreturnedCredit = 0;
        }
    }

    /** After a rollback the server restarts this consumer at its initial credit. */
    void resetCredit() {
        unreturnedCredit = 0;
    }

    // ---- javax.jms.MessageConsumer ----

    private void checkOpen() throws JMSException {
        if (closed) {
            throw new IllegalStateException("The consumer is closed");
        }
        session.checkOpen();
    }

    private void checkSynchronous() throws JMSException {
        checkOpen();
        if (listener != null) {
            throw new IllegalStateException("This consumer has a MessageListener; it cannot also receive synchronously");
        }
    }

    @Override
    public String getMessageSelector() throws JMSException {
        checkOpen();
        return selector;
    }

    @Override
    public MessageListener getMessageListener() throws JMSException {
        checkOpen();
        return listener;
    }

    /** Sets the listener; messages then go to it on the session's dispatcher thread while the connection is started. */
    @Override
    public void setMessageListener(MessageListener listener) throws JMSException {
        checkOpen();
        session.setListener(this, listener);
    }

    @Override
    public Message receive() throws JMSException {
        return receive(-1L);
    }

    /** Waits up to {@code timeout} ms (0 = forever); null on timeout or when the consumer is closed meanwhile. */
    @Override
    public Message receive(long timeout) throws JMSException {
        checkSynchronous();
        long timeoutNanos = timeout <= 0 ? -1 : TimeUnit.MILLISECONDS.toNanos(timeout);
        if (timeoutNanos > MAX_TIMEOUT_NANOS) {
            timeoutNanos = -1; // centuries: wait without a deadline rather than overflow it
        }
        long deadline = System.nanoTime() + timeoutNanos;
        while (true) {
            Frame.Deliver d = session.take(this, timeoutNanos < 0 ? -1 : Math.max(0, deadline - System.nanoTime()));
            if (d == null) {
                return null;
            }
            WharfMessage m = session.consumeReceived(this, d);
            if (m != null) {
                return m;
            }
        }
    }

    @Override
    public Message receiveNoWait() throws JMSException {
        checkSynchronous();
        while (true) {
            Frame.Deliver d = session.takeNow(this);
            if (d == null) {
                return null;
            }
            WharfMessage m = session.consumeReceived(this, d);
            if (m != null) {
                return m;
            }
        }
    }

    /**
     * JMSConsumer.receiveBody: the body of the next message.
     *
     * @param timeout ms to wait; 0 = do not wait (receiveNoWait); negative = without limit
     * @return null when no message came (timeout, close), or the message's body (itself possibly null)
     */
    <T> WharfSession.BodyReceipt<T> receiveBody(Class<T> type, long timeout) throws JMSException {
        checkSynchronous();
        long timeoutNanos = timeout < 0 ? -1 : TimeUnit.MILLISECONDS.toNanos(timeout);
        if (timeoutNanos > MAX_TIMEOUT_NANOS) {
            timeoutNanos = -1;
        }
        long deadline = System.nanoTime() + timeoutNanos;
        while (true) {
            Frame.Deliver d = timeout == 0 ? session.takeNow(this)
                    : session.take(this, timeoutNanos < 0 ? -1 : Math.max(0, deadline - System.nanoTime()));
            if (d == null) {
                return null;
            }
            WharfSession.BodyReceipt<T> receipt = session.consumeReceivedBody(this, d, type);
            if (receipt != null) {
                return receipt;
            }
        }
    }

    /**
     * Closes the consumer: a blocked receive returns null, a running listener is waited for (unless it is the
     * caller), and the server learns the last delivery the application got; it takes back the rest. No answer
     * is awaited.
     */
    @Override
    public void close() throws JMSException {
        session.closeConsumer(this);
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
    public boolean getNoLocal() throws JMSException {
        checkOpen();
        return noLocal;
    }

    @Override
    public String toString() {
        return "WharfMessageConsumer[" + id + ", " + destination + (selector != null ? ", selector=" + selector : "") + "]";
    }
}
