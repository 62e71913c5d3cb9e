package org.wharfmq.server.flow;

import org.wharfmq.flow.runtime.QueueConsumers;
import org.wharfmq.jms.JmsErrors;
import org.wharfmq.jms.WharfSession;
import org.wharfmq.server.ServerPlugin;
import org.wharfmq.server.WharfException;
import org.wharfmq.server.security.Identity;
import org.wharfmq.server.session.InProcessTakes;

import javax.jms.JMSException;
import javax.jms.MessageConsumer;
import javax.jms.Session;

/**
 * The flows' non-transactional readers of queues take their messages inside the queue manager
 * ({@link InProcessTakes}, through {@link ServerPlugin.Host#takeMessages(Identity, String)}): each delivery is handed
 * to the reader's thread as the queue delivers it, with no DELIVER frame, no in-VM connection and no event loop in
 * between ({@link InProcessConsumer}). They take as the flows' user ({@code flowHost.user}, with the groups the
 * users file gives it; none: the queue manager itself, as an anonymous in-VM connection is), so the consumer is
 * refused, and the refusal audited, as that user's connection's would be. The reader has logged in as that user over
 * its in-VM connection first ({@code openWharf}), so a wrong password still fails the flow's start with the login's
 * error. Its batches of received messages are settled before a send of that connection waits for producer credit
 * ({@link InProcessConsumer}), which is why the reader's plain session must be a Wharf session of the flow host's.
 */
final class InProcessInputs implements QueueConsumers {

    private final ServerPlugin.Host server;
    private final FlowUser user;

    InProcessInputs(ServerPlugin.Host server, FlowUser user) {
        this.server = server;
        this.user = user;
    }

    @Override
    public MessageConsumer open(String flow, Session plain, String queue, String selector, boolean mayBlock)
            throws JMSException {
        InProcessTakes takes = server.takeMessages(user.identity("take their input"), "flow '" + flow + "'");
        try {
            takes.consume(queue, selector, FlowHostConfiguration.IN_PROCESS_INPUT_CREDIT,
                    FlowHostConfiguration.IN_PROCESS_INPUT_BYTES, FlowHostConfiguration.IN_PROCESS_TIMEOUT_MILLIS);
            InProcessConsumer consumer = new InProcessConsumer(takes, selector, mayBlock);
            // the reader's sends (put in-process, or its transacted session's over the connection) settle what it
            // received before they wait for credit
            ((WharfSession) plain).beforeCreditWait(consumer::beforeCreditWait);
            return consumer;
        } catch (WharfException e) {
            takes.close();
            throw JmsErrors.toException(e.code(), e.getMessage());
        } catch (InterruptedException e) {
            takes.close();
            Thread.currentThread().interrupt();
            throw new JMSException("Flow '" + flow + "': interrupted while opening its input on queue '" + queue
                    + "'.");
        }
    }
}
