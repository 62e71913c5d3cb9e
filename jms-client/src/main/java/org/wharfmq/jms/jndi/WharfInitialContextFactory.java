package org.wharfmq.jms.jndi;

import org.wharfmq.client.core.transport.ClientTls;

import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.jms.WharfQueue;
import org.wharfmq.jms.WharfTopic;
import org.wharfmq.jms.WharfXAConnectionFactory;

import javax.naming.Context;
import javax.naming.NamingException;
import javax.naming.spi.InitialContextFactory;
import java.util.HashMap;
import java.util.Hashtable;
import java.util.Map;

/**
 * A JNDI provider that needs no directory server: the names come from the environment, in the style of
 * ActiveMQ's, usually written in a {@code jndi.properties} file on the classpath (which {@code InitialContext}
 * merges into the environment):
 *
 * <pre>
 * java.naming.factory.initial = org.wharfmq.jms.jndi.WharfInitialContextFactory
 * java.naming.provider.url    = tcp://mq1:7414          (default tcp://localhost:7414)
 * connectionFactory.Orders    = tcp://mq2:7414?prefetch=100
 * xaConnectionFactory.OrdersXA = tcp://mq2:7414       (a WharfXAConnectionFactory, for a transaction manager)
 * queue.OrdersIn              = ORDERS.IN
 * topic.Prices                = PRICES
 * trustStore                  = /etc/wharf/ca.p12       (TLS options: for every factory bound here)
 * reconnectAttempts           = -1                      (reconnection options: likewise)
 * </pre>
 *
 * The TLS options of the broker URL ({@code trustStore}, {@code trustStorePassword}, {@code keyStore}, ...; see
 * {@link WharfConnectionFactory}), {@code ssl}, and the reconnection options ({@code reconnectAttempts},
 * {@code reconnectInterval}, {@code reconnectMaxInterval}), given as environment keys of the same names apply to every
 * connection factory the context binds, in place of the URLs' own.
 *
 * {@code ConnectionFactory}, {@code QueueConnectionFactory} and {@code TopicConnectionFactory} are bound to the
 * provider URL, and {@code XAConnectionFactory} to an XA factory for it, unless the environment binds those names
 * itself. {@code dynamicQueues/NAME} and
 * {@code dynamicTopics/NAME} look up a queue or topic of that physical name without declaring it.
 */
public final class WharfInitialContextFactory implements InitialContextFactory {
    /** Environment key prefix binding a connection factory: {@code connectionFactory.NAME = url}. */
    public static final String CONNECTION_FACTORY_PREFIX = "connectionFactory.";
    /** Environment key prefix binding an XA connection factory: {@code xaConnectionFactory.NAME = url}. */
    public static final String XA_CONNECTION_FACTORY_PREFIX = "xaConnectionFactory.";
    /** Environment key prefix binding a queue: {@code queue.NAME = physicalName}. */
    public static final String QUEUE_PREFIX = "queue.";
    /** Environment key prefix binding a topic: {@code topic.NAME = physicalName}. */
    public static final String TOPIC_PREFIX = "topic.";
    /** The URL used when {@code java.naming.provider.url} is not set. */
    public static final String DEFAULT_PROVIDER_URL = "tcp://localhost:7414";
    private static final String[] DEFAULT_FACTORY_NAMES = {"ConnectionFactory", "QueueConnectionFactory", "TopicConnectionFactory"};
    private static final String DEFAULT_XA_FACTORY_NAME = "XAConnectionFactory";

    /** Needed by JNDI, which instantiates the factory reflectively. */
    public WharfInitialContextFactory() {
    }

    @Override
    public Context getInitialContext(Hashtable<?, ?> environment) throws NamingException {
        Hashtable<Object, Object> env = new Hashtable<>();
        if (environment != null) {
            env.putAll(environment);
        }
        Object provider = env.get(Context.PROVIDER_URL);
        String providerUrl = provider == null || provider.toString().isBlank() ? DEFAULT_PROVIDER_URL : provider.toString().trim();
        Map<String, Object> bindings = new HashMap<>();
        try {
            Map<String, String> settings = new HashMap<>();
            for (Map.Entry<Object, Object> e : env.entrySet()) {
                String key = String.valueOf(e.getKey());
                if (ClientTls.OPTIONS.contains(key) || key.equals("ssl") || WharfConnectionFactory.RECONNECT_OPTIONS.contains(key)) {
                    settings.put(key, String.valueOf(e.getValue()).trim());
                }
            }
            for (String name : DEFAULT_FACTORY_NAMES) {
                bindings.put(name, factory(new WharfConnectionFactory(providerUrl), settings));
            }
            bindings.put(DEFAULT_XA_FACTORY_NAME, factory(new WharfXAConnectionFactory(providerUrl), settings));
            for (Map.Entry<Object, Object> e : env.entrySet()) {
                String key = String.valueOf(e.getKey());
                String value = String.valueOf(e.getValue()).trim();
                if (key.startsWith(CONNECTION_FACTORY_PREFIX)) {
                    bindings.put(bindingName(key, CONNECTION_FACTORY_PREFIX),
                            factory(new WharfConnectionFactory(value.isEmpty() ? providerUrl : value), settings));
                } else if (key.startsWith(XA_CONNECTION_FACTORY_PREFIX)) {
                    bindings.put(bindingName(key, XA_CONNECTION_FACTORY_PREFIX),
                            factory(new WharfXAConnectionFactory(value.isEmpty() ? providerUrl : value), settings));
                } else if (key.startsWith(QUEUE_PREFIX)) {
                    bindings.put(bindingName(key, QUEUE_PREFIX), new WharfQueue(physicalName(key, value)));
                } else if (key.startsWith(TOPIC_PREFIX)) {
                    bindings.put(bindingName(key, TOPIC_PREFIX), new WharfTopic(physicalName(key, value)));
                }
            }
        } catch (IllegalArgumentException e) {
            NamingException ne = new NamingException(e.getMessage());
            ne.setRootCause(e);
            throw ne;
        }
        return new ReadOnlyContext(env, bindings);
    }

    private static WharfConnectionFactory factory(WharfConnectionFactory factory, Map<String, String> settings) {
        settings.forEach(factory::setOption);
        return factory;
    }

    private static String bindingName(String key, String prefix) throws NamingException {
        String name = key.substring(prefix.length()).trim();
        if (name.isEmpty()) {
            throw new NamingException("JNDI environment key '" + key + "' names no object");
        }
        return name;
    }

    private static String physicalName(String key, String value) throws NamingException {
        if (value.isEmpty()) {
            throw new NamingException("JNDI environment key '" + key + "' has an empty physical name");
        }
        return value;
    }
}
