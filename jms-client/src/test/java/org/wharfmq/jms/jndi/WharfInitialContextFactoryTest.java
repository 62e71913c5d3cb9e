package org.wharfmq.jms.jndi;

import org.junit.jupiter.api.Test;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.jms.WharfQueue;
import org.wharfmq.jms.WharfTopic;

import javax.naming.CompositeName;
import javax.naming.Context;
import javax.naming.InitialContext;
import javax.naming.NameNotFoundException;
import javax.naming.NamingException;
import javax.naming.OperationNotSupportedException;
import javax.naming.Reference;
import java.util.Hashtable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class WharfInitialContextFactoryTest {
    private static Context context(String... keyValues) throws NamingException {
        Hashtable<String, Object> env = new Hashtable<>();
        env.put(Context.INITIAL_CONTEXT_FACTORY, WharfInitialContextFactory.class.getName());
        for (int i = 0; i < keyValues.length; i += 2) {
            env.put(keyValues[i], keyValues[i + 1]);
        }
        return new InitialContext(env);
    }

    @Test
    void bindsDeclaredNames() throws NamingException {
        Context ctx = context("connectionFactory.Orders", "tcp://mq2:7500?prefetch=10",
                "queue.jms/OrdersIn", "ORDERS.IN", "topic.Prices", "PRICES");
        assertEquals("tcp://mq2:7500?prefetch=10", ((WharfConnectionFactory) ctx.lookup("Orders")).getBrokerURL());
        assertEquals(new WharfQueue("ORDERS.IN"), ctx.lookup("jms/OrdersIn"));
        assertEquals(new WharfTopic("PRICES"), ctx.lookup("Prices"));
    }

    @Test
    void defaultFactoriesUseProviderUrl() throws NamingException {
        assertEquals("tcp://localhost:7414", ((WharfConnectionFactory) context().lookup("ConnectionFactory")).getBrokerURL());
        Context ctx = context(Context.PROVIDER_URL, "vm://wharf");
        for (String name : new String[]{"ConnectionFactory", "QueueConnectionFactory", "TopicConnectionFactory"}) {
            assertEquals("vm://wharf", ((WharfConnectionFactory) ctx.lookup(name)).getBrokerURL());
        }
        assertEquals("tcp://other:1", ((WharfConnectionFactory) context(Context.PROVIDER_URL, "vm://wharf",
                "connectionFactory.ConnectionFactory", "tcp://other:1").lookup("ConnectionFactory")).getBrokerURL());
    }

    @Test
    void dynamicDestinations() throws NamingException {
        Context ctx = context();
        assertEquals(new WharfQueue("ANY.Q"), ctx.lookup("dynamicQueues/ANY.Q"));
        assertEquals(new WharfTopic("a/b"), ctx.lookup("dynamicTopics/a/b"));
        assertEquals(new WharfQueue("X"), ctx.lookup(new CompositeName("dynamicQueues/X")));
    }

    @Test
    void unknownNameAndMutationsFail() throws NamingException {
        Context ctx = context();
        NameNotFoundException e = assertThrows(NameNotFoundException.class, () -> ctx.lookup("nope"));
        assertTrue(e.getMessage().contains("nope"));
        assertThrows(NameNotFoundException.class, () -> ctx.lookup("dynamicQueues/"));
        assertThrows(OperationNotSupportedException.class, () -> ctx.bind("x", new WharfQueue("X")));
        assertThrows(OperationNotSupportedException.class, () -> ctx.rebind("x", new WharfQueue("X")));
        assertThrows(OperationNotSupportedException.class, () -> ctx.unbind("ConnectionFactory"));
        assertThrows(OperationNotSupportedException.class, () -> ctx.createSubcontext("sub"));
        assertEquals("vm://a", context(Context.PROVIDER_URL, "vm://a").getEnvironment().get(Context.PROVIDER_URL));
    }

    @Test
    void badUrlIsANamingException() {
        assertThrows(NamingException.class, () -> context("connectionFactory.Bad", "http://x"));
    }

    @Test
    void referenceRebuildsTheFactory() throws Exception {
        Reference ref = new WharfConnectionFactory("vm://ref?prefetch=3").getReference();
        Object rebuilt = new WharfObjectFactory().getObjectInstance(ref, null, null, null);
        assertEquals("vm://ref?prefetch=3", assertInstanceOf(WharfConnectionFactory.class, rebuilt).getBrokerURL());
    }

    @Test
    void reconnectPropertiesApplyToEveryFactoryBound() throws NamingException {
        Context ctx = context(Context.PROVIDER_URL, "tcp://mq1:7414,tcp://mq2:7414", "connectionFactory.Orders",
                "tcp://mq3:7414", "reconnectAttempts", "-1", "reconnectMaxInterval", "30000");
        for (String name : new String[]{"ConnectionFactory", "Orders"}) {
            String shown = ctx.lookup(name).toString();
            assertTrue(shown.contains("reconnectAttempts=-1") && shown.contains("reconnectMaxInterval=30000"), shown);
        }
        assertEquals("tcp://mq1:7414,tcp://mq2:7414", ((WharfConnectionFactory) ctx.lookup("ConnectionFactory")).getBrokerURL());
    }
}
