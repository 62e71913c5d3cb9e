package org.wharfmq.jms;

import javax.jms.Destination;
import javax.jms.IllegalStateException;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageListener;
import javax.jms.Queue;
import javax.jms.QueueReceiver;
import javax.jms.Topic;
import javax.jms.TopicSubscriber;
import java.util.concurrent.TimeUnit;

/**
 * A consumer of a queue or of a topic subscription (whose queue lives on the server): the JMS face of a
 * {@link ClientConsumer}, over the core client's {@code CoreConsumer}, which owns the deliveries the server pushes
 * ahead (up to {@code prefetch}), the credit returned as the application consumes them, and their acknowledgement. {@link #receiveNoWait()} asks the server
 * with PULL when nothing is buffered, so it never misses a message already on the queue. Expired messages are
 * dropped (and count as consumed) instead of being returned.
 */
public final class WharfMessageConsumer implements QueueReceiver, TopicSubscriber {
    /** Longer timeouts than this (centuries) wait without a deadline rather than overflow it. */
    private static final long MAX_TIMEOUT_NANOS = Long.MAX_VALUE / 4;

    private final WharfSession session;
    private final ClientConsumer core;
    private final Destination destination;
    private final String selector;
    private final boolean noLocal;

    WharfMessageConsumer(WharfSession session, ClientConsumer core, Destination destination, String selector,
                         boolean noLocal) {
        this.session = session;
        this.core = core;
        this.destination = destination;
        this.selector = selector;
        this.noLocal = noLocal;
    }

    /** The core this facade stands for. */
    ClientConsumer core() {
        return core;
    }

    private void checkOpen() throws JMSException {
        if (core.isClosed()) {
            throw new IllegalStateException("The consumer is closed");
        }
        session.checkOpen();
    }

    private void checkSynchronous() throws JMSException {
        checkOpen();
        if (core.listener() != null) {
            throw new IllegalStateException("This consumer has a MessageListener; it cannot also receive synchronously");
        }
    }

    /** A timeout in ms as the core takes it: negative (without limit) for 0 or less, or for centuries. */
    private static long timeoutNanos(long timeoutMillis) {
        long nanos = timeoutMillis <= 0 ? -1 : TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        return nanos > MAX_TIMEOUT_NANOS ? -1 : nanos;
    }

    @Override
    public String getMessageSelector() throws JMSException {
        checkOpen();
        return selector;
    }

    @Override
    public MessageListener getMessageListener() throws JMSException {
        checkOpen();
        return core.listener();
    }

    /** Sets the listener; messages then go to it on the session's dispatcher thread while the connection is started. */
    @Override
    public void setMessageListener(MessageListener listener) throws JMSException {
        checkOpen();
        core.listen(listener);
    }

    @Override
    public Message receive() throws JMSException {
        return receive(0);
    }

    /** Waits up to {@code timeout} ms (0 = forever); null on timeout or when the consumer is closed meanwhile. */
    @Override
    public Message receive(long timeout) throws JMSException {
        checkSynchronous();
        return core.receive(timeoutNanos(timeout), false);
    }

    @Override
    public Message receiveNoWait() throws JMSException {
        checkSynchronous();
        return core.receive(0, true);
    }

    /**
     * Waits up to {@code timeout} ms (0 = forever) until this consumer holds a message that its next receive returns
     * without waiting, and takes none (not JMS: Wharf's own). A consumer of an XA session waits so before it begins
     * the transaction its receive belongs to, so that it begins none while its queue is idle. The message was handed
     * to this consumer alone: no other consumer takes it meanwhile. It can still be gone by the receive (it expired,
     * or the connection was lost and the server took it back): the receive then waits as usual.
     *
     * @return whether such a message is there; false on timeout, when the thread is interrupted, or once the consumer
     * is closed (another thread's {@link #close()} ends the wait at once)
     * @throws JMSException when the connection is lost for good or the server refused this consumer
     */
    public boolean awaitMessage(long timeout) throws JMSException {
        checkSynchronous();
        return core.awaitMessage(timeoutNanos(timeout));
    }

    /**
     * JMSConsumer.receiveBody: the body of the next message.
     *
     * @param timeout ms to wait; 0 = do not wait (receiveNoWait); negative = without limit
     * @return null when no message came (timeout, close), or the message's body (itself possibly null)
     */
    <T> ClientConsumer.BodyReceipt<T> receiveBody(Class<T> type, long timeout) throws JMSException {
        checkSynchronous();
        return core.receiveBody(type, timeout < 0 ? -1 : timeoutNanos(timeout), timeout == 0);
    }

    /**
     * Closes the consumer: a blocked receive returns null, a running listener is waited for (unless it is the
     * caller), and the server learns the last delivery the application got; it takes back the rest. No answer
     * is awaited.
     */
    @Override
    public void close() throws JMSException {
        session.closeConsumer(core);
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
        return "WharfMessageConsumer[" + core.id() + ", " + destination + (selector != null ? ", selector=" + selector : "") + "]";
    }
}
