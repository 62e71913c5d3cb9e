package org.wharfmq.flow.runtime;

import javax.jms.Connection;
import javax.jms.ConnectionFactory;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageProducer;
import javax.jms.Session;
import javax.jms.XAConnection;
import javax.jms.XASession;
import javax.transaction.xa.XAResource;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;

/**
 * The thread of one reader of a flow's input (a queue or topic, a directory, another JMS provider): it opens its
 * connections, does its work until the flow stops, and after a failure (a connection dropped, a directory that
 * cannot be read) closes everything and opens again, waiting {@link FlowConfiguration#FIRST_RETRY_MILLIS} and then
 * twice as long after each failed attempt, up to {@link FlowConfiguration#MAX_RETRY_MILLIS}. What was in progress
 * was rolled back (or, for a non-transactional reader, is as far as it got). Each reader has its own connection to
 * Wharf with a transacted and a plain session, and the {@link Invocation} over them that commits or rolls back an
 * invocation's work; the plain session's sends go its host's way ({@link PlainSends}: in the flow host, put inside
 * the queue manager by the reader's thread). A coordinated reader ({@link XaCoordination}) connects with an XA connection instead, its
 * transacted session an XA session whose resource {@link #xaSession} each invocation's transaction enlists. All its
 * state is confined to its thread.
 */
abstract class InputReader implements Runnable {

    private static final System.Logger LOG = System.getLogger(InputReader.class.getName());

    final RunningFlow flow;
    final DatabaseWork database;
    private final ConnectionFactory connectionFactory;
    /** The transaction manager and XA factory of a coordinated reader, or null. */
    final XaCoordination coordination;
    private final CompletableFuture<Void> opened = new CompletableFuture<>();
    private final CompletableFuture<Void> finished = new CompletableFuture<>();
    private Connection connection;
    /** The session of the reader's transactional gets and sends (Wharf's side). */
    Session transacted;
    /** The XA session's resource, enlisted in each invocation's transaction (coordinated), or null. */
    XAResource xaSession;
    /** The invocation over this reader's sessions, made again with each connection. */
    Invocation invocation;
    /** What makes the plain session's sends go the host's way ({@link PlainSends}), made again with each connection. */
    private AutoCloseable plainSends;

    /** @param transactional whether the reader's invocations run in a transaction (its database work commits with it) */
    InputReader(RunningFlow flow, ConnectionFactory connectionFactory, boolean transactional) {
        this(flow, connectionFactory, transactional, null);
    }

    /** @param coordination what a coordinated reader's invocations run under, or null (then it is transactional) */
    InputReader(RunningFlow flow, ConnectionFactory connectionFactory, boolean transactional,
                XaCoordination coordination) {
        this.flow = flow;
        this.connectionFactory = connectionFactory;
        this.coordination = coordination;
        this.database = new DatabaseWork(flow.name(), flow.dataSources(), transactional, coordination != null);
    }

    /** Completes when the reader is open (or exceptionally when it could not open and the flow must not start). */
    final CompletableFuture<Void> opened() {
        return opened;
    }

    /** Completes when the thread has stopped and closed its connections. */
    final CompletableFuture<Void> finished() {
        return finished;
    }

    /** What the reader reads, for the log: e.g. the input node and its queue. */
    abstract String describe();

    /** Work before the first {@link #open()} whose failure stops the flow from starting (e.g. making folders). */
    void prepare() throws IOException {
    }

    /**
     * Whether a failure of the first {@link #open()} stops the flow from starting (the deployer hears why), or the
     * flow starts and the reader keeps trying (a peer that may come later).
     */
    boolean startFailsWithoutConnection() {
        return true;
    }

    /** Opens the reader's connections ({@link #openWharf(boolean)} and whatever else it reads from). */
    abstract void open() throws JMSException;

    /** Reads and processes until the flow stops (or one round of it: it is called again while the flow runs). */
    abstract void work() throws IOException, JMSException;

    /**
     * Opens the connection to Wharf, its transacted and plain sessions and the invocation over them.
     *
     * @param start whether to start the connection first (before a consumer is made on it)
     * @return the plain session
     */
    final Session openWharf(boolean start) throws JMSException {
        if (coordination != null) {
            return openWharfCoordinated(start);
        }
        connection = connectionFactory.createConnection();
        if (start) {
            connection.start();
        }
        transacted = connection.createSession(true, Session.SESSION_TRANSACTED);
        Session plain = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        plainSends = flow.plainSends().open(flow.name(), plain);
        invocation = new Invocation(flow, transacted, plain, database);
        return plain;
    }

    /** As {@link #openWharf(boolean)}, coordinated: an XA connection, whose XA session is the transacted one. */
    private Session openWharfCoordinated(boolean start) throws JMSException {
        XAConnection xa = coordination.connections().createXAConnection();
        connection = xa;
        if (start) {
            connection.start();
        }
        XASession session = xa.createXASession();
        transacted = session;
        xaSession = coordination.enlisting().apply(session.getXAResource());
        Session plain = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        plainSends = flow.plainSends().open(flow.name(), plain);
        invocation = new Invocation(flow, transacted, plain, database, coordination.transactions(), xaSession);
        return plain;
    }

    /**
     * Sends a message the flow cannot read (not a text or bytes message) as it came to the dead-letter queue, on the
     * transacted session, and commits (with the get, when that was on the same session; coordinated, the
     * invocation's transaction).
     *
     * @param from where it came from, for the log
     */
    final void deadLetterAsItCame(Message message, String from, Exception cause) throws JMSException {
        deadLetter(message, message, "as it is", from, cause);
    }

    /**
     * As {@link #deadLetterAsItCame}, sending {@code sent} for {@code message} ({@code how} it goes, for the log).
     */
    final void deadLetter(Message message, Message sent, String how, String from, Exception cause)
            throws JMSException {
        LOG.log(System.Logger.Level.ERROR, "Flow '" + flow.name() + "' cannot read message " + message.getJMSMessageID()
                + from + "; moving it " + how + " to " + RunningFlow.DEAD_LETTER_QUEUE + ": " + cause);
        if (coordination != null) {
            invocation.joinWharf();
        }
        MessageProducer producer = transacted.createProducer(null);
        try {
            producer.send(invocation.queue(RunningFlow.DEAD_LETTER_QUEUE), sent);
        } finally {
            producer.close();
        }
        invocation.commitMessage();
    }

    /**
     * Ends a wait for input that the flow's stop signal does not end ({@link RunningFlow#awaitStop} does for the
     * others): called by the thread that stops the flow, once the flow no longer runs.
     */
    void stopWaiting() {
    }

    /** Closes the reader's connections, which may be broken already; overridden to close others too. */
    void closeConnections() {
        database.close();
        if (invocation != null) {
            invocation.close();
            invocation = null;
        }
        PlainSends.closeQuietly(plainSends);
        plainSends = null;
        closeQuietly(connection);
        connection = null;
        xaSession = null;
    }

    @Override
    public final void run() {
        boolean starting = true;
        long delay = FlowConfiguration.FIRST_RETRY_MILLIS;
        int attempts = 0;
        try {
            prepare();
        } catch (IOException | RuntimeException e) {
            opened.completeExceptionally(e);
            finished.complete(null);
            return;
        }
        try {
            while (flow.isRunning()) {
                try {
                    if (connection == null) {
                        open();
                        if (attempts > 0) {
                            LOG.log(System.Logger.Level.INFO, "Flow '" + flow.name() + "' " + describe()
                                    + " connected again after " + attempts + " attempt(s)");
                        }
                    }
                    if (starting) {
                        starting = false;
                        opened.complete(null);
                    }
                    long working = System.nanoTime();
                    try {
                        work();
                    } finally {
                        // the work went on a while (or ended well): the next failure is a new one, retried at once
                        if (System.nanoTime() - working > FlowConfiguration.MAX_RETRY_MILLIS * 1_000_000) {
                            attempts = 0;
                            delay = FlowConfiguration.FIRST_RETRY_MILLIS;
                        }
                    }
                    attempts = 0;
                    delay = FlowConfiguration.FIRST_RETRY_MILLIS;
                } catch (IOException | JMSException | RuntimeException e) {
                    if (starting) {
                        starting = false;
                        if (startFailsWithoutConnection()) {
                            opened.completeExceptionally(e); // the flow does not start: its deployer hears why
                            return;
                        }
                        opened.complete(null);
                    }
                    if (!flow.isRunning()) {
                        return;
                    }
                    // a transactional invocation cut off was rolled back, its input comes again
                    attempts++;
                    flow.statistics().reconnects.increment();
                    LOG.log(attempts == 1 || delay == FlowConfiguration.MAX_RETRY_MILLIS ? System.Logger.Level.WARNING
                                    : System.Logger.Level.DEBUG, "Flow '" + flow.name() + "' " + describe() + ": " + e
                                    + "; trying again in " + delay + " ms (attempt " + attempts + ")");
                    closeConnections();
                    if (flow.awaitStop(delay)) {
                        return;
                    }
                    delay = Math.min(delay * 2, FlowConfiguration.MAX_RETRY_MILLIS);
                }
            }
        } finally {
            closeConnections();
            finished.complete(null);
        }
    }

    /** Closes a connection (if any), which may be broken already: a failure is only logged. */
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
