package org.wharfmq.server.flow;

import org.wharfmq.jms.JmsErrors;
import org.wharfmq.jms.message.MessageCodec;
import org.wharfmq.jms.message.RecentValues;
import org.wharfmq.server.WharfException;
import org.wharfmq.server.session.DeferredWakes;
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
 * consumer of a connection would, what repeats from one message to the next decoded once: its JMSDestination and
 * JMSReplyTo, property names and string values, {@link RecentValues}). Each message is consumed as it is received, as a
 * connection's consumer's is, and settled (off its queue, its share of the server's memory budget given back) in
 * batches by a task of the session's loop that the reader does not wait for ({@link InProcessTakes#consumed}), so that
 * the loop is not woken for each message. A batch is settled as it fills, and always before the reader's thread waits:
 * before a receive waits for the next message, and before a send of the reader's connection waits for producer credit,
 * put inside the queue manager ({@link InProcessOutputs}) or sent over the connection ({@link #beforeCreditWait}, which
 * {@link InProcessInputs} hooks into the connection). The credit is held back while the memory budget is spent, which
 * what the reader received and has not settled holds: a reader that kept its batch while its send waited would wait for
 * itself (as session 32's did, settling by count: docs/performance-log.md; FlowInputBatchSettlementTest).
 * A message handed over and not received yet goes back to the queue, in its order, when the consumer closes; what was
 * received is settled first.
 *
 * <p>The reader of a flow whose nodes may block (a database, HTTP, file or JMS node: {@code Node.mayBlock}) defers
 * its thread's wakes of event loops while this consumer is open ({@link DeferredWakes}): the tasks its puts give other
 * connections' loops (a reply to a requester) and its settlements are queued without a wake, run whenever their loop
 * next wakes, and their wakes owed and issued together to the loops that have not run them yet, so that a loop
 * asleep is woken once for up to {@code Configuration.DEFERRED_WAKES_MAX} of them: always before the reader waits
 * (for its next message here, for producer credit or the journal in its puts), and by the queue manager's bound
 * thread when owed for longer than {@code Configuration.DEFERRED_WAKE_BOUND_MICROS} (a node blocked in a database
 * call, an HTTP request, a file or another JMS provider: FlowDeferredWakesTest). There the reader is the one busy
 * thread, its invocations long, and a wake owed across the next few, which the loop mostly takes for a read of its own
 * meanwhile, saves a wake each. The reader of a flow whose
 * nodes do not block (F-PASS) defers nothing: its invocations are short, it waits for its input every few messages
 * and would issue there anyway, and holding its replies and the bound thread's looks cost more than they saved
 * (docs/performance-log.md, sessions 38 and 39); a JavaCompute node that blocks holds nothing either
 * (FlowDeferredWakesTest).
 *
 * <p><b>Threading.</b> Made, received from and closed by its reader's thread alone (asserted); its fields are that
 * thread's. {@link #beforeCreditWait} runs on whatever thread sends on the reader's connection, and settles only on
 * the reader's (no other thread sends there: the flow's sends are the reader's).
 */
final class InProcessConsumer implements MessageConsumer {

    private static final Predicate<InProcessTakes.Taken> ANY = taken -> true;

    private final InProcessTakes takes;
    private final String selector;
    private final Thread reader = Thread.currentThread();
    /** The reader's deferred wakes, begun with this consumer (null: the reader's thread does not defer them). */
    private final DeferredWakes wakes;
    /** What the last message decoded had, which the next takes again where it has the same. */
    private final RecentValues recent = new RecentValues();
    private boolean closed;

    /** @param deferWakes whether the reader's thread defers its wakes: its flow's nodes may block */
    InProcessConsumer(InProcessTakes takes, String selector, boolean deferWakes) {
        this.takes = takes;
        this.selector = selector;
        this.wakes = deferWakes ? DeferredWakes.begin() : null;
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
            takes.settle(); // before this thread waits: what it received must not wait for the next message
            DeferredWakes.issueOwed(); // nor what it put (and the settlement), owed a wake of their loops
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
            message = MessageCodec.decode(taken.message(), taken.deliveryCount(), recent);
        } finally {
            taken.message().release(); // the body was copied out (or its array kept: MessageCodec's decoding)
        }
        takes.consumed(taken);
        return message;
    }

    /**
     * Settles what was received, before a send on the reader's connection waits for producer credit: the connection's
     * {@code beforeCreditWait}. Nothing on another thread, or once closed.
     */
    void beforeCreditWait() {
        if (Thread.currentThread() == reader && !closed) {
            takes.settle();
            DeferredWakes.issueOwed();
        }
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
            try {
                takes.close();
            } finally {
                if (wakes != null) {
                    wakes.close();
                }
            }
        }
    }
}
