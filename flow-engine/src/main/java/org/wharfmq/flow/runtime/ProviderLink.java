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
import javax.naming.Context;
import javax.naming.InitialContext;
import javax.naming.NamingException;
import java.util.HashMap;
import java.util.Map;

/**
 * One reader's connection to another JMS provider ({@link JmsProvider}): the connection from the JNDI connection
 * factory, a transacted session (the transactional gets and sends) and a plain one, and the destinations looked up in
 * JNDI. A failure the provider reports on the connection (its exception listener) makes the next
 * {@link #checkAlive()} throw, so the reader opens a new link. Confined to its reader's thread, but the provider's
 * thread that reports a failure.
 */
final class ProviderLink implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(ProviderLink.class.getName());

    private final JmsProvider provider;
    private final Context context;
    private final Connection connection;
    final Session transacted;
    final Session plain;
    private final MessageProducer transactedProducer;
    private final MessageProducer plainProducer;
    private final Map<String, Destination> destinations = new HashMap<>();
    private volatile JMSException broken;
    /** Whether something was sent on the transacted session since its last commit or rollback. */
    boolean transactedWork;

    private ProviderLink(JmsProvider provider, Context context, Connection connection) throws JMSException {
        this.provider = provider;
        this.context = context;
        this.connection = connection;
        connection.setExceptionListener(e -> {
            LOG.log(System.Logger.Level.WARNING, provider.describe() + " reported a failure of its connection: " + e);
            broken = e;
        });
        this.transacted = connection.createSession(true, Session.SESSION_TRANSACTED);
        this.plain = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        this.transactedProducer = transacted.createProducer(null);
        this.plainProducer = plain.createProducer(null);
    }

    /**
     * Looks the connection factory up and connects (the connection is not started).
     *
     * @throws JMSException naming the provider, its URL and what failed (the look-up or the connection)
     */
    static ProviderLink open(JmsProvider provider) throws JMSException {
        Context context;
        ConnectionFactory factory;
        try {
            context = new InitialContext(provider.environment());
        } catch (NamingException | RuntimeException e) {
            throw failure("Cannot make the JNDI context of " + provider.describe() + " (jmsProviders: "
                    + provider.name() + ": jndi:): " + e + ". Check java.naming.factory.initial and that the "
                    + "provider's client jars are on the server's class path.", e);
        }
        try {
            Object found = context.lookup(provider.connectionFactory());
            if (!(found instanceof ConnectionFactory f)) {
                throw new NamingException("'" + provider.connectionFactory() + "' is a "
                        + (found == null ? "null" : found.getClass().getName()) + ", not a javax.jms.ConnectionFactory");
            }
            factory = f;
        } catch (NamingException | RuntimeException e) {
            closeQuietly(context);
            throw failure("Cannot look up connection factory '" + provider.connectionFactory() + "' of "
                    + provider.describe() + ": " + e + ". Check its connectionFactory and jndi: settings.", e);
        }
        Connection connection = null;
        try {
            connection = provider.user() == null ? factory.createConnection()
                    : factory.createConnection(provider.user(), provider.password());
            return new ProviderLink(provider, context, connection);
        } catch (JMSException | RuntimeException e) {
            InputReader.closeQuietly(connection);
            closeQuietly(context);
            throw failure("Cannot connect to " + provider.describe() + ": " + e, e);
        }
    }

    private static JMSException failure(String message, Exception cause) {
        JMSException failure = new JMSException(message);
        failure.initCause(cause);
        failure.setLinkedException(cause);
        return failure;
    }

    /** The provider's destination of this JNDI name (looked up once). */
    Destination destination(String jndiName) throws JMSException {
        Destination destination = destinations.get(jndiName);
        if (destination == null) {
            try {
                Object found = context.lookup(jndiName);
                if (!(found instanceof Destination d)) {
                    throw new NamingException("'" + jndiName + "' is a " + (found == null ? "null"
                            : found.getClass().getName()) + ", not a javax.jms.Destination");
                }
                destination = d;
            } catch (NamingException e) {
                throw failure("Cannot look up destination '" + jndiName + "' of " + provider.describe() + ": " + e
                        + ". Add it to the provider's JNDI (for example queue." + jndiName + "=NAME in its jndi: "
                        + "settings).", e);
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
            throw failure("The connection to " + provider.describe() + " failed: " + failure, failure);
        }
    }

    /** Sends a flow message (without its reply-to, a destination of another provider) in the transaction or at once. */
    void send(String destination, FlowMessage message, boolean inTransaction) throws JMSException {
        Session session = inTransaction ? transacted : plain;
        Message jms = JmsMessages.write(session, message, false, JmsBodies.COPYING);
        if (inTransaction) {
            transactedWork = true;
        }
        (inTransaction ? transactedProducer : plainProducer).send(destination(destination), jms,
                message.isPersistent() ? DeliveryMode.PERSISTENT : DeliveryMode.NON_PERSISTENT,
                JmsMessages.priority(message), JmsMessages.timeToLive(message));
    }

    /** Commits the transacted session. */
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

    private static void closeQuietly(Context context) {
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
