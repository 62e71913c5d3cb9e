package org.wharfmq.perf.flow;

import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.perf.workload.TempFiles;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.config.ServerConfig;

import javax.jms.BytesMessage;
import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Session;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.ToIntFunction;
import java.util.function.UnaryOperator;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The plain loop of F-JMS and F-FILE-OUT, whose messages carry their work, and the second loop of the database and
 * records flows (F-DB-*, F-CSV-*, F-FIXED-*; beside their loop of the node's work alone): what a user would run
 * without the broker's flow engine, a JMS application that receives the request, does the flow's work and replies,
 * with the same messaging as the flow's path. On one thread, over one connection to a Wharf server of its own in this JVM (TCP on 127.0.0.1), the message
 * is sent to the input queue, received from it, handed to the flow's work ({@link FlowWork}: sent on as it is, or
 * appended to a file and an empty message sent on), the work's output sent to the output queue and received from
 * there: the requester's work and the flow's. Non-persistent: without transactions. Persistent: the messages
 * persistent, and the flow's part (the receive from the input, the work and the send to the output) in a transacted
 * session committed once per message, as a flow instance commits its get and its put at once.
 */
final class JmsLoop implements ToIntFunction<byte[]>, AutoCloseable {

    /**
     * What the flow does with a message it read, on this thread: returns the message to send to the output queue,
     * made on the flow's session. Closed with the loop.
     */
    @FunctionalInterface
    interface FlowWork extends AutoCloseable {
        /** F-JMS's: the message goes on as it came. */
        FlowWork PASS_ON = (read, flowSession) -> read;

        Message apply(BytesMessage read, Session flowSession) throws JMSException;

        /**
         * A flow's work on the request's body as a JMS application does it: the body read into an array,
         * {@code work} applied to it, and its result sent as a new bytes message (the reply).
         */
        static FlowWork replying(UnaryOperator<byte[]> work) {
            return (read, flowSession) -> {
                byte[] body = new byte[(int) read.getBodyLength()];
                read.readBytes(body);
                BytesMessage reply = flowSession.createBytesMessage();
                reply.writeBytes(work.apply(body));
                return reply;
            };
        }

        @Override
        default void close() throws IOException {
        }
    }

    private static final long RECEIVE_TIMEOUT_MILLIS = 10_000;
    private final String inputQueue;
    private final String outputQueue;
    private final FlowWork work;
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

    /**
     * @param persistent whether the messages are persistent and the flow's part transacted
     * @param work       the flow's work on each message; closed with the loop
     */
    JmsLoop(String inputQueue, String outputQueue, boolean persistent, FlowWork work) {
        this.inputQueue = inputQueue;
        this.outputQueue = outputQueue;
        this.work = work;
        serverLog.setLevel(Level.WARNING);
        try {
            data = Files.createTempDirectory("wharf-perf-ceiling-jms");
            server = WharfServer.builder(ServerConfig.builder().host("127.0.0.1").port(0).inVmName("wharf-perf-ceiling")
                    .dataDirectory(data).build()).start();
            connection = new WharfConnectionFactory(server.tcpUrl()).createConnection();
            session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            flowSession = persistent ? connection.createSession(true, Session.SESSION_TRANSACTED) : session;
            int mode = persistent ? DeliveryMode.PERSISTENT : DeliveryMode.NON_PERSISTENT;
            toInput = session.createProducer(session.createQueue(inputQueue));
            toOutput = flowSession.createProducer(flowSession.createQueue(outputQueue));
            toInput.setDeliveryMode(mode);
            toOutput.setDeliveryMode(mode);
            fromInput = flowSession.createConsumer(flowSession.createQueue(inputQueue));
            fromOutput = session.createConsumer(session.createQueue(outputQueue));
            connection.start();
        } catch (Exception e) { // the server's start says only Exception
            throw new IllegalStateException("the ceiling's server: " + e.getMessage(), e);
        }
    }

    /** Returns the output's body length. */
    @Override
    public int applyAsInt(byte[] body) {
        try {
            BytesMessage request = session.createBytesMessage();
            request.writeBytes(body);
            toInput.send(request);
            BytesMessage read = (BytesMessage) fromInput.receive(RECEIVE_TIMEOUT_MILLIS);
            if (read == null) {
                throw new IllegalStateException("the ceiling's message did not arrive on " + inputQueue);
            }
            toOutput.send(work.apply(read, flowSession));
            if (flowSession.getTransacted()) {
                flowSession.commit();
            }
            BytesMessage output = (BytesMessage) fromOutput.receive(RECEIVE_TIMEOUT_MILLIS);
            if (output == null) {
                throw new IllegalStateException("the ceiling's message did not arrive on " + outputQueue);
            }
            return (int) output.getBodyLength();
        } catch (JMSException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() throws Exception {
        try (work) {
            connection.close();
        } finally {
            server.close();
            TempFiles.deleteTree(data);
            serverLog.setLevel(serverLogLevel);
        }
    }
}
