package org.wharfmq.flow.runtime;

import javax.naming.Context;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;

/**
 * Another JMS provider a flow's JMSInput and JMSOutput nodes use (setting {@code jmsProviders:}; docs/flows.md,
 * "Other JMS providers"): the JNDI environment that finds its connection factory and destinations (what a
 * {@code jndi.properties} file would say: the initial context factory, the provider URL, and whatever else the
 * provider's JNDI reads), the JNDI name of the connection factory, and the user to connect as. The provider's
 * client jars must be on the server's class path.
 *
 * @param name              the name nodes give ({@code JmsInputNode.from(name, ...)})
 * @param jndi              the JNDI environment ({@code java.naming.factory.initial}, {@code java.naming.provider.url},
 *                          ...)
 * @param connectionFactory the JNDI name of the connection factory
 * @param user              the user to connect as, or null: the connection factory's default
 * @param password          the password of {@code user}; never shown by {@link #toString()}
 */
public record JmsProvider(String name, Map<String, String> jndi, String connectionFactory, String user,
                          String password) {

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

    /** The JNDI environment as {@code InitialContext} takes it. */
    Properties environment() {
        Properties environment = new Properties();
        environment.putAll(jndi);
        return environment;
    }

    @Override
    public String toString() { // no password, nor JNDI credentials
        Map<String, String> shown = new java.util.TreeMap<>(jndi);
        shown.replaceAll((key, value) -> key.toLowerCase(java.util.Locale.ROOT).matches(".*(credential|password).*")
                ? "***" : value);
        return "JmsProvider[name=" + name + ", jndi=" + shown + ", connectionFactory=" + connectionFactory
                + ", user=" + user + "]";
    }
}
