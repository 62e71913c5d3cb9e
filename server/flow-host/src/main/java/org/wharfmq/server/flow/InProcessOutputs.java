package org.wharfmq.server.flow;

import io.netty.buffer.ByteBuf;
import org.wharfmq.client.core.ClientException;
import org.wharfmq.client.core.CoreSender;
import org.wharfmq.client.core.ProducerCredit;
import org.wharfmq.flow.runtime.PlainSends;
import org.wharfmq.jms.WharfSession;
import org.wharfmq.server.ServerPlugin;
import org.wharfmq.server.WharfException;
import org.wharfmq.server.session.InProcessProducer;

import javax.jms.JMSException;
import javax.jms.Session;

/**
 * The flows' readers put what they send outside a transaction inside the queue manager ({@link InProcessProducer},
 * through {@link ServerPlugin.Host#putMessages}), on the reader's own thread: the message their plain session stamps
 * and encodes for its in-VM connection (message id, timestamp, JMSXUserID, the length checks) goes to its queue with no
 * SEND frame, no hand-off to the connection's event loop and no wake of it. They put as the flows' user
 * ({@link FlowUser}), so a put is refused, and the refusal audited, as that user's connection's send would be, and
 * thrown by the send it refuses. A put waits for producer credit as the connection's send would, settling first what
 * the reader took in-process ({@code CoreConnection.beforeCreditWait}, {@link InProcessInputs}). A transacted session's
 * sends go with its transaction, over the connection.
 */
final class InProcessOutputs implements PlainSends {

    private final ServerPlugin.Host server;
    private final FlowUser user;

    InProcessOutputs(ServerPlugin.Host server, FlowUser user) {
        this.server = server;
        this.user = user;
    }

    @Override
    public AutoCloseable open(String flow, Session plain) throws JMSException {
        InProcessProducer producer = server.putMessages(user.identity("send their output"), "flow '" + flow + "'");
        WharfSession session = (WharfSession) plain;
        session.putInProcess(new Puts(producer));
        return () -> {
            session.putInProcess(null);
            producer.close();
        };
    }

    /**
     * One reader's puts, on its thread: the session's sends handed to the producer, the session's wait (its credit
     * wait's settlement, whether it has stopped) lent to the producer's wait, and a refusal given back in the client's
     * terms (the JMS exception its code makes, as a send's refusal over the connection).
     */
    private static final class Puts implements CoreSender.LocalPut, InProcessProducer.Waiting {
        private final InProcessProducer producer;
        /** The wait of the put under way; the reader thread's. */
        private ProducerCredit.Session waiting;

        Puts(InProcessProducer producer) {
            this.producer = producer;
        }

        @Override
        public void put(ByteBuf message, ProducerCredit.Session waiting) throws ClientException {
            this.waiting = waiting;
            try {
                producer.put(message, this);
            } catch (WharfException e) {
                if (waiting.stopped()) {
                    waiting.checkOpen(); // why it stopped: the session closed, the connection lost
                }
                throw new ClientException(e.code(), e.getMessage());
            } finally {
                this.waiting = null;
            }
        }

        @Override
        public void beforeWait() {
            waiting.flushSoonFrames();
        }

        @Override
        public boolean stopped() {
            return waiting.stopped();
        }
    }
}
