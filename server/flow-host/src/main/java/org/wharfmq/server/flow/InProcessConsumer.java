package org.wharfmq.server.flow;

import org.wharfmq.jms.JmsErrors;
import org.wharfmq.jms.message.MessageCodec;
import org.wharfmq.server.WharfException;
import org.wharfmq.server.session.InProcessTakes;

import javax.jms.IllegalStateException;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageListener;
import java.util.function.Predicate;

/**
 * A flow reader's input taken inside the queue manager ({@link InProcessInputs}), read as a JMS consumer in
 * AUTO_ACKNOWLEDGE mode: {@link #receive(long)} waits on the reader's own thread for the next message the queue hands
 * over ({@link InProcessTakes#next}) and makes the JMS message of its stored bytes (the JMS client's own decoding, as a
 * consumer of a connection would). Each message is consumed as it is received, as a connection's consumer's is: it
 * leaves its queue, and gives its share of the server's memory budget back, by a task of the session's loop that the
 * reader does not wait for ({@link InProcessTakes#consumed}: one task settles all that was received until it runs).
 * Nothing received waits for the reader's next step to be settled: the flow's sends, on the reader's thread, may wait
 * for the budget (their producer credit is held back while it is spent), which only that settlement gives back, so a
 * reader holding what it received until its next receive waited for itself (docs/performance-log.md, session 33).
 * A message handed over and not received yet goes back to the queue, in its order, when the consumer closes.
 *
 * <p><b>Threading.</b> Made, received from and closed by its reader's thread alone (asserted); its fields are that
 * thread's.
 */
final class InProcessConsumer implements MessageConsumer {

    private static final Predicate<InProcessTakes.Taken> ANY = taken -> true;

    private final InProcessTakes takes;
    private final String selector;
    private final Thread reader = Thread.currentThread();
    private boolean closed;

    InProcessConsumer(InProcessTakes takes, String selector) {
        this.takes = takes;
        this.selector = selector;
    }

    @Override
    public String getMessageSelector() {
        return selector;
    }

    @Override
    public MessageListener getMessageListener() {
        return null;
    }

    @Override
    public void setMessageListener(MessageListener listener) throws JMSException {
        throw new IllegalStateException("A flow's input taken inside the queue manager is read with receive, on the "
                + "reader's thread; it has no MessageListener.");
    }

    @Override
    public Message receive() throws JMSException {
        return take(-1);
    }

    /** JMS's receive: {@code timeout} 0 waits without limit. */
    @Override
    public Message receive(long timeout) throws JMSException {
        return take(timeout == 0 ? -1 : timeout);
    }

    @Override
    public Message receiveNoWait() throws JMSException {
        return take(0);
    }

    private Message take(long millis) throws JMSException {
        assert Thread.currentThread() == reader : "a flow's input read by " + Thread.currentThread() + ", not its reader";
        if (closed) {
            throw new IllegalStateException("The flow's input is closed.");
        }
        InProcessTakes.Taken taken = takes.poll(ANY);
        if (taken == null) {
            try {
                taken = takes.next(millis);
            } catch (WharfException e) { // its queue was deleted
                throw JmsErrors.toException(e.code(), e.getMessage());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new JMSException("Interrupted while waiting for the flow's input.");
            }
            if (taken == null) {
                return null;
            }
        }
        Message message;
        try {
            message = MessageCodec.decode(taken.message(), taken.deliveryCount());
        } finally {
            taken.message().release(); // the body was copied out (or its array kept: MessageCodec's decoding)
        }
        takes.consumed(taken);
        return message;
    }

    /**
     * Gives back what was handed over and not received, and ends the session; waits for that. What was received is
     * settled first: its settlement is queued on the session's loop ahead of the close.
     */
    @Override
    public void close() {
        assert Thread.currentThread() == reader : "a flow's input closed by " + Thread.currentThread() + ", not its reader";
        if (!closed) {
            closed = true;
            takes.close();
        }
    }
}
