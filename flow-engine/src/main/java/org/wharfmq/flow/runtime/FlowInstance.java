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

import javax.jms.ConnectionFactory;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.Session;
import javax.jms.TransactionRolledBackException;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * One reader of a flow's input node: a thread with its own connection, a transacted session (the input get and
 * the transactional sends of an invocation) and a plain session (non-transactional gets and sends; a queue's
 * non-transactional gets as its host's {@link QueueConsumers} make them: in the flow host, inside the queue manager,
 * with no consumer on the connection). It is either
 * transactional (YES) or not (NO); {@link RunningFlow} gives an AUTOMATIC input node one reader of each kind per
 * instance, selecting persistent and non-persistent messages, so a non-persistent message never pays for a commit.
 *
 * <h2>An invocation</h2>
 * Non-transactional: the message is consumed when read (AUTO_ACKNOWLEDGE), its sends are visible at once, and a
 * failure sends it straight down the backout path. Transactional: the invocation commits the get and all its
 * sends together; a failure rolls them all back and the message is delivered again, until its delivery count
 * passes the backout threshold: that delivery goes down the backout path in a transaction of its own. Database work
 * ({@link DatabaseWork}) commits right before the message's transaction and rolls back with it; an instance keeps
 * its database connections, and the statements prepared on them, from one message to the next while messages keep
 * coming, and gives them back when its read finds none.
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
 * sends and the XA data sources' work commit or roll back together. It begins the transaction only once a message is
 * there: it waits first, without a transaction, until its consumer holds one ({@link MessageArrivals}: the server has
 * handed it to this consumer alone, so no other consumer takes it before the read), up to
 * {@link FlowConfiguration#IDLE_WAIT_MILLIS} at a time; a message ends the wait at once, and so does the flow's stop
 * ({@link StoppableReceive}, which closes the consumer). So an idle reader begins no transaction. A read that finds
 * nothing all the same (the message expired, or a lost connection gave it back to the server) rolls its empty
 * transaction back. (Its database connections are never kept from one invocation to the next: each transaction's
 * end gives them back.)
 */
final class FlowInstance extends InputReader {

    private static final System.Logger LOG = System.getLogger(FlowInstance.class.getName());

    private final InputNode input;
    private final boolean transactional;
    private final String selector;
    /** A coordinated reader's waits for a message, which the flow's stop ends. */
    private final StoppableReceive waiting = new StoppableReceive();
    private MessageConsumer consumer;

    /**
     * @param transactional whether this reader's invocations run in a transaction
     * @param selector      the message selector to read with (the input node's, narrowed for AUTOMATIC), or null
     */
    FlowInstance(RunningFlow flow, InputNode input, ConnectionFactory connectionFactory, boolean transactional,
                 String selector) {
        super(flow, connectionFactory, transactional, transactional ? flow.coordination() : null);
        this.input = input;
        this.transactional = transactional;
        this.selector = selector;
        database.keepWhileBusy();
    }

    @Override
    String describe() {
        return "instance " + Thread.currentThread().getName() + " of " + input + " on "
                + (input.queueName() != null ? "queue " + input.queueName() : "topic " + input.topicName());
    }

    @Override
    void open() throws JMSException {
        // started before its consumer is created, so that the consumer's window goes with its creation, which waits
        // for the server: once open returns, this instance takes its share of the queue's messages (a consumer made
        // on a stopped connection gets its window only as the connection starts, asynchronously)
        Session plain = openWharf(true);
        Session consumerSession = transactional ? transacted : plain;
        if (input.queueName() != null && transactional) {
            consumer = transacted.createConsumer(transacted.createQueue(input.queueName()), selector);
        } else if (input.queueName() != null) {
            // the host's way (the flow host's: inside the queue manager, no frame); closed before the connection
            consumer = flow.queueConsumers().open(flow.name(), plain, input.queueName(), selector,
                    flow.definition().mayBlock());
        } else {
            // one shared subscription for all the flow's instances, so each publication is processed once, not
            // once per instance; AUTOMATIC's two readers select differently, so each kind of reader has its own
            consumer = consumerSession.createSharedConsumer(consumerSession.createTopic(input.topicName()),
                    subscriptionName(flow.name(), input.name(), transactional), selector);
        }
    }

    /** Closes the consumer first: one the host made outside the connection does not close with it. */
    @Override
    void closeConnections() {
        if (consumer != null) {
            try {
                consumer.close();
            } catch (JMSException | RuntimeException e) {
                LOG.log(System.Logger.Level.DEBUG, "Closing a flow consumer: " + e);
            }
            consumer = null;
        }
        super.closeConnections();
    }

    /**
     * The shared subscription a topic input reads from: named after the flow and its input node, so instances of
     * the flow (and the same flow run standalone against the server) share it.
     */
    static String subscriptionName(String flowName, String inputNodeName, boolean transactional) {
        return "WHARF.FLOW." + flowName + "." + inputNodeName + (transactional ? ".T" : ".N");
    }

    /**
     * Reads until the flow stops. A transactional invocation cut off by a dropped connection is rolled back by the
     * server and its message delivered again; a non-transactional one was consumed when read, and what it had not
     * sent yet is lost (transaction mode NO trades that for speed).
     */
    @Override
    void work() throws JMSException {
        while (flow.isRunning()) {
            if (coordination != null) {
                if (!waiting.await(consumer, coordination.arrivals(), FlowConfiguration.IDLE_WAIT_MILLIS)) {
                    continue; // idle: no transaction begun
                }
                invocation.begin(xaSession);
            }
            Message message = consumer.receive(FlowConfiguration.POLL_MILLIS);
            if (message == null && coordination != null) {
                invocation.rollback(); // the empty transaction: the message went (expired, or a reconnection took it)
            }
            if (message != null) {
                process(message);
            } else {
                database.idle(); // the connections kept while messages came go back to their pools
            }
        }
    }

    /** Ends a coordinated reader's wait at once: the flow stops. */
    @Override
    void stopWaiting() {
        waiting.stop();
    }

    private void process(Message message) throws JMSException {
        flow.statistics().invocations.increment();
        int deliveryCount = JmsMessages.deliveryCount(message);
        MessageAssembly assembly;
        try {
            FlowMessage read = JmsMessages.read(message, input.domain(), flow.bodies());
            if (input.opaqueElements() != null) {
                read.parseOpaquely(input.opaqueElements());
            }
            if (input.parseTiming() == ParseTiming.ON_DEMAND) {
                read.parseOnDemand();
            }
            if (input.recordFormat() != null) {
                read.parseAs(input.recordFormat());
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
        try {
            deadLetterAsItCame(message, "", e); // with the get too when the message was transactional
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
}
