package org.wharfmq.server.flow;

import org.wharfmq.flow.runtime.JmsProvider;
import org.wharfmq.server.config.ConfigurationException;
import org.wharfmq.server.config.SettingValues;
import org.wharfmq.server.config.Settings;

import javax.naming.Context;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The configuration's {@code jmsProviders:}: the other JMS providers the flows' JMSInput and JMSOutput nodes use, by
 * name, each with its JNDI environment (docs/flows.md, "Other JMS providers").
 *
 * <pre>
 * jmsProviders:
 *   - name: artemis
 *     connectionFactory: ConnectionFactory      # its JNDI name (default ConnectionFactory)
 *     user: app                                 # optional
 *     password: secret
 *     xa: true                                  # joins coordinated flows' XA transactions (default false)
 *     jndi:                                     # as a jndi.properties file says it
 *       java.naming.factory.initial: org.apache.activemq.artemis.jndi.ActiveMQInitialContextFactory
 *       java.naming.provider.url: tcp://peer:61616
 *       queue.orders: ORDERS
 * </pre>
 */
final class JmsProviders {

    private JmsProviders() {
    }

    /**
     * Reads the list {@code jmsProviders:} and checks it.
     *
     * @throws ConfigurationException naming the entry and the key that is unknown or wrong, and the fix
     */
    static List<JmsProvider> read(Settings file) {
        List<JmsProvider> providers = new ArrayList<>();
        Set<String> names = new HashSet<>();
        List<Settings> entries = file.sections("jmsProviders");
        for (int i = 0; i < entries.size(); i++) {
            Settings entry = entries.get(i);
            SettingValues values = SettingValues.ofEntry(entry, FlowHostConfiguration.JmsProviderEntry.class);
            Map<String, String> jndi = entry.textsByKey("jndi");
            entry.refuseUnknown();
            String name = values.get(FlowHostConfiguration.JmsProviderEntry.NAME);
            String factory = values.get(FlowHostConfiguration.JmsProviderEntry.CONNECTION_FACTORY);
            String user = values.get(FlowHostConfiguration.JmsProviderEntry.USER);
            String password = values.get(FlowHostConfiguration.JmsProviderEntry.PASSWORD);
            boolean xa = values.get(FlowHostConfiguration.JmsProviderEntry.XA);
            if (name == null || name.isBlank()) {
                throw entry.invalid("name", "JMS provider number " + (i + 1) + " needs a name, the one its flows' "
                        + "JMSInput and JMSOutput nodes use");
            }
            if (!names.add(name)) {
                throw entry.invalid("name", "JMS provider name '" + name + "' is used twice under 'jmsProviders': "
                        + "give each a name of its own");
            }
            if (!jndi.containsKey(Context.INITIAL_CONTEXT_FACTORY)) {
                throw entry.invalid("jndi", "JMS provider '" + name + "' needs its JNDI environment with at least "
                        + Context.INITIAL_CONTEXT_FACTORY + " (the provider's InitialContextFactory class), e.g. "
                        + "org.apache.activemq.artemis.jndi.ActiveMQInitialContextFactory");
            }
            if (jndi.containsValue(null)) {
                throw entry.invalid("jndi", "JMS provider '" + name + "' has an empty JNDI value; give each key a value "
                        + "or leave it out");
            }
            if (user != null && password == null) {
                throw entry.invalid("password", "JMS provider '" + name + "' names user '" + user + "'; give its "
                        + "password too");
            }
            values.named("JMS provider '" + name + "'").check();
            providers.add(new JmsProvider(name, jndi, factory, user, password, xa));
        }
        return providers;
    }

    /**
     * Checks the names are unique.
     *
     * @throws ConfigurationException naming the name used twice
     */
    static void validate(List<JmsProvider> providers) {
        Set<String> names = new HashSet<>();
        for (JmsProvider provider : providers) {
            if (!names.add(provider.name())) {
                throw new ConfigurationException("JMS provider name '" + provider.name() + "' is used twice under "
                        + "'jmsProviders': give each a name of its own.");
            }
        }
    }
}
