package org.wharfmq.flow.runtime;

import org.wharfmq.flow.ExceptionList;
import org.wharfmq.flow.FlowException;
import org.wharfmq.flow.FlowMessage;
import org.wharfmq.flow.Folder;
import org.wharfmq.flow.MessageAssembly;
import org.wharfmq.flow.ParseTiming;
import org.wharfmq.flow.TransactionMode;
import org.wharfmq.flow.XmlParseException;
import org.wharfmq.flow.XmlValidationException;
import org.wharfmq.flow.node.InputNode;

import javax.jms.Connection;
import javax.jms.ConnectionFactory;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Session;
import javax.jms.TransactionRolledBackException;
import javax.jms.XAConnection;
import javax.jms.XASession;
import javax.transaction.xa.XAResource;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * One reader of a flow's input node: a thread with its own connection, a transacted session (the input get and
 * the transactional sends of an invocation) and a plain session (non-transactional gets and sends). It is either
 * transactional (YES) or not (NO); {@link RunningFlow} gives an AUTOMATIC input node one reader of each kind per
 * instance, selecting persistent and non-persistent messages, so a non-persistent message never pays for a commit.
 *
 * <h2>An invocation</h2>
 * Non-transactional: the message is consumed when read (AUTO_ACKNOWLEDGE), its sends are visible at once, and a
 * failure sends it straight down the backout path. Transactional: the invocation commits the get and all its
 * sends together; a failure rolls them all back and the message is delivered again, until its delivery count
 * passes the backout threshold: that delivery goes down the backout path in a transaction of its own. Database work
 * ({@link DatabaseWork}) commits right before the message's transaction and rolls back with it.
 *
 * <h2>The backout path</h2>
 * Stages, tried in order: the input node's failure terminal (if wired), the backout queue (if set), the dead-letter
 * queue. Transactional: one stage per delivery (a failing stage rolls back and the next delivery tries the next
 * stage), so the message stays on its queue until a stage succeeds and is never lost. Non-transactional: the
 * stages are tried one after another at once.
 *
 * <h2>Coordinated</h2>
 * A transactional reader of a coordinated flow ({@link XaCoordination}) reads with an XA session: each invocation is
 * a transaction of the transaction manager, begun (and the session enlisted) before each read, so that the get, the
 * sends and the XA data sources' work commit or roll back together. A read that finds no message within
 * {@link FlowConfiguration#POLL_MILLIS} rolls its empty transaction back.
 */
final class FlowInstance implements Runnable {

    private static final System.Logger LOG = System.getLogger(FlowInstance.class.getName());

    private final RunningFlow flow;
    private final InputNode input;
    private final ConnectionFactory connectionFactory;
    private final boolean transactional;
    private final String selector;
    private final CompletableFuture<Void> opened = new CompletableFuture<>();
    private final CompletableFuture<Void> finished = new CompletableFuture<>();
    private final DatabaseWork database;
    /** The transaction manager and XA factory of a coordinated reader, or null. */
    private final XaCoordination coordination;
    private Connection connection;
    /** The XA session's resource, enlisted in each invocation's transaction (coordinated), or null. */
    private XAResource xaSession;
    private Session transacted;
    private MessageConsumer consumer;
    private Invocation invocation;

    /**
     * @param transactional whether this reader's invocations run in a transaction
     * @param selector      the message selector to read with (the input node's, narrowed for AUTOMATIC), or null
     */
    FlowInstance(RunningFlow flow, InputNode input, ConnectionFactory connectionFactory, boolean transactional,
                 String selector) {
        this.flow = flow;
        this.input = input;
        this.connectionFactory = connectionFactory;
        this.transactional = transactional;
        this.selector = selector;
        this.coordination = transactional ? flow.coordination() : null;
        this.database = new DatabaseWork(flow.name(), flow.dataSources(), transactional, coordination != null);
    }

    /** Completes when the consumer is open (or exceptionally when opening failed). */
    CompletableFuture<Void> opened() {
        return opened;
    }

    /** Completes when the thread has stopped and closed its connection. */
    CompletableFuture<Void> finished() {
        return finished;
    }

    @Override
    public void run() {
        try {
            open();
            opened.complete(null);
        } catch (JMSException | RuntimeException e) {
            opened.completeExceptionally(e); // the flow does not start: its deployer hears why
            closeConnection();
            finished.complete(null);
            return;
        }
        try {
            while (flow.isRunning()) {
                try {
                    loop();
                } catch (JMSException | RuntimeException e) {
                    if (flow.isRunning()) {
                        reconnect(e);
                    }
                }
            }
        } finally {
            closeConnection();
            finished.complete(null);
        }
    }

    /**
     * After the connection failed (dropped by the server or the network, or a get, commit or send that failed):
     * opens a new one, waiting {@link FlowConfiguration#FIRST_RETRY_MILLIS} and then twice as long after each failed attempt, up to
     * {@link FlowConfiguration#MAX_RETRY_MILLIS}, until it works or the flow stops. A transactional invocation cut off is rolled
     * back by the server and its message delivered again; a non-transactional one was consumed when read, and what
     * it had not sent yet is lost (transaction mode NO trades that for speed).
     */
    private void reconnect(Exception cause) {
        String instance = Thread.currentThread().getName();
        LOG.log(System.Logger.Level.WARNING, "Flow '" + flow.name() + "' instance " + instance + " lost its connection ("
                + cause + "); reconnecting");
        flow.statistics().reconnects.increment();
        long delay = FlowConfiguration.FIRST_RETRY_MILLIS;
        int attempts = 0;
        while (true) {
            closeConnection();
            if (flow.awaitStop(delay)) {
                return;
            }
            attempts++;
            try {
                open();
                LOG.log(System.Logger.Level.INFO, "Flow '" + flow.name() + "' instance " + instance + " reconnected after "
                        + attempts + " attempt(s)");
                return;
            } catch (JMSException | RuntimeException e) {
                delay = Math.min(delay * 2, FlowConfiguration.MAX_RETRY_MILLIS);
                LOG.log(attempts == 1 || delay == FlowConfiguration.MAX_RETRY_MILLIS ? System.Logger.Level.WARNING : System.Logger.Level.DEBUG,
                        "Flow '" + flow.name() + "' instance " + instance + " cannot reconnect (attempt " + attempts
                                + "): " + e + "; next attempt in " + delay + " ms");
            }
        }
    }

    private void open() throws JMSException {
        if (coordination != null) {
            openCoordinated();
            return;
        }
        connection = connectionFactory.createConnection();
        // started before its consumer is created, so that the consumer's window goes with its creation, which waits
        // for the server: once open returns, this instance takes its share of the queue's messages (a consumer made
        // on a stopped connection gets its window only as the connection starts, asynchronously)
        connection.start();
        transacted = connection.createSession(true, Session.SESSION_TRANSACTED);
        Session plain = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        openConsumer(transactional ? transacted : plain);
        invocation = new Invocation(flow, transacted, plain, database);
    }

    /** As {@link #open()}, for a coordinated reader: an XA connection, the XA session consuming and sending. */
    private void openCoordinated() throws JMSException {
        XAConnection xa = coordination.connections().createXAConnection();
        connection = xa;
        connection.start(); // before the consumer, as in open()
        XASession session = xa.createXASession();
        transacted = session;
        xaSession = coordination.enlisting().apply(session.getXAResource());
        Session plain = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        openConsumer(session);
        invocation = new Invocation(flow, transacted, plain, database, coordination.transactions());
    }

    private void openConsumer(Session consumerSession) throws JMSException {
        if (input.queueName() != null) {
            consumer = consumerSession.createConsumer(consumerSession.createQueue(input.queueName()), selector);
        } else {
            // one shared subscription for all the flow's instances, so each publication is processed once, not
            // once per instance; AUTOMATIC's two readers select differently, so each kind of reader has its own
            consumer = consumerSession.createSharedConsumer(consumerSession.createTopic(input.topicName()),
                    subscriptionName(flow.name(), input.name(), transactional), selector);
        }
    }

    /**
     * The shared subscription a topic input reads from: named after the flow and its input node, so instances of
     * the flow (and the same flow run standalone against the server) share it.
     */
    static String subscriptionName(String flowName, String inputNodeName, boolean transactional) {
        return "WHARF.FLOW." + flowName + "." + inputNodeName + (transactional ? ".T" : ".N");
    }

    private void loop() throws JMSException {
        while (flow.isRunning()) {
            if (coordination != null) {
                invocation.begin(xaSession);
            }
            Message message = consumer.receive(FlowConfiguration.POLL_MILLIS);
            if (message == null && coordination != null) {
                invocation.rollback(); // the empty transaction
            }
            if (message != null) {
                process(message);
            }
        }
    }

    private void process(Message message) throws JMSException {
        flow.statistics().invocations.increment();
        int deliveryCount = JmsMessages.deliveryCount(message);
        MessageAssembly assembly;
        try {
            FlowMessage read = JmsMessages.read(message, input.domain());
            if (input.opaqueElements() != null) {
                read.parseOpaquely(input.opaqueElements());
            }
            if (input.parseTiming() == ParseTiming.ON_DEMAND) {
                read.parseOnDemand();
            }
            assembly = MessageAssembly.of(read, Folder.empty("Environment"));
        } catch (JMSException | RuntimeException e) {
            // a message the flow cannot even read goes straight to the backout path: retrying cannot help
            backoutUnreadable(message, e);
            return;
        }
        if (transactional && deliveryCount > input.backoutThreshold()) {
            backOut(assembly, flow.takeFailure(message.getJMSMessageID(), input, deliveryCount),
                    deliveryCount - input.backoutThreshold() - 1);
            return;
        }
        boolean timing = flow.statistics().timing();
        long start = timing ? System.nanoTime() : 0;
        long startCpu = timing ? CpuClock.now() : 0;
        invocation.reset(transactional);
        try {
            if (input.schema() != null && !valid(assembly, deliveryCount)) {
                return;
            }
            invocation.run(input, "out", assembly);
            commit();
        } catch (FlowException | JMSException | SQLException | RuntimeException e) {
            if (transactional && e instanceof TransactionRolledBackException rolledBack) {
                rolledBack(assembly.message().messageId(), rolledBack);
            } else {
                failed(assembly, e);
            }
        } finally {
            invocation.release(); // nothing left after a commit; after anything else, nothing kept
            if (timing) {
                flow.statistics().elapsedNanos.add(System.nanoTime() - start);
                flow.statistics().cpuNanos.add(CpuClock.now() - startCpu);
            }
        }
    }

    /**
     * Validates the input against the input node's schema. An invalid message goes straight down the backout
     * path, since retrying cannot make it valid: in a transaction, one stage per delivery (the first delivery to
     * the first stage), so a stage that fails hands over to the next on redelivery.
     */
    private boolean valid(MessageAssembly assembly, int deliveryCount) throws JMSException {
        try {
            input.schema().validate(assembly.message());
            return true;
        } catch (XmlValidationException | XmlParseException e) {
            flow.statistics().failures.increment();
            LOG.log(System.Logger.Level.DEBUG, () -> "Flow '" + flow.name() + "' refused message "
                    + assembly.message().messageId() + ": " + e.getMessage());
            backOut(assembly, ExceptionList.of(input, e), transactional ? deliveryCount - 1 : 0);
            return false;
        }
    }

    private void failed(MessageAssembly assembly, Exception e) throws JMSException {
        flow.statistics().failures.increment();
        ExceptionList list = e instanceof FlowException fe && !fe.exceptionList().isEmpty() ? fe.exceptionList()
                : ExceptionList.of(input, e);
        rollback();
        if (transactional) {
            LOG.log(System.Logger.Level.DEBUG, () -> "Flow '" + flow.name() + "' rolled back message "
                    + assembly.message().messageId() + ": " + list.render());
            flow.rememberFailure(assembly.message().messageId(), list);
        } else {
            LOG.log(System.Logger.Level.WARNING, "Flow '" + flow.name() + "' failed on non-transactional message "
                    + assembly.message().messageId() + ", backing it out: " + list.render());
            backOut(assembly, list, 0);
        }
    }

    /**
     * Sends the message down the backout path from {@code stage} on (see the class comment).
     */
    private void backOut(MessageAssembly assembly, ExceptionList list, int stage) throws JMSException {
        List<String> stages = new ArrayList<>(3);
        if (!flow.definition().targets(input, "failure").isEmpty()) {
            stages.add(null); // the failure terminal
        }
        if (input.backoutQueue() != null) {
            stages.add(input.backoutQueue());
        }
        stages.add(RunningFlow.DEAD_LETTER_QUEUE);
        int first = Math.min(stage, stages.size() - 1);
        int last = transactional ? first : stages.size() - 1;
        ExceptionList failures = list;
        for (int i = first; i <= last; i++) {
            String queue = stages.get(i);
            invocation.reset(transactional);
            try {
                if (queue == null) {
                    invocation.runFrom(input, "failure", assembly.withExceptionList(failures));
                } else {
                    MessageAssembly copy = assembly.copy();
                    copy.message().setUserProperty(ExceptionList.PROPERTY, failures.render());
                    invocation.send(copy, invocation.queue(queue), transactional ? TransactionMode.YES : TransactionMode.NO);
                }
                commit();
                flow.statistics().backouts.increment();
                LOG.log(System.Logger.Level.INFO, "Flow '" + flow.name() + "' backed out message "
                        + assembly.message().messageId() + " to " + (queue == null ? "the failure terminal" : queue));
                return;
            } catch (FlowException | JMSException | SQLException | RuntimeException e) {
                if (transactional && e instanceof TransactionRolledBackException rolledBack) {
                    rolledBack(assembly.message().messageId(), rolledBack);
                    return; // not this stage's failure: the next delivery takes the backout path again
                }
                rollback();
                failures = e instanceof FlowException fe && !fe.exceptionList().isEmpty() ? fe.exceptionList()
                        : failures.with(input, e);
                LOG.log(System.Logger.Level.ERROR, "Flow '" + flow.name() + "' could not back out message "
                        + assembly.message().messageId() + " to " + (queue == null ? "the failure terminal" : queue)
                        + ": " + e);
                if (transactional) {
                    flow.rememberFailure(assembly.message().messageId(), failures);
                }
            }
        }
        if (!transactional) {
            LOG.log(System.Logger.Level.ERROR, "Flow '" + flow.name() + "' lost non-transactional message "
                    + assembly.message().messageId() + ": no backout stage accepted it.");
        }
    }

    /**
     * Ends an invocation that succeeded: its database work commits first, then the message's transaction (when there
     * is one). A failure between the two (a crash, a refused message commit) leaves the database work done and the
     * message delivered again: the window that a coordinated (XA) transaction would close.
     */
    private void commit() throws SQLException, JMSException {
        invocation.commit();
    }

    /** Ends an invocation that failed: its database work and the message's transaction roll back. */
    private void rollback() throws JMSException {
        invocation.rollback();
    }

    private void backoutUnreadable(Message message, Exception e) throws JMSException {
        LOG.log(System.Logger.Level.ERROR, "Flow '" + flow.name() + "' cannot read message "
                + message.getJMSMessageID() + "; moving it as it is to " + RunningFlow.DEAD_LETTER_QUEUE + ": " + e);
        MessageProducer producer = transacted.createProducer(null);
        try {
            producer.send(invocation.queue(RunningFlow.DEAD_LETTER_QUEUE), message);
        } finally {
            producer.close();
        }
        try {
            invocation.commitMessage(); // with the get too when the message was transactional
        } catch (TransactionRolledBackException rolledBack) {
            if (transactional) {
                rolledBack(message.getJMSMessageID(), rolledBack);
            } else {
                LOG.log(System.Logger.Level.ERROR, "Flow '" + flow.name() + "' lost non-transactional message "
                        + message.getJMSMessageID() + ": its copy to " + RunningFlow.DEAD_LETTER_QUEUE
                        + " was rolled back: " + rolledBack.getMessage());
            }
            return;
        }
        flow.statistics().backouts.increment();
    }

    /**
     * The JMS provider rolled back a transactional invocation's transaction at its commit (Wharf's client does so for
     * a transaction its reconnection cut, docs/resilience.md; the server for one whose send it refused): the
     * invocation's sends are gone, its message comes again and the session has begun a new transaction. That is
     * neither a failure of the flow's nodes (not counted, no rollback to send) nor a lost connection (the client
     * has already made it again, so the instance goes on with it). The reason is kept for the backout path, should
     * this message's deliveries run out.
     */
    private void rolledBack(String messageId, TransactionRolledBackException e) {
        LOG.log(System.Logger.Level.WARNING, "Flow '" + flow.name() + "': the transaction of message " + messageId
                + " was rolled back by the messaging provider at its commit; the message comes again. "
                + e.getMessage());
        flow.rememberFailure(messageId, ExceptionList.of(input, e));
    }

    private void closeConnection() {
        closeQuietly(connection);
        connection = null;
    }

    /** Closes a reader's connection (if any), which may be broken already: a failure is only logged. */
    static void closeQuietly(Connection connection) {
        if (connection != null) {
            try {
                connection.close();
            } catch (JMSException | RuntimeException e) {
                LOG.log(System.Logger.Level.DEBUG, "Closing a flow connection: " + e);
            }
        }
    }
}
