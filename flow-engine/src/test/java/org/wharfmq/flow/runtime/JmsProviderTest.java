package org.wharfmq.flow.runtime;

import org.junit.jupiter.api.Test;

import javax.jms.JMSException;
import javax.naming.Context;
import javax.naming.spi.InitialContextFactory;
import java.util.Hashtable;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A provider whose client jars are on the class path without one of their dependencies (a jar left out when they
 * were copied into lib/): the JNDI context cannot be made, and the failure is the provider's refusal, naming the class
 * that is missing and the fix, which its reader logs and tries again, not an Error that ends the reader's thread or
 * the server's start.
 */
class JmsProviderTest {

    /** A provider's JNDI factory that needs a class its jars did not bring. */
    public static final class WithoutItsDependencies implements InitialContextFactory {
        @Override
        public Context getInitialContext(Hashtable<?, ?> environment) {
            throw new NoClassDefFoundError("org/apache/commons/collections/FastHashMap");
        }
    }

    @Test
    void aClientJarWithoutItsDependenciesIsARefusalNamingTheMissingClassAndTheFix() {
        JmsProvider provider = new JmsProvider("artemis", Map.of(Context.INITIAL_CONTEXT_FACTORY,
                WithoutItsDependencies.class.getName(), Context.PROVIDER_URL, "tcp://127.0.0.1:61616"),
                null, null, null).withXa(true);
        JMSException e = assertThrows(JMSException.class, provider::xaConnectionFactory);
        assertTrue(e.getMessage().startsWith("Cannot make the JNDI context of JMS provider 'artemis' at "
                + "tcp://127.0.0.1:61616 (jmsProviders: artemis: jndi:): java.lang.NoClassDefFoundError: "
                + "org/apache/commons/collections/FastHashMap. Check java.naming.factory.initial and that the "
                + "provider's client jars, with all their dependencies, are on the server's class path (lib/)."),
                e.getMessage());
    }
}
