package org.wharfmq.flow.runtime;

import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A reader's waits for a message, which its flow's stop cuts short. A reader that waits long (an idle
 * {@link JmsInputReader} in a receive, up to its node's {@code receiveTimeout}; an idle coordinated
 * {@link FlowInstance} for a message to arrive, {@link #await}) would otherwise hold its flow's stop (undeploy,
 * redeploy, the server's stop) up for as long. JMS lets another thread close a consumer while a receive waits in it,
 * and that receive then returns null ({@link MessageConsumer#close()}; a wait of {@link MessageArrivals} returns
 * false): so {@link #stop()} closes the consumer a wait is in, and every wait after it ends at once.
 *
 * <p>Threads: {@link #receive} and {@link #await} are the reader's thread's, {@link #stop()} the stopping thread's;
 * they share only {@link #state}. A wait that the stop cut short waits for the stop's close to end before it returns,
 * so the reader never uses the consumer's session while the stopping thread is still closing the consumer.
 */
final class StoppableReceive {

    private static final System.Logger LOG = System.getLogger(StoppableReceive.class.getName());

    /** The state once {@link #stop()} was called: final. */
    private static final Object STOPPED = new Object();

    /** Null (no wait going on), the consumer a wait is in, or {@link #STOPPED}. */
    private final AtomicReference<Object> state = new AtomicReference<>();
    /** Counted down once {@link #stop()} has closed the consumer a wait was in (if any). */
    private final CountDownLatch closed = new CountDownLatch(1);

    /**
     * Waits up to {@code millis} (at least 1) for a message of {@code consumer}.
     *
     * @return the message; null when none came in time, or when the flow stopped ({@link #stopped()}). A message that
     * came while the stop was closing the consumer is returned, and {@link #stopped()} is then true: the caller gives
     * it back (a rollback) or, when it was acknowledged as it was read, processes it
     */
    Message receive(MessageConsumer consumer, long millis) throws JMSException {
        assert millis > 0 : "a receive of 0 ms waits forever";
        if (!state.compareAndSet(null, consumer)) {
            return null; // stopped
        }
        Message message;
        try {
            message = consumer.receive(millis);
        } catch (JMSException | RuntimeException e) {
            if (cutShort(consumer)) {
                return null; // closed by the stop before the receive began (a receive on a closed consumer throws)
            }
            throw e;
        }
        cutShort(consumer);
        return message;
    }

    /**
     * Waits up to {@code millis} (at least 1) until {@code consumer} holds a message that its next receive returns at
     * once ({@link MessageArrivals#await}), taking none.
     *
     * @return whether one is there; false when none came in time, or when the flow stopped ({@link #stopped()})
     */
    boolean await(MessageConsumer consumer, MessageArrivals arrivals, long millis) throws JMSException {
        assert millis > 0 : "a wait of 0 ms waits forever";
        if (!state.compareAndSet(null, consumer)) {
            return false; // stopped
        }
        boolean there;
        try {
            there = arrivals.await(consumer, millis);
        } catch (JMSException | RuntimeException e) {
            if (cutShort(consumer)) {
                return false; // closed by the stop before the wait began (a wait on a closed consumer throws)
            }
            throw e;
        }
        return !cutShort(consumer) && there;
    }

    /** Ends a wait in {@code consumer}: whether the stop closed it meanwhile (then its close has ended). */
    private boolean cutShort(MessageConsumer consumer) {
        if (state.compareAndSet(consumer, null)) {
            return false;
        }
        try {
            closed.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return true;
    }

    /** Whether {@link #stop()} was called. */
    boolean stopped() {
        return state.get() == STOPPED;
    }

    /**
     * Cuts the wait going on now short (closing its consumer) and makes every later one end at once. Called by the
     * thread that stops the flow, after the flow stopped running.
     */
    void stop() {
        Object waiting = state.getAndSet(STOPPED);
        try {
            if (waiting instanceof MessageConsumer consumer) {
                consumer.close();
            }
        } catch (JMSException | RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "Closing a flow consumer to end its wait: " + e);
        } finally {
            closed.countDown();
        }
    }
}
