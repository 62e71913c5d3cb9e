package org.wharfmq.server.it;

import org.wharfmq.server.TestUsers;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import javax.jms.Connection;
import javax.jms.ConnectionMetaData;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Queue;
import javax.jms.Session;
import javax.jms.TextMessage;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * JMS 2.0 section 3.5.9 (JMS defined properties) and ConnectionMetaData: what the provider sets, what the
 * application may set, and that selectors (evaluated by the server) see them. Complements MessageTypesTest.
 */
@Timeout(30)
class JmsxPropertiesTest {

    @RegisterExtension
    static final WharfServerExtension WHARF = WharfServerExtension.withUsers(TestUsers.of("alice", "bob", "carol"));

    /**
     * JMS 2.0 through javax.jms, Jakarta Messaging 3.1 through jakarta.jms (this test runs against both clients, renamed
     * for the jakarta one; the literal "jakarta." is left as it is).
     */
    @Test
    void metaDataDescribesWharfAndItsJmsVersion() throws Exception {
        ConnectionMetaData meta = WHARF.connect(Transport.VM).getMetaData();
        boolean jakarta = ConnectionMetaData.class.getName().startsWith("jakarta.");
        assertEquals(jakarta ? "3.1" : "2.0", meta.getJMSVersion());
        assertEquals(jakarta ? 3 : 2, meta.getJMSMajorVersion());
        assertEquals(jakarta ? 1 : 0, meta.getJMSMinorVersion());
        assertEquals("Wharf", meta.getJMSProviderName());
        assertTrue(meta.getProviderVersion().startsWith(meta.getProviderMajorVersion() + "."), meta.getProviderVersion());
        assertEquals(Set.of("JMSXUserID", "JMSXDeliveryCount", "JMSXGroupID", "JMSXGroupSeq"),
                Set.copyOf(Collections.list(meta.getJMSXPropertyNames())), "exactly the JMSX properties Wharf supports");
    }

    @Test
    void anApplicationCannotForgeJmsxUserId() throws Exception {
        Connection anonymous = WHARF.connect(Transport.TCP);
        Session session = anonymous.createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue queue = session.createQueue(WHARF.queueName("jmsx.forged"));
        TextMessage forged = session.createTextMessage("not really root");
        forged.setStringProperty("JMSXUserID", "root");
        session.createProducer(queue).send(forged);
        assertFalse(forged.propertyExists("JMSXUserID"), "the provider replaced it with the (absent) user name");
        MessageConsumer consumer = session.createConsumer(queue);
        assertFalse(Receive.next(consumer).propertyExists("JMSXUserID"));
        consumer.close();

        Connection bob = WHARF.track(WHARF.factory(Transport.TCP).createConnection("bob", TestUsers.password("bob")));
        bob.start();
        Session bobs = bob.createSession(false, Session.AUTO_ACKNOWLEDGE);
        TextMessage claimed = bobs.createTextMessage("bob says he is root");
        claimed.setStringProperty("JMSXUserID", "root");
        bobs.createProducer(queue).send(claimed);
        assertEquals("bob", Receive.next(bobs.createConsumer(queue)).getStringProperty("JMSXUserID"));
    }

    @Test
    void selectorsSeeJmsxDeliveryCountAndGroupProperties() throws Exception {
        Connection connection = WHARF.connect(Transport.VM);
        Session session = connection.createSession(false, Session.CLIENT_ACKNOWLEDGE);
        Queue queue = session.createQueue(WHARF.queueName("jmsx.selector"));
        MessageProducer producer = session.createProducer(queue);
        for (int seq = 1; seq <= 3; seq++) {
            for (String group : List.of("A", "B")) {
                TextMessage m = session.createTextMessage(group + seq);
                m.setStringProperty("JMSXGroupID", group);
                m.setIntProperty("JMSXGroupSeq", seq);
                producer.send(m);
            }
        }
        MessageConsumer groupB = session.createConsumer(queue, "JMSXGroupID = 'B' AND JMSXGroupSeq > 1");
        assertEquals(List.of("B2", "B3"), Receive.texts(groupB, 2));
        groupB.close();
        session.recover(); // B2 and B3 come back with JMSXDeliveryCount 2

        Session other = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer redelivered = other.createConsumer(queue, "JMSXDeliveryCount > 1");
        Message b2 = Receive.next(redelivered);
        assertEquals("B2", ((TextMessage) b2).getText());
        assertEquals(2, b2.getIntProperty("JMSXDeliveryCount"));
        assertTrue(b2.getJMSRedelivered());
        assertEquals("B", b2.getStringProperty("JMSXGroupID"));
        assertEquals(2, b2.getIntProperty("JMSXGroupSeq"));
        assertEquals("B3", ((TextMessage) Receive.next(redelivered)).getText());
        Receive.nothingMore(redelivered);
    }

    @Test
    void receivedMessagesListTheirJmsxPropertiesAndBrowsingShowsTheCount() throws Exception {
        Connection connection = WHARF.track(WHARF.factory(Transport.TCP).createConnection("carol", TestUsers.password("carol")));
        connection.start();
        Session session = connection.createSession(false, Session.CLIENT_ACKNOWLEDGE);
        Queue queue = session.createQueue(WHARF.queueName("jmsx.names"));
        TextMessage m = session.createTextMessage("x");
        m.setStringProperty("JMSXGroupID", "g");
        m.setIntProperty("JMSXGroupSeq", 1);
        session.createProducer(queue).send(m);
        MessageConsumer consumer = session.createConsumer(queue);
        Receive.next(consumer);
        consumer.close();
        session.recover();

        Enumeration<?> browse = session.createBrowser(queue).getEnumeration();
        Message browsed = (Message) browse.nextElement();
        assertEquals(2, browsed.getIntProperty("JMSXDeliveryCount"), "a browsed message shows its delivery count");
        assertEquals(Set.of("JMSXUserID", "JMSXDeliveryCount", "JMSXGroupID", "JMSXGroupSeq"),
                Set.copyOf(Collections.list((Enumeration<String>) browsed.getPropertyNames())));
        assertEquals("carol", browsed.getStringProperty("JMSXUserID"));
    }
}
