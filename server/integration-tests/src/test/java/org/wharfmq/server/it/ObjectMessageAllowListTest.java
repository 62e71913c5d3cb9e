package org.wharfmq.server.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.wharfmq.jms.WharfConnectionFactory;

import javax.jms.Connection;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageFormatException;
import javax.jms.ObjectMessage;
import javax.jms.Session;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ObjectMessage deserialisation is limited to allowed classes: by default the JDK's value types and collections;
 * others only when the receiving connection's {@code deserializationAllowList} names them. The refusal names the
 * class and the setting, and leaves the message consumed but unread (nothing of the class was instantiated). It is
 * limited in cost too: a body of allowed classes built to burn CPU fails at once, naming the limit it went past,
 * unless the receiving connection raises that limit.
 *
 * <p>The class's time limit runs in a thread of its own, so that a runaway deserialisation (the hash-collision bomb
 * before the limits: CPU without end, deaf to interrupts) fails the test instead of holding up the build.
 */
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ObjectMessageAllowListTest {

    @RegisterExtension
    static final WharfServerExtension WHARF = WharfServerExtension.withDefaults();

    /** Stands for an application class, outside the default allow list. */
    record Order(String id, int quantity) implements Serializable {
    }

    private static void send(Connection connection, String queueName, Serializable object) throws JMSException {
        Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        session.createProducer(session.createQueue(queueName)).send(session.createObjectMessage(object));
        session.close();
    }

    private static ObjectMessage receive(Connection connection, String queueName) throws JMSException {
        Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer consumer = session.createConsumer(session.createQueue(queueName));
        Message message = Receive.next(consumer);
        return (ObjectMessage) message;
    }

    @Test
    void defaultAllowListRefusesApplicationClassesAndNamesTheSetting() throws Exception {
        Connection connection = WHARF.connect(Transport.TCP);
        String queueName = WHARF.queueName("objects.default");
        send(connection, queueName, new ArrayList<>(List.of(new Order("o-1", 2))));
        ObjectMessage got = receive(connection, queueName);
        MessageFormatException refused = assertThrows(MessageFormatException.class, got::getObject);
        assertTrue(refused.getMessage().contains(Order.class.getName()), refused.getMessage());
        assertTrue(refused.getMessage().contains("deserializationAllowList"), refused.getMessage());
        assertThrows(JMSException.class, () -> got.getBody(Serializable.class));
    }

    @Test
    void defaultAllowListAdmitsJdkValuesAndCollections() throws Exception {
        Connection connection = WHARF.connect(Transport.VM);
        String queueName = WHARF.queueName("objects.jdk");
        ArrayList<Object> values = new ArrayList<>(List.of(1, "two", 3.0, new java.math.BigDecimal("4.5"),
                java.time.Instant.ofEpochSecond(6), new java.util.HashMap<>(java.util.Map.of("k", 'c')), new int[]{7}.length));
        send(connection, queueName, values);
        assertEquals(values, receive(connection, queueName).getObject());
    }

    @Test
    void urlOptionAllowsTheApplicationsPackage() throws Exception {
        String queueName = WHARF.queueName("objects.allowed");
        send(WHARF.connect(Transport.TCP), queueName, new ArrayList<>(List.of(new Order("o-2", 5))));
        String url = Transport.TCP.url(WHARF.server()) + "?deserializationAllowList=java.util.*,"
                + Order.class.getPackageName() + ".*";
        Connection allowing = WHARF.track(new WharfConnectionFactory(url).createConnection());
        allowing.start();
        assertEquals(List.of(new Order("o-2", 5)), receive(allowing, queueName).getObject());
    }

    /**
     * The "SerialDOS" hash-collision bomb: 100 levels of two HashSets, each holding both sets of the next level; 5.7 KB.
     * Reading it computes each set's hash code from its elements', visiting the levels below 2^100 times.
     */
    private static Set<Object> hashCollisionBomb() {
        Set<Object> root = new HashSet<>();
        Set<Object> s1 = root;
        Set<Object> s2 = new HashSet<>();
        for (int i = 0; i < 100; i++) {
            Set<Object> t1 = new HashSet<>();
            Set<Object> t2 = new HashSet<>();
            t1.add("foo"); // so that t1 and t2 differ
            s1.add(t1);
            s1.add(t2);
            s2.add(t1);
            s2.add(t2);
            s1 = t1;
            s2 = t2;
        }
        return root;
    }

    /** ArrayLists nested {@code depth} deep around a string. */
    private static ArrayList<Object> nestedLists(int depth) {
        ArrayList<Object> list = new ArrayList<>(List.of("leaf"));
        for (int i = 1; i < depth; i++) {
            list = new ArrayList<>(List.of(list));
        }
        return list;
    }

    @Test
    void theHashCollisionBombFailsAtOnceOnTheDepthLimit() throws Exception {
        Connection connection = WHARF.connect(Transport.TCP);
        String queueName = WHARF.queueName("objects.bomb");
        send(connection, queueName, (Serializable) hashCollisionBomb());
        ObjectMessage got = receive(connection, queueName);
        MessageFormatException refused = assertThrows(MessageFormatException.class, got::getObject);
        assertTrue(refused.getMessage().contains("nested deeper than 20 levels"), refused.getMessage());
        assertTrue(refused.getMessage().contains("deserializationMaxDepth"), refused.getMessage());
    }

    @Test
    void aConnectionThatRaisesTheDepthLimitGetsTheDeeperObject() throws Exception {
        String refusedQueue = WHARF.queueName("objects.deep.refused");
        String queueName = WHARF.queueName("objects.deep");
        Connection defaults = WHARF.connect(Transport.TCP);
        send(defaults, refusedQueue, nestedLists(30));
        send(defaults, queueName, nestedLists(30));
        MessageFormatException refused = assertThrows(MessageFormatException.class, receive(defaults, refusedQueue)::getObject);
        assertTrue(refused.getMessage().contains("deserializationMaxDepth"), refused.getMessage());

        String url = Transport.TCP.url(WHARF.server()) + "?deserializationMaxDepth=40";
        Connection raising = WHARF.track(new WharfConnectionFactory(url).createConnection());
        raising.start();
        assertEquals(nestedLists(30), receive(raising, queueName).getObject());
    }
}
