package org.wharfmq.perf.driver;

import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.perf.options.PerfOptions;

import javax.jms.Connection;
import javax.jms.ConnectionFactory;
import javax.jms.JMSException;
import javax.jms.Queue;
import javax.jms.Session;
import javax.jms.Topic;
import javax.naming.Context;
import javax.naming.InitialContext;
import javax.naming.NamingException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Hashtable;
import java.util.Properties;

/**
 * Where the driver gets its JMS objects: Wharf's own connection factory for {@code -pc Wharf} (the URL in
 * {@code -url}), or JNDI for any other provider ({@code -pc JNDI} with {@code -ii/-iu/-jf/-cf}). With JNDI a
 * destination name is looked up first, as JMSPerfHarness does, and created by the session when JNDI does not
 * know it. Connections authenticate as {@code -us}/{@code -pw} when given.
 */
public final class Provider implements AutoCloseable {

    private final ConnectionFactory connectionFactory;
    private final Context context;
    /** -us and -pw: null for an anonymous connection. */
    private final String user;
    private final String password;

    private Provider(ConnectionFactory connectionFactory, Context context, PerfOptions options) {
        this.connectionFactory = connectionFactory;
        this.context = context;
        this.user = options.user().isEmpty() ? null : options.user();
        this.password = options.password();
    }

    /**
     * The Wharf client's {@code connectTimeout} of the drivers (unless their {@code -url} gives its own): 60 s, as the
     * perf servers' {@code handshakeTimeoutMillis}, where the client's stock 10 s ended all eight of an RR-5 requester
     * JVM's logins at load 66 on 2 cores (docs/performance-log.md, "Session 32: handshakes under load"): a driver JVM
     * that has just started spends most of a second of CPU on its first logins, at that load more than 10 s.
     */
    public static final int CONNECT_TIMEOUT_MILLIS = 60_000;

    /** The provider the options name. */
    public static Provider open(PerfOptions options) throws NamingException, IOException {
        if (!options.usesJndi()) {
            return new Provider(new WharfConnectionFactory(withConnectTimeout(options.brokerUrl())), null, options);
        }
        Hashtable<Object, Object> env = new Hashtable<>();
        if (!options.jndiPropertiesFile().isEmpty()) {
            Properties p = new Properties();
            try (InputStream in = Files.newInputStream(Path.of(options.jndiPropertiesFile()))) {
                p.load(in);
            }
            env.putAll(p);
        }
        if (!options.jndiInitialContextFactory().isEmpty()) {
            env.put(Context.INITIAL_CONTEXT_FACTORY, options.jndiInitialContextFactory());
        }
        if (!options.jndiProviderUrl().isEmpty()) {
            env.put(Context.PROVIDER_URL, options.jndiProviderUrl());
        }
        Context context = new InitialContext(env);
        Object cf = context.lookup(options.jndiConnectionFactory());
        if (!(cf instanceof ConnectionFactory factory)) {
            throw new NamingException("JNDI name " + options.jndiConnectionFactory() + " is a "
                    + cf.getClass().getName() + ", not a javax.jms.ConnectionFactory");
        }
        return new Provider(factory, context, options);
    }

    /** {@code url} with the option {@code connectTimeout=}{@value #CONNECT_TIMEOUT_MILLIS}, unless it names its own. */
    public static String withConnectTimeout(String url) {
        int query = url.indexOf('?');
        if (query >= 0 && ("&" + url.substring(query + 1)).contains("&connectTimeout=")) {
            return url;
        }
        return url + (query < 0 ? "?" : "&") + "connectTimeout=" + CONNECT_TIMEOUT_MILLIS;
    }

    /** A connection as {@code -us}/{@code -pw} say (JMSPerfHarness's options), anonymous without {@code -us}. */
    public Connection connect() throws JMSException {
        return user == null ? connectionFactory.createConnection() : connectionFactory.createConnection(user, password);
    }

    /** The queue called {@code name}. */
    public Queue queue(Session session, String name) throws JMSException {
        Object bound = lookup(name);
        return bound instanceof Queue q ? q : session.createQueue(name);
    }

    /** The topic called {@code name}. */
    public Topic topic(Session session, String name) throws JMSException {
        Object bound = lookup(name);
        return bound instanceof Topic t ? t : session.createTopic(name);
    }

    private Object lookup(String name) {
        if (context == null) {
            return null;
        }
        try {
            return context.lookup(name);
        } catch (NamingException e) {
            return null;
        }
    }

    @Override
    public void close() throws NamingException {
        if (context != null) {
            context.close();
        }
    }
}
