package org.wharfmq.server.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.wharfmq.jms.WharfConnectionFactory;

import javax.jms.Connection;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.ObjectMessage;
import javax.jms.Session;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ObjectMessage deserialisation is limited to allowed classes: by default the JDK's value types and collections;
 * others only when the receiving connection's {@code deserializationAllowList} names them. The refusal names the
 * class and the setting, and leaves the message consumed but unread (nothing of the class was instantiated).
 */
@Timeout(60)
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
        JMSException refused = assertThrows(JMSException.class, got::getObject);
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
}
