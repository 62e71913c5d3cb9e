package org.wharfmq.server.flow;

import org.wharfmq.jms.JmsErrors;
import org.wharfmq.jms.message.MessageCodec;
import org.wharfmq.jms.message.WharfMessage;
import org.wharfmq.server.WharfException;
import org.wharfmq.server.session.InProcessTakes;

import javax.jms.DeliveryMode;
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
 * consumer of a connection would). Each message is consumed as it is received, as a connection's consumer's is:
 * <ul>
 *   <li>a persistent one is taken off its queue at once (a task of the session's event loop,
 *       {@link InProcessTakes#acknowledge}, not waited for), so a crash of the server never gives it to the flow
 *       again;</li>
 *   <li>non-persistent ones are taken off together, with their credit, every half window
 *       ({@link FlowHostConfiguration#IN_PROCESS_INPUT_CREDIT}), before the reader waits for more and before the
 *       consumer closes: nothing but this session could give them back (a crash ends them), so no event loop is woken
 *       per message.</li>
 * </ul>
 * A message handed over and not received yet goes back to the queue, in its order, when the consumer closes.
 *
 * <p><b>Threading.</b> Its reader's thread alone receives and closes it; its fields are that thread's.
 */
final class InProcessConsumer implements MessageConsumer {

    private static final Predicate<InProcessTakes.Taken> ANY = taken -> true;

    private final InProcessTakes takes;
    private final String selector;
    /** The last non-persistent message received and not yet taken off its queue, or -1. */
    private long unsettled = -1;
    /** The credit of the messages received since the last acknowledgement. */
    private int creditDue;
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
        if (closed) {
            throw new IllegalStateException("The flow's input is closed.");
        }
        InProcessTakes.Taken taken = takes.poll(ANY);
        if (taken == null) {
            settle(); // before the reader waits: what it received leaves the queue now
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
        WharfMessage message;
        try {
            message = MessageCodec.decode(taken.message(), taken.deliveryCount());
        } finally {
            taken.message().release(); // the body was copied out (or its array kept: MessageCodec's decoding)
        }
        unsettled = taken.deliveryId();
        creditDue++;
        if (message.getJMSDeliveryMode() == DeliveryMode.PERSISTENT
                || creditDue >= FlowHostConfiguration.IN_PROCESS_INPUT_CREDIT / 2) {
            settle();
        }
        return message;
    }

    /** Takes what was received off the queue for good and gives its credit back; does not wait. */
    private void settle() {
        if (unsettled >= 0) {
            takes.acknowledge(unsettled, creditDue, 0);
            unsettled = -1;
            creditDue = 0;
        }
    }

    /** Gives back what was handed over and not received, and ends the session; waits for that. */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            settle(); // run on the session's loop before its close, which gives back only what was not received
            takes.close();
        }
    }
}
