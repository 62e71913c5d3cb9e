package org.wharfmq.flow.runtime;

import org.wharfmq.flow.ExceptionList;
import org.wharfmq.flow.FlowContext;
import org.wharfmq.flow.FlowDefinition;
import org.wharfmq.flow.FlowException;
import org.wharfmq.flow.FlowMessage;
import org.wharfmq.flow.HttpCaller;
import org.wharfmq.flow.HttpExchange;
import org.wharfmq.flow.MessageAssembly;
import org.wharfmq.flow.Node;
import org.wharfmq.flow.TransactionMode;
import org.wharfmq.flow.node.FileOutputNode;
import org.wharfmq.flow.node.LabelNode;

import javax.jms.DeliveryMode;
import javax.jms.Destination;
import javax.jms.JMSException;
import javax.jms.JMSSecurityException;
import javax.jms.Message;
import javax.jms.MessageProducer;
import javax.jms.Queue;
import javax.jms.Session;
import javax.jms.TemporaryQueue;
import javax.jms.TemporaryTopic;
import javax.jms.Topic;
import javax.jms.TransactionRolledBackException;
import javax.transaction.HeuristicMixedException;
import javax.transaction.HeuristicRollbackException;
import javax.transaction.NotSupportedException;
import javax.transaction.RollbackException;
import javax.transaction.Status;
import javax.transaction.SystemException;
import javax.transaction.TransactionManager;
import javax.transaction.xa.XAResource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The {@link FlowContext} of one instance thread, reset for each message: propagation along the definition's
 * wires (synchronous, depth first), label jumps, sends on the instance's transacted or plain session, the
 * connections to data sources (the instance's {@link DatabaseWork}), and the per-node statistics. Confined to its instance's thread.
 *
 * <p>A coordinated invocation ({@link XaCoordination}) runs in a transaction of the flow host's transaction manager,
 * begun before the message is read ({@link #begin}), with the instance's XA session and the XA data sources'
 * connections enlisted: the manager commits them together (two-phase when the database took part) or rolls them
 * back together. Its transactional sends to an {@code xa: true} JMS provider go on an XA session of that provider,
 * enlisted at the first send of each transaction, and so commit with them; a reader of such a provider begins the
 * transaction with the provider's session, and enlists Wharf's at the first send to Wharf ({@link #joinWharf}).
 */
final class Invocation implements FlowContext {

    /** Deeper than this, a loop that passed validation (through a loop guard) is taken not to end. */
    static final int MAX_DEPTH = 1000;

    private final RunningFlow flow;
    private final FlowDefinition definition;
    private final FlowStatistics statistics;
    private final Session transacted;
    private final Session plain;
    private final MessageProducer transactedProducer;
    private final MessageProducer plainProducer;
    private final DatabaseWork database;
    /** The transaction manager of a coordinated instance, or null. */
    private final TransactionManager coordinator;
    /** The resource of Wharf's XA session ({@code transacted}) of a coordinated instance, or null. */
    private final XAResource wharfResource;
    /** Whether {@link #wharfResource} is enlisted in the transaction on the thread. */
    private boolean wharfEnlisted;
    private final Map<String, Destination> queues = new HashMap<>();
    private final Map<String, Destination> topics = new HashMap<>();
    /** The connections to other JMS providers of this invocation's JMSOutput nodes, by provider, opened on first use. */
    private final Map<String, ProviderLink> links = new HashMap<>();
    /** A provider whose connection failed with sends of this transaction on it (they are gone), or null. */
    private String lostProvider;
    /**
     * The transactional JMSInput's link to the provider this invocation's message came from, or null: sends to that
     * provider go on its transacted session, and its reader commits them with the get ({@link #readingFrom}).
     */
    private ProviderLink inputLink;
    /** A transactional invocation's FileOutput records, written when it commits ({@link #write}), in order. */
    private final List<byte[]> fileRecords = new ArrayList<>();
    /** The FileOutput node of each of {@link #fileRecords}, at the same index. */
    private final List<FileOutputNode> fileWriters = new ArrayList<>();
    private boolean transactional;
    private boolean transactedWork;
    private HttpExchange exchange;
    /** Requests of other invocations this one answers when it commits (HTTPReply by identifier), with their replies. */
    private final Map<HttpExchange, HttpExchange.Reply> laterReplies = new HashMap<>();
    /** Whether the sends of this invocation are its HTTP caller's (HTTPInput runAs CALLER): asked before each. */
    private boolean asCaller;
    private boolean timing;
    private int depth;
    private long childElapsed;
    private long childCpu;

    Invocation(RunningFlow flow, Session transacted, Session plain, DatabaseWork database) throws JMSException {
        this(flow, transacted, plain, database, null, null);
    }

    /**
     * @param coordinator   the transaction manager of a coordinated instance ({@code transacted} is its XA session)
     * @param wharfResource the resource of that XA session, as the instance enlists it
     */
    Invocation(RunningFlow flow, Session transacted, Session plain, DatabaseWork database,
               TransactionManager coordinator, XAResource wharfResource) throws JMSException {
        this.flow = flow;
        this.coordinator = coordinator;
        this.wharfResource = wharfResource;
        this.definition = flow.definition();
        this.statistics = flow.statistics();
        this.transacted = transacted;
        this.plain = plain;
        this.transactedProducer = transacted.createProducer(null);
        this.plainProducer = plain.createProducer(null);
        this.database = database;
    }

    /** Prepares for the next message. */
    void reset(boolean transactionalInvocation) {
        this.transactional = transactionalInvocation;
        this.transactedWork = false;
        this.lostProvider = null;
        this.inputLink = null;
        this.exchange = null;
        this.asCaller = false;
        this.laterReplies.clear();
        forgetFileRecords();
        this.timing = statistics.timing();
        this.depth = 0;
        this.childElapsed = 0;
        this.childCpu = 0;
    }

    /**
     * Makes the invocation's message one its reader took from another provider in the transacted session of
     * {@code link} (after {@link #reset}): this invocation's transactional sends to that provider go on the same
     * session, so the reader's one commit takes the message off the provider and makes the sends visible together,
     * after {@link #commit()}; that commit and its rollback are the reader's. Wharf's session then commits only what
     * was sent on it: it holds no get.
     */
    void readingFrom(ProviderLink link) {
        this.inputLink = link;
    }

    /**
     * Makes {@code request} the HTTP request this invocation answers (after {@link #reset}).
     *
     * @param asCaller whether its sends are the caller's: each is refused, before it is made, when the caller may not
     *                 make it (an anonymous caller: any), and the refusal recorded on the request
     */
    void answering(HttpExchange request, boolean asCaller) {
        this.exchange = request;
        this.asCaller = asCaller;
    }

    /** Refuses a send the HTTP caller may not make: recorded on the request (its answer is a 403), and thrown. */
    private void checkCaller(Destination destination) throws JMSException {
        if (destination instanceof TemporaryQueue || destination instanceof TemporaryTopic) {
            return; // a connection's own (a JMSReplyTo): the queue manager decides who may send to it
        }
        boolean topic = destination instanceof Topic;
        String name = topic ? ((Topic) destination).getTopicName() : ((Queue) destination).getQueueName();
        HttpCaller caller = exchange.caller();
        String why = caller != null ? caller.refusal(name, topic)
                : "An anonymous HTTP caller may not " + (topic ? "publish to topic '" : "send to queue '") + name
                + "' through flow '" + definition.name() + "': its HTTPInput node sends as the caller (runAs CALLER)"
                + " and an anonymous caller has no permissions to send with. Call as a user with the '"
                + (topic ? "publish" : "send") + "' permission on it, or give the node runAs(FLOW) when the flow "
                + "decides itself what its callers may do.";
        if (why != null) {
            exchange.refuse(why);
            throw new JMSSecurityException(why);
        }
    }

    /** Whether something was sent on the transacted session (to commit or roll back). */
    boolean transactedWork() {
        return transactedWork;
    }

    /**
     * Begins a coordinated invocation's transaction and enlists the session it reads with in it (Wharf's XA session,
     * or an {@code xa: true} provider's), before the message is read (what the session consumes in it is settled by
     * it). A transaction left on the thread by a failure that ended no invocation is rolled back first.
     */
    void begin(XAResource session) throws JMSException {
        try {
            if (coordinator.getStatus() != Status.STATUS_NO_TRANSACTION) {
                abandon();
            }
            ended();
            coordinator.begin();
            statistics.xaTransactions.increment();
        } catch (NotSupportedException | SystemException | RuntimeException e) {
            throw jmsException("cannot begin its transaction", e);
        }
        enlist(session);
        wharfEnlisted = session == wharfResource;
    }

    /** Enlists a resource in the transaction on the thread. */
    private void enlist(XAResource resource) throws JMSException {
        try {
            if (!coordinator.getTransaction().enlistResource(resource)) {
                throw new JMSException("Flow '" + definition.name() + "': the transaction manager refused to enlist "
                        + resource + " in the invocation's transaction");
            }
        } catch (SystemException | RollbackException | RuntimeException e) {
            throw jmsException("cannot enlist " + resource + " in its transaction", e);
        }
    }

    /**
     * Enlists Wharf's XA session in a coordinated invocation's transaction, if it is not yet (an invocation that read
     * from another provider's XA session, before its first transactional send to Wharf).
     */
    void joinWharf() throws JMSException {
        if (!wharfEnlisted) {
            enlist(wharfResource);
            wharfEnlisted = true;
        }
    }

    /** Forgets the resources of the transaction that ended: the next enlists them again. */
    private void ended() {
        wharfEnlisted = false;
        for (ProviderLink link : links.values()) {
            if (link.xa()) {
                link.transactedWork = false;
            }
        }
        if (inputLink != null && inputLink.xa()) {
            inputLink.transactedWork = false;
        }
    }

    /**
     * Rolls back the transaction a failure left on the thread (its connection lost, say: the resources that cannot
     * be reached roll back by themselves) and frees the thread of it whatever happens.
     */
    private void abandon() throws SystemException {
        try {
            coordinator.rollback();
        } catch (SystemException | RuntimeException e) {
            System.getLogger(Invocation.class.getName()).log(System.Logger.Level.DEBUG, "Flow '" + definition.name()
                    + "': rolling back a transaction left by a failure: " + e);
        }
        if (coordinator.getStatus() != Status.STATUS_NO_TRANSACTION) {
            coordinator.suspend();
        }
    }

    /**
     * Ends an invocation that succeeded: its FileOutput records are written and forced to disk first ({@link #write}),
     * then its database
     * work commits, then its sends to other JMS providers (JMSOutput nodes; not those on the input's own session,
     * {@link #readingFrom}, which its reader commits after this), then the message's transaction on Wharf (when it
     * holds the get, or sends). A failure between them (a crash, a refused commit) leaves what committed done and the
     * message or record processed again (a duplicate, never a loss). A coordinated invocation writes its records and
     * commits its sends to other providers first, then its transaction, in which the transaction manager commits the
     * database work and the message's transaction together.
     *
     * @throws TransactionRolledBackException the transaction manager rolled a coordinated invocation back at its commit
     */
    void commit() throws SQLException, JMSException {
        if (lostProvider != null) {
            throw new JMSException("Flow '" + definition.name() + "': the connection to JMS provider '" + lostProvider
                    + "' failed after this transaction had sent to it; those sends are gone, so the transaction rolls"
                    + " back and its message is processed again.");
        }
        writeFileRecords();
        database.commit();
        for (ProviderLink link : links.values()) {
            if (link.transactedWork && !link.xa()) {
                link.commit();
            }
        }
        if (coordinator != null) {
            commitCoordinated();
        } else if (wharfWork()) {
            transacted.commit();
        }
        answerLater();
    }

    /**
     * Appends the invocation's FileOutput records to their files and forces them to disk (each node once, after its
     * last record: {@link FileOutputNode#force}), first of its commits: a write or force that fails (a full disk)
     * rolls the whole invocation back, its database work and messages with it, and leaves in the file only the
     * records written before it (which its retry writes again).
     */
    private void writeFileRecords() {
        try {
            for (int i = 0; i < fileRecords.size(); i++) {
                FileOutputNode writer = fileWriters.get(i);
                try {
                    long ticket = writer.append(fileRecords.get(i));
                    if (fileWriters.lastIndexOf(writer) == i) {
                        writer.force(ticket);
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException(fileWriters.get(i) + " in flow '" + definition.name()
                            + "' could not write a record to " + fileWriters.get(i).directory() + " as the invocation"
                            + " committed, so it rolls back: " + e, e);
                }
            }
        } finally {
            forgetFileRecords();
        }
    }

    private void forgetFileRecords() {
        if (!fileRecords.isEmpty()) {
            fileRecords.clear();
            fileWriters.clear();
        }
    }

    /** Sends the replies this invocation gave to other invocations' requests, now that it committed. */
    private void answerLater() {
        laterReplies.forEach((request, reply) -> {
            if (!request.answer().complete(reply)) {
                System.getLogger(Invocation.class.getName()).log(System.Logger.Level.WARNING, "Flow '"
                        + definition.name() + "': the HTTP request " + request.id() + " (" + request.method() + " "
                        + request.path() + ") was answered before this invocation committed (status "
                        + request.answer().join().status() + "): its reply (status " + reply.status() + ") is dropped.");
            }
        });
        laterReplies.clear();
    }

    /** Commits the transacted session alone (or the coordinated transaction): a message moved as it is. */
    void commitMessage() throws JMSException {
        if (coordinator != null) {
            commitCoordinated();
        } else {
            transacted.commit();
        }
    }

    private void commitCoordinated() throws JMSException {
        ended();
        try {
            coordinator.commit();
        } catch (RollbackException e) {
            TransactionRolledBackException rolledBack = new TransactionRolledBackException("Flow '" + definition.name()
                    + "': the transaction manager rolled the invocation back at its commit (" + e.getMessage() + ")");
            rolledBack.initCause(e);
            throw rolledBack;
        } catch (HeuristicMixedException | HeuristicRollbackException | SystemException | RuntimeException e) {
            throw jmsException("cannot commit its transaction", e);
        }
    }

    /**
     * Ends an invocation that failed: its database work, its sends to other providers and its message roll back (a
     * coordinated invocation's database work and message with its transaction).
     */
    void rollback() throws JMSException {
        laterReplies.clear();
        forgetFileRecords();
        database.rollback();
        for (Iterator<ProviderLink> i = links.values().iterator(); i.hasNext(); ) {
            ProviderLink link = i.next();
            if (link.transactedWork && !link.xa()) {
                try {
                    link.rollback();
                } catch (JMSException | RuntimeException e) { // a broken connection: its transaction is gone with it
                    link.close();
                    i.remove();
                }
            }
        }
        if (coordinator != null) {
            ended();
            try {
                if (coordinator.getStatus() != Status.STATUS_NO_TRANSACTION) {
                    coordinator.rollback();
                }
            } catch (SystemException | RuntimeException e) {
                throw jmsException("cannot roll back its transaction", e);
            }
        } else if (wharfWork()) {
            transacted.rollback();
        }
    }

    /**
     * Whether Wharf's transacted session has work to end: what was sent on it, and the get when the input came from
     * Wharf (a transactional invocation whose input is not another provider's).
     */
    private boolean wharfWork() {
        return transactedWork || (transactional && inputLink == null);
    }

    private JMSException jmsException(String what, Exception cause) {
        JMSException failure = new JMSException("Flow '" + definition.name() + "' " + what + ": " + cause);
        failure.setLinkedException(cause);
        failure.initCause(cause);
        return failure;
    }

    /** Gives the invocation's database connections back (rolled back: nothing is left after a commit). */
    void release() {
        database.rollback();
    }

    /** Closes the connections to other providers (what they had not committed rolls back). */
    void close() {
        links.values().forEach(ProviderLink::close);
        links.clear();
    }

    /** Runs {@code node} on an assembly: the entry point of an invocation (the input node, or a backout path). */
    void run(Node node, String terminal, MessageAssembly assembly) throws FlowException {
        assembly.freeze();
        deliver(node, terminal, assembly);
    }

    /** Propagates from {@code node} without running it: the input node's failure terminal. */
    void runFrom(Node node, String terminal, MessageAssembly assembly) throws FlowException {
        propagate(node, terminal, assembly);
    }

    @Override
    public void propagate(Node from, String terminal, MessageAssembly assembly) throws FlowException {
        List<FlowDefinition.Target> targets = definition.targets(from, terminal);
        assembly.freeze();
        for (int i = 0; i < targets.size(); i++) {
            FlowDefinition.Target target = targets.get(i);
            deliver(target.node(), target.terminal(), assembly);
        }
    }

    @Override
    public boolean isWired(Node from, String terminal) {
        return !definition.targets(from, terminal).isEmpty();
    }

    @Override
    public boolean jumpToLabel(String label, MessageAssembly assembly) throws FlowException {
        LabelNode node = definition.label(label);
        if (node == null) {
            return false;
        }
        assembly.freeze();
        deliver(node, "in", assembly);
        return true;
    }

    private void deliver(Node node, String terminal, MessageAssembly assembly) throws FlowException {
        NodeStatistics stats = statistics.of(node);
        if (++depth > MAX_DEPTH) {
            depth--;
            IllegalStateException loop = new IllegalStateException("Flow '" + definition.name() + "' propagated deeper "
                    + "than " + MAX_DEPTH + " nodes at " + node + ": a loop does not end.");
            throw new FlowException(loop.getMessage(), ExceptionList.of(node, loop), loop);
        }
        long outerElapsed = childElapsed;
        long outerCpu = childCpu;
        long startElapsed = 0;
        long startCpu = 0;
        if (timing) {
            childElapsed = 0;
            childCpu = 0;
            startElapsed = System.nanoTime();
            startCpu = CpuClock.now();
        }
        try {
            stats.invocations.increment();
            node.receive(terminal, assembly, this);
        } catch (FlowException e) {
            stats.failures.increment();
            if (e.exceptionList().isEmpty()) { // raised by the node itself (Throw): say where
                throw new FlowException(e.getMessage(), assembly.exceptionList().with(node, e), e);
            }
            throw e;
        } catch (Exception | LinkageError | AssertionError e) {
            stats.failures.increment();
            throw new FlowException(node + " in flow '" + definition.name() + "' failed: " + e,
                    assembly.exceptionList().with(node, e), e);
        } catch (StackOverflowError e) {
            // a message nested deeper than the node's recursion goes (a DOM copy, an XSLT 3.0 shallow-copy mode):
            // the message fails, not the instance's thread, which would otherwise end and leave the flow without it
            stats.failures.increment();
            StackOverflowError named = new StackOverflowError("the message is nested too deeply for this node to "
                    + "process (its stack ran out)");
            named.initCause(e);
            throw new FlowException(node + " in flow '" + definition.name() + "' failed: " + named,
                    assembly.exceptionList().with(node, named), named);
        } finally {
            depth--;
            if (timing) {
                long elapsed = System.nanoTime() - startElapsed;
                long cpu = CpuClock.now() - startCpu;
                stats.elapsedNanos.add(elapsed - childElapsed);
                stats.cpuNanos.add(cpu - childCpu);
                childElapsed = outerElapsed + elapsed;
                childCpu = outerCpu + cpu;
            }
        }
    }

    @Override
    public String flowName() {
        return definition.name();
    }

    @Override
    public boolean transactional() {
        return transactional;
    }

    @Override
    public Destination queue(String name) throws JMSException {
        Destination queue = queues.get(name);
        if (queue == null) {
            queue = plain.createQueue(name);
            queues.put(name, queue);
        }
        return queue;
    }

    @Override
    public Destination topic(String name) throws JMSException {
        Destination topic = topics.get(name);
        if (topic == null) {
            topic = plain.createTopic(name);
            topics.put(name, topic);
        }
        return topic;
    }

    @Override
    public void send(MessageAssembly assembly, Destination destination, TransactionMode mode) throws JMSException {
        if (asCaller) {
            checkCaller(destination);
        }
        boolean inTransaction = mode == TransactionMode.YES || (mode == TransactionMode.AUTOMATIC && transactional);
        if (inTransaction && coordinator != null) {
            joinWharf();
        }
        Session session = inTransaction ? transacted : plain;
        FlowMessage message = assembly.message();
        Message jms = JmsMessages.write(session, message, flow.bodies());
        if (inTransaction) {
            transactedWork = true;
        }
        (inTransaction ? transactedProducer : plainProducer).send(destination, jms,
                message.isPersistent() ? DeliveryMode.PERSISTENT : DeliveryMode.NON_PERSISTENT,
                JmsMessages.priority(message), JmsMessages.timeToLive(message));
    }

    @Override
    public void sendTo(String provider, String destination, MessageAssembly assembly, TransactionMode mode)
            throws JMSException {
        boolean inTransaction = mode == TransactionMode.YES || (mode == TransactionMode.AUTOMATIC && transactional);
        if (inTransaction && inputLink != null && inputLink.provider().name().equals(provider)) {
            sendWithInput(destination, assembly);
            return;
        }
        ProviderLink link = links.get(provider);
        if (link == null) {
            JmsProvider configured = flow.jmsProviders().get(provider);
            if (configured == null) {
                throw new IllegalArgumentException(RunningFlow.unknownProvider(definition.name(), provider,
                        flow.jmsProviders()));
            }
            link = ProviderLink.open(configured, coordinator != null && configured.xa());
            links.put(provider, link);
        }
        try {
            link.checkAlive();
            if (inTransaction && link.xa() && !link.transactedWork) {
                enlist(link.xaResource); // its transacted work is this transaction's from here on
            }
            link.send(destination, assembly.message(), inTransaction);
        } catch (JMSException | RuntimeException e) {
            // the connection may be broken: the next send opens a new one (closing rolls back what it had not
            // committed, so a transaction that had sent on it cannot commit)
            if (link.transactedWork) {
                lostProvider = provider;
            }
            link.close();
            links.remove(provider);
            throw e;
        }
    }

    /**
     * A transactional send to the provider the message came from, on its reader's session ({@link #readingFrom}). A
     * failed send leaves the connection to the reader, which learns of a broken one at its commit; when earlier sends
     * of this transaction were on it, they may be gone, so the invocation cannot commit.
     */
    private void sendWithInput(String destination, MessageAssembly assembly) throws JMSException {
        boolean earlierSends = inputLink.transactedWork;
        try {
            inputLink.checkAlive();
            inputLink.send(destination, assembly.message(), true);
        } catch (JMSException | RuntimeException e) {
            if (earlierSends) {
                lostProvider = inputLink.provider().name();
            }
            throw e;
        }
    }

    @Override
    public Connection connection(String name) throws SQLException {
        return database.connection(name);
    }

    @Override
    public PreparedStatement statement(String name, String sql) throws SQLException {
        return database.statement(name, sql);
    }

    @Override
    public CallableStatement call(String name, String sql) throws SQLException {
        return database.call(name, sql);
    }

    @Override
    public void databaseFailed(String name, SQLException cause) {
        database.failed(name, cause);
    }

    @Override
    public void write(FileOutputNode file, byte[] record) throws IOException {
        if (transactional) {
            fileRecords.add(record);
            fileWriters.add(file);
        } else {
            file.append(record);
        }
    }

    @Override
    public HttpExchange httpExchange() {
        return exchange;
    }

    @Override
    public boolean replyTo(String requestId, HttpExchange.Reply reply) {
        HttpExchange request = flow.httpRequests().waiting(requestId);
        if (request == null) {
            return false;
        }
        if (laterReplies.putIfAbsent(request, reply) != null) {
            throw new IllegalStateException("HTTP request " + requestId + " has a reply from this invocation already: "
                    + "one HTTPReply per request.");
        }
        return true;
    }

    @Override
    public boolean traceEnabled() {
        return flow.traceEnabled();
    }
}
