package org.wharfmq.flow.runtime;

import javax.jms.ConnectionFactory;
import javax.jms.JMSException;
import javax.jms.XAConnectionFactory;
import javax.naming.Context;
import javax.naming.InitialContext;
import javax.naming.NamingException;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;

/**
 * Another JMS provider a flow's JMSInput and JMSOutput nodes use (setting {@code jmsProviders:}; docs/flows.md,
 * "Other JMS providers"): the JNDI environment that finds its connection factory and destinations (what a
 * {@code jndi.properties} file would say: the initial context factory, the provider URL, and whatever else the
 * provider's JNDI reads), the JNDI name of the connection factory, the user to connect as, and whether its
 * connection factory takes part in the flows' XA transactions ({@code xa}). The provider's client jars must be on the
 * server's class path.
 *
 * @param name              the name nodes give ({@code JmsInputNode.from(name, ...)})
 * @param jndi              the JNDI environment ({@code java.naming.factory.initial}, {@code java.naming.provider.url},
 *                          ...)
 * @param connectionFactory the JNDI name of the connection factory
 * @param user              the user to connect as, or null: the connection factory's default
 * @param password          the password of {@code user}; never shown by {@link #toString()}
 * @param xa                whether a coordinated flow's transactional gets and sends on it join the flow's XA
 *                          transaction (docs/flows.md, "Coordinated transactions"): its connection factory must be a
 *                          {@link XAConnectionFactory}
 */
public record JmsProvider(String name, Map<String, String> jndi, String connectionFactory, String user,
                          String password, boolean xa) {

    /** The JNDI name of the connection factory when none is given: {@value} (Artemis's and ActiveMQ Classic's). */
    public static final String DEFAULT_CONNECTION_FACTORY = "ConnectionFactory";

    /** Copies the environment; checks that the name, the environment and the connection factory's name are given. */
    public JmsProvider {
        Objects.requireNonNull(name, "name");
        jndi = Map.copyOf(jndi);
        if (connectionFactory == null || connectionFactory.isBlank()) {
            connectionFactory = DEFAULT_CONNECTION_FACTORY;
        }
    }

    /** A provider whose sends and gets commit in transactions of its own (not XA). */
    public JmsProvider(String name, Map<String, String> jndi, String connectionFactory, String user, String password) {
        this(name, jndi, connectionFactory, user, password, false);
    }

    /** This provider, taking part in the flows' XA transactions or not. */
    public JmsProvider withXa(boolean takesPart) {
        return new JmsProvider(name, jndi, connectionFactory, user, password, takesPart);
    }

    /**
     * The provider URL of its JNDI environment, else the URL Artemis's JNDI binds the connection factory to
     * ({@code connectionFactory.NAME}), else a note that it has none (for messages).
     */
    public String url() {
        String url = jndi.get(Context.PROVIDER_URL);
        if (url == null) {
            url = jndi.get("connectionFactory." + connectionFactory);
        }
        return url != null ? url : "(no " + Context.PROVIDER_URL + " in its jndi:)";
    }

    /** {@code JMS provider 'NAME' at URL}, for messages. */
    public String describe() {
        return "JMS provider '" + name + "' at " + url();
    }

    /**
     * A JNDI context of its environment (the caller closes it).
     *
     * @throws JMSException naming the provider and the fix when the context cannot be made
     */
    Context context() throws JMSException {
        Properties environment = new Properties();
        environment.putAll(jndi);
        try {
            return new InitialContext(environment);
        } catch (NamingException | RuntimeException | LinkageError e) {
            // LinkageError: a class the provider's client needs is not there (a jar of its dependencies left out)
            throw failure("Cannot make the JNDI context of " + describe() + " (jmsProviders: " + name + ": jndi:): " + e
                    + ". Check java.naming.factory.initial and that the provider's client jars, with all their "
                    + "dependencies, are on the server's class path (lib/).", e);
        }
    }

    /**
     * Looks its connection factory up in {@code context}; an XA one when {@link #xa()}.
     *
     * @throws JMSException             naming the provider and the fix when the look-up fails
     * @throws IllegalArgumentException when {@link #xa()} and the factory found is not an {@link XAConnectionFactory}
     */
    ConnectionFactory factory(Context context) throws JMSException {
        requireProviderName(connectionFactory, "connection factory");
        Object found;
        try {
            found = context.lookup(connectionFactory);
        } catch (NamingException | RuntimeException | LinkageError e) {
            throw failure("Cannot look up connection factory '" + connectionFactory + "' of " + describe() + ": " + e
                    + ". Check its connectionFactory and jndi: settings.", e);
        }
        if (!(found instanceof ConnectionFactory factory)) {
            throw failure("Cannot look up connection factory '" + connectionFactory + "' of " + describe() + ": '"
                    + connectionFactory + "' is a " + (found == null ? "null" : found.getClass().getName())
                    + ", not a javax.jms.ConnectionFactory. Check its connectionFactory and jndi: settings.", null);
        }
        if (xa && !(factory instanceof XAConnectionFactory)) {
            throw new IllegalArgumentException(describe() + " has xa: true, but its connection factory '"
                    + connectionFactory + "' is a " + factory.getClass().getName() + ", not a "
                    + "javax.jms.XAConnectionFactory, so it cannot take part in the flows' XA transactions. Bind an XA "
                    + "connection factory of the provider under that JNDI name (or name one in connectionFactory:), or "
                    + "set xa: false: its gets and sends then commit on their own, with the window between the commits "
                    + "(docs/flows.md, \"Other JMS providers\").");
        }
        return factory;
    }

    /**
     * Looks its XA connection factory up in a JNDI context of its own, closed again (for the transaction manager's
     * recovery, which connects to it at each scan).
     *
     * @throws JMSException             naming the provider and the fix when the look-up fails
     * @throws IllegalArgumentException when the factory found is not an {@link XAConnectionFactory}
     */
    public XAConnectionFactory xaConnectionFactory() throws JMSException {
        Context context = context();
        try {
            return (XAConnectionFactory) withXa(true).factory(context);
        } finally {
            ProviderLink.closeQuietly(context);
        }
    }

    /**
     * Refuses a JNDI name that is a URL, before it is looked up: JNDI resolves a name with a scheme (the text before
     * its first {@code :}, when no {@code /} comes first: {@code ldap://host/...}, {@code rmi://...}, {@code dns:...})
     * through that scheme's naming system, whatever the provider's environment says, so a look-up of it would reach
     * any LDAP or RMI server the name points at, and take back what it answers (a reference, a serialized object): JNDI
     * injection. A name here is one of the provider's own context ({@code queue.NAME=...} of its {@code jndi:}
     * settings), never a URL, whoever chose it (a flow may compute it from a message).
     *
     * @throws JMSException naming the name, why and the fix
     */
    void requireProviderName(String jndiName, String what) throws JMSException {
        String scheme = urlScheme(jndiName);
        if (scheme != null) {
            throw failure("Cannot look up " + what + " '" + quoted(jndiName) + "' of " + describe() + ": it is a URL "
                    + "(scheme '" + quoted(scheme) + "'), which JNDI would resolve through that scheme's naming system "
                    + "(a server the URL names), not the provider's context, so it is never looked up. Give a name of "
                    + "the provider's own JNDI context (for example queue.NAME=QUEUE in its jndi: settings, looked up "
                    + "as NAME); a name taken from a message must never reach a look-up (docs/flows.md, \"Other JMS "
                    + "providers\").", null);
        }
    }

    /** The URL scheme JNDI sees in {@code name} ({@code InitialContext}'s rule), or null when it sees none. */
    static String urlScheme(String name) {
        int colon = name.indexOf(':');
        int slash = name.indexOf('/');
        return colon > 0 && (slash < 0 || colon < slash) ? name.substring(0, colon) : null;
    }

    /** {@code text} as a message may quote it: control characters replaced, at most 200 characters. */
    private static String quoted(String text) {
        StringBuilder out = new StringBuilder(Math.min(text.length(), 200));
        for (int i = 0; i < text.length() && i < 200; i++) {
            char c = text.charAt(i);
            out.append(Character.isISOControl(c) ? '?' : c);
        }
        return text.length() > 200 ? out + "..." : out.toString();
    }

    static JMSException failure(String message, Throwable cause) {
        JMSException failure = new JMSException(message);
        if (cause != null) {
            failure.initCause(cause);
            if (cause instanceof Exception exception) {
                failure.setLinkedException(exception);
            }
        }
        return failure;
    }

    @Override
    public String toString() { // no password, nor JNDI credentials
        Map<String, String> shown = new java.util.TreeMap<>(jndi);
        shown.replaceAll((key, value) -> key.toLowerCase(java.util.Locale.ROOT).matches(".*(credential|password).*")
                ? "***" : value);
        return "JmsProvider[name=" + name + ", jndi=" + shown + ", connectionFactory=" + connectionFactory
                + ", user=" + user + ", xa=" + xa + "]";
    }
}
