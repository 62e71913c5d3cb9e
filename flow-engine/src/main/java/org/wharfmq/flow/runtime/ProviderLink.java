package org.wharfmq.flow.runtime;

import org.wharfmq.flow.FlowMessage;

import javax.jms.Connection;
import javax.jms.ConnectionFactory;
import javax.jms.DeliveryMode;
import javax.jms.Destination;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageProducer;
import javax.jms.Session;
import javax.jms.XAConnection;
import javax.jms.XAConnectionFactory;
import javax.jms.XASession;
import javax.naming.Context;
import javax.naming.NamingException;
import javax.transaction.xa.XAResource;
import java.util.HashMap;
import java.util.Map;

/**
 * One reader's connection to another JMS provider ({@link JmsProvider}): the connection from the JNDI connection
 * factory, a transacted session (the transactional gets and sends) and a plain one, and the destinations looked up in
 * JNDI. An XA link ({@link #open(JmsProvider, boolean)}, for a coordinated reader of an {@code xa: true} provider)
 * connects with the XA connection factory instead, its transacted session an XA session whose {@link #xaResource} the
 * invocation's transaction enlists, and which the transaction manager commits or rolls back. A failure the
 * provider reports on the connection (its exception listener) makes the next {@link #checkAlive()} throw, so the reader opens a new link. Confined to its reader's thread, but the provider's
 * thread that reports a failure.
 */
final class ProviderLink implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(ProviderLink.class.getName());

    private final JmsProvider provider;
    private final Context context;
    private final Connection connection;
    final Session transacted;
    final Session plain;
    /** The XA session's resource of an XA link, or null: its transacted session is then committed by the link. */
    final XAResource xaResource;
    private final MessageProducer transactedProducer;
    private final MessageProducer plainProducer;
    private final Map<String, Destination> destinations = new HashMap<>();
    private volatile JMSException broken;
    /**
     * Whether something was sent on the transacted session since its last commit or rollback (an XA link's: whether
     * its resource is enlisted in the invocation's transaction).
     */
    boolean transactedWork;

    private ProviderLink(JmsProvider provider, Context context, Connection connection, boolean xa)
            throws JMSException {
        this.provider = provider;
        this.context = context;
        this.connection = connection;
        connection.setExceptionListener(e -> {
            LOG.log(System.Logger.Level.WARNING, provider.describe() + " reported a failure of its connection: " + e);
            broken = e;
        });
        if (xa) {
            XASession session = ((XAConnection) connection).createXASession();
            this.transacted = session;
            this.xaResource = session.getXAResource();
        } else {
            this.transacted = connection.createSession(true, Session.SESSION_TRANSACTED);
            this.xaResource = null;
        }
        this.plain = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        this.transactedProducer = transacted.createProducer(null);
        this.plainProducer = plain.createProducer(null);
    }

    /**
     * Looks the connection factory up and connects (the connection is not started).
     *
     * @param xa whether to connect with the XA connection factory (the provider is {@code xa: true} and the reader
     *           coordinated), making an XA link
     * @throws JMSException naming the provider, its URL and what failed (the look-up, a factory that is not XA, or the
     *                      connection)
     */
    static ProviderLink open(JmsProvider provider, boolean xa) throws JMSException {
        Context context = provider.context();
        ConnectionFactory factory;
        try {
            factory = provider.withXa(xa).factory(context);
        } catch (JMSException | RuntimeException e) {
            closeQuietly(context);
            throw e instanceof JMSException jms ? jms : JmsProvider.failure(e.getMessage(), e);
        }
        Connection connection = null;
        try {
            if (xa) {
                XAConnectionFactory xaFactory = (XAConnectionFactory) factory;
                connection = provider.user() == null ? xaFactory.createXAConnection()
                        : xaFactory.createXAConnection(provider.user(), provider.password());
            } else {
                connection = provider.user() == null ? factory.createConnection()
                        : factory.createConnection(provider.user(), provider.password());
            }
            return new ProviderLink(provider, context, connection, xa);
        } catch (JMSException | RuntimeException e) {
            InputReader.closeQuietly(connection);
            closeQuietly(context);
            throw JmsProvider.failure("Cannot connect to " + provider.describe() + ": " + e, e);
        }
    }

    /**
     * The provider's destination of this JNDI name (looked up once); a name that is a URL is refused unlooked-up
     * ({@link JmsProvider#requireProviderName}).
     */
    Destination destination(String jndiName) throws JMSException {
        Destination destination = destinations.get(jndiName);
        if (destination == null) {
            provider.requireProviderName(jndiName, "destination");
            try {
                Object found = context.lookup(jndiName);
                if (!(found instanceof Destination d)) {
                    throw new NamingException("'" + jndiName + "' is a " + (found == null ? "null"
                            : found.getClass().getName()) + ", not a javax.jms.Destination");
                }
                destination = d;
            } catch (NamingException e) {
                throw JmsProvider.failure("Cannot look up destination '" + jndiName + "' of " + provider.describe()
                        + ": " + e + ". Add it to the provider's JNDI (for example queue." + jndiName
                        + "=NAME in its jndi: settings).", e);
            }
            destinations.put(jndiName, destination);
        }
        return destination;
    }

    /** Starts the connection's delivery. */
    void start() throws JMSException {
        connection.start();
    }

    /** @throws JMSException the failure the provider reported on the connection, if it did */
    void checkAlive() throws JMSException {
        JMSException failure = broken;
        if (failure != null) {
            throw JmsProvider.failure("The connection to " + provider.describe() + " failed: " + failure, failure);
        }
    }

    /** Sends a flow message (without its reply-to, a destination of another provider) in the transaction or at once. */
    void send(String destination, FlowMessage message, boolean inTransaction) throws JMSException {
        // looked up first: a name refused or not found puts nothing in the provider's transaction, so an invocation
        // that sent nothing else there may still commit (its failure path taking the refusal)
        Destination target = destination(destination);
        Session session = inTransaction ? transacted : plain;
        Message jms = JmsMessages.write(session, message, false, JmsBodies.COPYING);
        if (inTransaction) {
            transactedWork = true;
        }
        (inTransaction ? transactedProducer : plainProducer).send(target, jms,
                message.isPersistent() ? DeliveryMode.PERSISTENT : DeliveryMode.NON_PERSISTENT,
                JmsMessages.priority(message), JmsMessages.timeToLive(message));
    }

    /** Whether this is an XA link, whose transacted work the transaction manager commits. */
    boolean xa() {
        return xaResource != null;
    }

    /** Commits the transacted session (not an XA link's: the transaction manager does). */
    void commit() throws JMSException {
        transactedWork = false;
        transacted.commit();
    }

    /** Rolls the transacted session back. */
    void rollback() throws JMSException {
        transactedWork = false;
        transacted.rollback();
    }

    /** Closes the connection (which rolls back what is not committed) and the JNDI context; failures only logged. */
    @Override
    public void close() {
        InputReader.closeQuietly(connection);
        closeQuietly(context);
    }

    static void closeQuietly(Context context) {
        try {
            context.close();
        } catch (NamingException | RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "Closing a JNDI context: " + e);
        }
    }

    /** The provider. */
    JmsProvider provider() {
        return provider;
    }
}
