package org.wharfmq.flow.runtime;

import org.wharfmq.flow.ExceptionList;
import org.wharfmq.flow.FlowException;
import org.wharfmq.flow.FlowMessage;
import org.wharfmq.flow.Folder;
import org.wharfmq.flow.MessageAssembly;
import org.wharfmq.flow.TransactionMode;
import org.wharfmq.flow.node.JmsInputNode;

import javax.jms.ConnectionFactory;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.ObjectMessage;
import javax.jms.Session;
import java.sql.SQLException;
import java.util.Enumeration;

/**
 * One reader of a {@link JmsInputNode}: a thread with its connection to Wharf (the invocation's sends) and its
 * {@link ProviderLink} to the other provider (the node's consumer). When either cannot be opened or fails, it
 * closes both and opens them again with backoff ({@link InputReader}); a provider down when the flow starts does not
 * stop the flow (the log says which provider and URL it keeps trying).
 *
 * <h2>An invocation</h2>
 * Transactional (YES): the consumer's session on the provider is transacted. The invocation's database work, its
 * sends to other providers and its work on Wharf commit first ({@link Invocation#commit()}), then the provider's
 * session, which takes the message off the provider together with the invocation's sends to this same provider (they
 * go on that session: {@link Invocation#readingFrom}). A crash or a lost connection between the two leaves the
 * message on the provider and it is processed again: a duplicate downstream, never a loss. A failure rolls both back
 * and the provider delivers the message again, until its delivery count passes the backout threshold: then it goes
 * to the failure terminal if wired, else to Wharf's dead-letter queue (with its ExceptionList), in a transaction of
 * its own, before the provider's session commits. Non-transactional (NO): the message is acknowledged when read,
 * and a failure sends it down the backout path at once.
 *
 * <h2>Coordinated</h2>
 * A transactional reader of an {@code xa: true} provider in a coordinated flow ({@link XaCoordination}) reads with an
 * XA session of the provider and connects to Wharf with an XA connection: each invocation is one transaction of the
 * transaction manager, begun with the provider's session enlisted before each read, Wharf's session joining at the
 * invocation's first send to Wharf, and the XA data sources' connections at their first statement. The get, the
 * sends and the database work commit or roll back together, across a crash too (recovery settles the branches left in
 * doubt): there is no window. Since a rolled-back invocation gives its message back to the provider, the backout path
 * tries one stage per delivery (the failure terminal, then the dead-letter queue on the next delivery), as a
 * coordinated reader of a Wharf queue does.
 *
 * <h2>Idle</h2>
 * A read waits {@link FlowConfiguration#POLL_MILLIS} for a message as a busy reader; finding none, the reader gives
 * back the database connections it kept and waits on, up to the node's {@code receiveTimeout} in all, in the same
 * read (coordinated: in the same transaction, which it then rolls back, empty). So an idle coordinated reader costs
 * the provider one empty transaction per receiveTimeout (its timeout set, XA start, end and rollback), not one per
 * poll. The flow's stop ends the wait at once ({@link StoppableReceive}, by closing the consumer); a message that came
 * as the consumer closed goes back to the provider with a rollback (non-transactional: it was acknowledged when read,
 * and is processed).
 */
final class JmsInputReader extends InputReader {

    private static final System.Logger LOG = System.getLogger(JmsInputReader.class.getName());

    private final JmsInputNode input;
    private final JmsProvider provider;
    private final boolean transactional;
    /** Whether its invocations are XA transactions with the provider's get in them. */
    private final boolean coordinated;
    /** How long an idle read waits on after its first {@link FlowConfiguration#POLL_MILLIS}, in ms (0: not at all). */
    private final long idleMillis;
    private final StoppableReceive receiving = new StoppableReceive();
    private ProviderLink link;
    private MessageConsumer consumer;

    JmsInputReader(RunningFlow flow, JmsInputNode input, JmsProvider provider, ConnectionFactory connectionFactory) {
        super(flow, connectionFactory, input.transactionMode() == TransactionMode.YES,
                coordination(flow, input, provider));
        this.input = input;
        this.provider = provider;
        this.transactional = input.transactionMode() == TransactionMode.YES;
        this.coordinated = coordination != null;
        this.idleMillis = Math.max(0, input.receiveTimeout().toMillis() - FlowConfiguration.POLL_MILLIS);
        database.keepWhileBusy();
    }

    /** A transactional reader of an XA provider in a coordinated flow runs coordinated; any other does not. */
    private static XaCoordination coordination(RunningFlow flow, JmsInputNode input, JmsProvider provider) {
        return input.transactionMode() == TransactionMode.YES && provider.xa() ? flow.coordination() : null;
    }

    @Override
    String describe() {
        return input + " on '" + input.destination() + "' of " + provider.describe();
    }

    /** A provider may come later: the flow starts and this reader keeps trying. */
    @Override
    boolean startFailsWithoutConnection() {
        return false;
    }

    @Override
    void open() throws JMSException {
        openWharf(false);
        link = ProviderLink.open(provider, coordinated);
        Session session = transactional ? link.transacted : link.plain;
        consumer = session.createConsumer(link.destination(input.destination()), input.selector());
        link.start();
    }

    @Override
    void closeConnections() {
        if (link != null) {
            link.close();
            link = null;
        }
        super.closeConnections();
    }

    @Override
    void work() throws JMSException {
        while (flow.isRunning()) {
            link.checkAlive();
            if (coordinated) {
                invocation.begin(link.xaResource);
            }
            Message message = read();
            if (message != null && !(transactional && receiving.stopped())) {
                process(message);
            } else if (coordinated) {
                invocation.rollback(); // the empty transaction, or the message that came as the stop closed the consumer
            } else if (message != null) {
                link.rollback(); // it came as the stop closed the consumer: back to the provider
            }
        }
    }

    /**
     * The next message, waiting up to the node's receiveTimeout; null when none came, or when the stop ended the wait
     * (a message that came as it did is returned, and {@link StoppableReceive#stopped()} says so).
     */
    private Message read() throws JMSException {
        Message message = receiving.receive(consumer, FlowConfiguration.POLL_MILLIS);
        if (message != null || receiving.stopped()) {
            return message;
        }
        database.idle(); // the connections kept while messages came go back to their pools
        return idleMillis == 0 ? null : receiving.receive(consumer, idleMillis);
    }

    /** Ends a read's wait at once: the flow stops. */
    @Override
    void stopWaiting() {
        receiving.stop();
    }

    /**
     * A body-less Wharf message with {@code message}'s correlation id, type and properties, and
     * {@link RunningFlow#BODY_NOT_COPIED}.
     */
    private Message withoutObject(Message message) throws JMSException {
        Message copy = transacted.createMessage();
        String correlation = message.getJMSCorrelationID();
        if (correlation != null) {
            copy.setJMSCorrelationID(correlation);
        }
        copy.setJMSType(message.getJMSType());
        for (Enumeration<?> names = message.getPropertyNames(); names.hasMoreElements(); ) {
            String name = (String) names.nextElement();
            if (!name.startsWith("JMSX")) {
                copy.setObjectProperty(name, message.getObjectProperty(name));
            }
        }
        copy.setStringProperty(RunningFlow.BODY_NOT_COPIED, "The body of ObjectMessage " + message.getJMSMessageID()
                + " of " + provider.describe() + " is a serialized Java object, which the server does not deserialize "
                + "(that would run the code of the classes its sender named): it was not copied. Send flows text or "
                + "bytes.");
        return copy;
    }

    private void process(Message message) throws JMSException {
        flow.statistics().invocations.increment();
        int deliveryCount = JmsMessages.deliveryCount(message);
        MessageAssembly assembly;
        try {
            FlowMessage read = JmsMessages.read(message, input.domain(), JmsBodies.COPYING);
            read.headers().set(FlowMessage.JMS_REPLY_TO, null); // the provider's destination means nothing to Wharf
            assembly = MessageAssembly.of(read, Folder.empty("Environment"));
        } catch (JMSException | RuntimeException e) {
            backoutUnreadable(message, e); // retrying cannot help
            return;
        }
        if (transactional && deliveryCount > input.backoutThreshold()) {
            ExceptionList list = flow.takeFailure(message.getJMSMessageID(), input, input.backoutThreshold(),
                    deliveryCount);
            backOut(assembly, list, deliveryCount - input.backoutThreshold() - 1);
            return;
        }
        invocation.reset(transactional);
        if (transactional) {
            invocation.readingFrom(link);
        }
        try {
            invocation.run(input, "out", assembly);
            invocation.commit();
        } catch (FlowException | JMSException | SQLException | RuntimeException e) {
            failed(assembly, e);
            return;
        } finally {
            invocation.release();
        }
        acknowledge();
    }

    /**
     * Takes the message off the provider: the last commit (see the class comment for the window before it); a
     * coordinated reader's get committed with its transaction.
     */
    private void acknowledge() throws JMSException {
        if (transactional && !coordinated) {
            link.commit();
        }
    }

    private void failed(MessageAssembly assembly, Exception e) throws JMSException {
        flow.statistics().failures.increment();
        ExceptionList list = e instanceof FlowException fe && !fe.exceptionList().isEmpty() ? fe.exceptionList()
                : ExceptionList.of(input, e);
        invocation.rollback();
        if (transactional) {
            LOG.log(System.Logger.Level.DEBUG, () -> "Flow '" + flow.name() + "' rolled back message "
                    + assembly.message().messageId() + " of " + provider.describe() + ": " + list.render());
            flow.rememberFailure(assembly.message().messageId(), list);
            if (!coordinated) {
                link.rollback(); // the provider delivers it again (coordinated: rolled back with the transaction)
            }
        } else {
            LOG.log(System.Logger.Level.WARNING, "Flow '" + flow.name() + "' failed on non-transactional message "
                    + assembly.message().messageId() + " of " + provider.describe() + ", backing it out: "
                    + list.render());
            backOut(assembly, list, 0);
        }
    }

    /**
     * The backout path: the failure terminal if wired, else (or when it fails too) Wharf's dead-letter queue, each
     * in a transaction of its own; then the message is taken off the provider. When neither takes it, a transactional
     * message is rolled back onto the provider (it comes again); a non-transactional one is lost, and the log says so.
     * A coordinated reader tries one stage per delivery, from {@code stage} on: its rollback gives the message back to
     * the provider, and the next delivery tries the next stage.
     */
    private void backOut(MessageAssembly assembly, ExceptionList list, int stage) throws JMSException {
        ExceptionList failures = list;
        boolean toFailureTerminal = !flow.definition().targets(input, "failure").isEmpty();
        boolean[] stages = toFailureTerminal ? new boolean[] {true, false} : new boolean[] {false};
        if (coordinated) {
            stages = new boolean[] {stages[Math.min(stage, stages.length - 1)]};
        }
        for (boolean terminal : stages) {
            invocation.reset(transactional);
            try {
                if (terminal) {
                    invocation.runFrom(input, "failure", assembly.withExceptionList(failures));
                } else {
                    MessageAssembly copy = assembly.copy();
                    copy.message().setUserProperty(ExceptionList.PROPERTY, failures.render());
                    invocation.send(copy, invocation.queue(RunningFlow.DEAD_LETTER_QUEUE),
                            transactional ? TransactionMode.YES : TransactionMode.NO);
                }
                invocation.commit();
                flow.statistics().backouts.increment();
                LOG.log(System.Logger.Level.INFO, "Flow '" + flow.name() + "' backed out message "
                        + assembly.message().messageId() + " of " + provider.describe() + " to "
                        + (terminal ? "the failure terminal" : RunningFlow.DEAD_LETTER_QUEUE));
                acknowledge();
                return;
            } catch (FlowException | JMSException | SQLException | RuntimeException e) {
                invocation.rollback();
                failures = e instanceof FlowException fe && !fe.exceptionList().isEmpty() ? fe.exceptionList()
                        : failures.with(input, e);
                LOG.log(System.Logger.Level.ERROR, "Flow '" + flow.name() + "' could not back out message "
                        + assembly.message().messageId() + " of " + provider.describe() + " to "
                        + (terminal ? "the failure terminal" : RunningFlow.DEAD_LETTER_QUEUE) + ": " + e);
            } finally {
                invocation.release();
            }
        }
        if (transactional) {
            flow.rememberFailure(assembly.message().messageId(), failures);
            if (!coordinated) {
                link.rollback();
            }
        } else {
            LOG.log(System.Logger.Level.ERROR, "Flow '" + flow.name() + "' lost non-transactional message "
                    + assembly.message().messageId() + " of " + provider.describe() + ": no backout stage took it.");
        }
    }

    /**
     * A message the flow cannot read: to Wharf's dead-letter queue as it came, then off the provider; an
     * ObjectMessage without its body ({@link #withoutObject}).
     */
    private void backoutUnreadable(Message message, Exception e) throws JMSException {
        if (message instanceof ObjectMessage) {
            deadLetter(message, withoutObject(message), "without its body (an ObjectMessage's serialized object, "
                    + "which the server never deserializes; its property " + RunningFlow.BODY_NOT_COPIED + " says so)",
                    " of " + provider.describe(), e);
        } else {
            deadLetterAsItCame(message, " of " + provider.describe(), e);
        }
        flow.statistics().backouts.increment();
        acknowledge();
    }
}
