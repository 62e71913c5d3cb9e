package org.wharfmq.perf.flow;

import org.wharfmq.flow.FlowDefinition;
import org.wharfmq.flow.FlowFactory;
import org.wharfmq.flow.TransactionMode;
import org.wharfmq.flow.node.JmsInputNode;
import org.wharfmq.flow.node.JmsOutputNode;
import org.wharfmq.flow.runtime.JmsProvider;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.jms.jndi.WharfInitialContextFactory;
import org.wharfmq.perf.workload.TempFiles;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.config.ServerConfig;

import javax.jms.BytesMessage;
import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.JMSException;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Session;
import javax.naming.Context;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.ToIntFunction;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * F-JMS: JMSInput → JMSOutput, both on another JMS provider (seed 002, "Receiving and sending JMS Messages": the
 * JMSInput node reads a queue of the provider and the JMSOutput node sends the same message to another queue of the
 * same provider). The provider is a second Wharf server, reached through Wharf's JMS client and its JNDI
 * ({@link #provider}); the requesters put their requests on its {@value #INPUT_QUEUE} and take the outputs from its
 * {@value #OUTPUT_QUEUE}, by correlation id, as for the other flows. The flow's own server carries none of the
 * messages.
 *
 * <p>Non-persistent runs read without a transaction (a message leaves the provider when read), as the seed's
 * non-persistent rows did; persistent runs (F-PERSIST) read in the provider's transacted session, the send to the
 * provider committed before the read (docs/flows.md, "Other JMS providers").
 */
public final class JmsFlow implements FlowFactory {

    /** The flow's name. */
    public static final String NAME = "F-JMS";
    /** The provider's queue the requesters put the input on. */
    public static final String INPUT_QUEUE = "F.JMS.IN";
    /** The provider's queue the requesters take the outputs from. */
    public static final String OUTPUT_QUEUE = "F.JMS.OUT";
    /** The provider's name under the flow host's {@code jmsProviders:}. */
    static final String PROVIDER = "perf-provider";
    private static final String INPUT_NAME = "perfIn";
    private static final String OUTPUT_NAME = "perfOut";

    private final boolean persistent;

    /** @param persistent whether the run's messages are persistent (the input is then read in a transaction) */
    public JmsFlow(boolean persistent) {
        this.persistent = persistent;
    }

    /** The other provider, the Wharf server at {@code url}, as the flow host's {@code jmsProviders:} entry says it. */
    public static JmsProvider provider(String url) {
        return new JmsProvider(PROVIDER, Map.of(
                Context.INITIAL_CONTEXT_FACTORY, WharfInitialContextFactory.class.getName(),
                Context.PROVIDER_URL, url,
                WharfInitialContextFactory.QUEUE_PREFIX + INPUT_NAME, INPUT_QUEUE,
                WharfInitialContextFactory.QUEUE_PREFIX + OUTPUT_NAME, OUTPUT_QUEUE), null, null, null);
    }

    @Override
    public FlowDefinition create() {
        return FlowDefinition.builder(NAME)
                .node("in", JmsInputNode.from(PROVIDER, INPUT_NAME)
                        .transactionMode(persistent ? TransactionMode.YES : TransactionMode.NO))
                .node("out", JmsOutputNode.to(PROVIDER, OUTPUT_NAME))
                .wire("in", "out", "out")
                .build();
    }

    /**
     * The ceiling, a plain JMS loop with no flow engine: on one thread, over one connection to a Wharf server of its
     * own in this JVM (TCP on 127.0.0.1), the message sent to the input queue, received from it, sent to the output
     * queue and received from it: the requester's work and the flow's. Non-persistent: without transactions.
     * Persistent: the messages persistent, and the flow's part (the receive from the input and the send to the output)
     * in a transacted session committed once per message, as the flow's instance commits both on the provider at once.
     */
    static final class Loop implements ToIntFunction<byte[]>, AutoCloseable {
        private static final long RECEIVE_TIMEOUT_MILLIS = 10_000;
        private final Path data;
        private final WharfServer server;
        private final Connection connection;
        private final MessageProducer toInput;
        private final MessageProducer toOutput;
        private final MessageConsumer fromInput;
        private final MessageConsumer fromOutput;
        /** The requester's session. */
        private final Session session;
        /** The flow's session: the requester's without transactions, else a transacted one of its own. */
        private final Session flowSession;
        /** The server's INFO lines (its start, its listeners) would land among the runner's progress lines. */
        private final Logger serverLog = Logger.getLogger("org.wharfmq.server");
        private final Level serverLogLevel = serverLog.getLevel();

        /** @param persistent whether the messages are persistent and the flow's part transacted */
        Loop(boolean persistent) {
            serverLog.setLevel(Level.WARNING);
            try {
                data = Files.createTempDirectory("wharf-perf-ceiling-jms");
                server = WharfServer.builder(ServerConfig.builder().host("127.0.0.1").port(0).inVmName("wharf-perf-ceiling")
                        .dataDirectory(data).build()).start();
                connection = new WharfConnectionFactory(server.tcpUrl()).createConnection();
                session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
                flowSession = persistent ? connection.createSession(true, Session.SESSION_TRANSACTED) : session;
                int mode = persistent ? DeliveryMode.PERSISTENT : DeliveryMode.NON_PERSISTENT;
                toInput = session.createProducer(session.createQueue(INPUT_QUEUE));
                toOutput = flowSession.createProducer(flowSession.createQueue(OUTPUT_QUEUE));
                toInput.setDeliveryMode(mode);
                toOutput.setDeliveryMode(mode);
                fromInput = flowSession.createConsumer(flowSession.createQueue(INPUT_QUEUE));
                fromOutput = session.createConsumer(session.createQueue(OUTPUT_QUEUE));
                connection.start();
            } catch (Exception e) { // the server's start says only Exception
                throw new IllegalStateException("the ceiling's server: " + e.getMessage(), e);
            }
        }

        @Override
        public int applyAsInt(byte[] body) {
            try {
                BytesMessage request = session.createBytesMessage();
                request.writeBytes(body);
                toInput.send(request);
                BytesMessage read = (BytesMessage) fromInput.receive(RECEIVE_TIMEOUT_MILLIS);
                if (read == null) {
                    throw new IllegalStateException("the ceiling's message did not arrive on " + INPUT_QUEUE);
                }
                toOutput.send(read);
                if (flowSession.getTransacted()) {
                    flowSession.commit();
                }
                BytesMessage output = (BytesMessage) fromOutput.receive(RECEIVE_TIMEOUT_MILLIS);
                if (output == null) {
                    throw new IllegalStateException("the ceiling's message did not arrive on " + OUTPUT_QUEUE);
                }
                return (int) output.getBodyLength();
            } catch (JMSException e) {
                throw new IllegalStateException(e);
            }
        }

        @Override
        public void close() throws Exception {
            try {
                connection.close();
            } finally {
                server.close();
                TempFiles.deleteTree(data);
                serverLog.setLevel(serverLogLevel);
            }
        }
    }
}
