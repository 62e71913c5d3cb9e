package org.wharfmq.server.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.wharfmq.jms.jndi.WharfInitialContextFactory;

import javax.jms.Connection;
import javax.jms.ConnectionFactory;
import javax.jms.MessageConsumer;
import javax.jms.Queue;
import javax.jms.Session;
import javax.naming.Context;
import javax.naming.InitialContext;
import javax.naming.NameNotFoundException;
import java.io.InputStream;
import java.util.Hashtable;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * JNDI the way applications configure JMS: connection factories and queues named in the environment (here partly
 * from a properties file on the class path), dynamic queues, and a clear miss for an unknown name.
 */
@Timeout(60)
class JndiTest {

    /** Fixed, because {@code jndi-it.properties} names it in its vm:// URL. */
    private static final String IN_VM_NAME = "wharf-jndi-it";

    @RegisterExtension
    static final WharfServerExtension WHARF = WharfServerExtension.configured(c -> c.inVmName(IN_VM_NAME));

    @Test
    void lookedUpFactoryAndQueueCarryAMessage() throws Exception {
        Context context = new InitialContext(environment());
        try {
            ConnectionFactory tcp = assertInstanceOf(ConnectionFactory.class, context.lookup("cf1"));
            Queue orders = assertInstanceOf(Queue.class, context.lookup("Orders"));
            assertEquals("ORDERS", orders.getQueueName());

            roundTrip(tcp, orders, "over tcp");
            ConnectionFactory vm = assertInstanceOf(ConnectionFactory.class, context.lookup("vmcf"));
            roundTrip(vm, orders, "in vm");
        } finally {
            context.close();
        }
    }

    @Test
    void dynamicQueueNeedsNoEntry() throws Exception {
        Context context = new InitialContext(environment());
        try {
            Queue foo = assertInstanceOf(Queue.class, context.lookup("dynamicQueues/FOO"));
            assertEquals("FOO", foo.getQueueName());
            roundTrip((ConnectionFactory) context.lookup("cf1"), foo, "dynamic");
        } finally {
            context.close();
        }
    }

    @Test
    void unknownNameIsNameNotFound() throws Exception {
        Context context = new InitialContext(environment());
        try {
            assertThrows(NameNotFoundException.class, () -> context.lookup("NoSuchThing"));
        } finally {
            context.close();
        }
    }

    private static Hashtable<String, Object> environment() throws Exception {
        Properties fromFile = new Properties();
        try (InputStream in = JndiTest.class.getResourceAsStream("jndi-it.properties")) {
            assertNotNull(in, "jndi-it.properties on the test class path");
            fromFile.load(in);
        }
        Hashtable<String, Object> env = new Hashtable<>();
        fromFile.forEach((k, v) -> env.put((String) k, v));
        env.put(Context.INITIAL_CONTEXT_FACTORY, WharfInitialContextFactory.class.getName());
        env.put("connectionFactory.cf1", WHARF.server().tcpUrl()); // the port is only known at run time
        return env;
    }

    private static void roundTrip(ConnectionFactory factory, Queue queue, String text) throws Exception {
        Connection connection = WHARF.track(factory.createConnection());
        connection.start();
        Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer consumer = session.createConsumer(queue);
        session.createProducer(queue).send(session.createTextMessage(text));
        assertEquals(text, Receive.nextText(consumer).getText());
    }
}
