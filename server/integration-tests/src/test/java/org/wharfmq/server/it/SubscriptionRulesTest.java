package org.wharfmq.server.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.wharfmq.jms.WharfConnectionFactory;

import javax.jms.Connection;
import javax.jms.IllegalStateException;
import javax.jms.IllegalStateRuntimeException;
import javax.jms.InvalidClientIDException;
import javax.jms.InvalidClientIDRuntimeException;
import javax.jms.InvalidDestinationException;
import javax.jms.InvalidDestinationRuntimeException;
import javax.jms.InvalidSelectorException;
import javax.jms.InvalidSelectorRuntimeException;
import javax.jms.JMSConsumer;
import javax.jms.JMSContext;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Session;
import javax.jms.TextMessage;
import javax.jms.Topic;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The JMS 2.0 rules of client IDs (6.1.2), durable subscriptions (6.11.1, 8.3), unsubscribe and shared subscriptions
 * (6.11), through the real client against the real server.
 */
@Timeout(60)
class SubscriptionRulesTest {

    @RegisterExtension
    static final WharfServerExtension WHARF = WharfServerExtension.withDefaults();

    private String unique(String purpose) {
        return WHARF.queueName(purpose).toLowerCase();
    }

    private Connection connectAs(String clientId) throws JMSException {
        Connection c = WHARF.track(WHARF.factory(Transport.TCP).createConnection());
        c.setClientID(clientId);
        c.start();
        return c;
    }

    @Test
    void clientIdIsSetBeforeUseAndIsUniqueAcrossConnections() throws Exception {
        String id = unique("client");
        Connection first = connectAs(id);
        assertEquals(id, first.getClientID());
        Connection second = WHARF.track(WHARF.factory(Transport.VM).createConnection());
        InvalidClientIDException taken = assertThrows(InvalidClientIDException.class, () -> second.setClientID(id));
        assertTrue(taken.getMessage().contains(id), taken.getMessage());

        Connection used = WHARF.track(WHARF.factory(Transport.TCP).createConnection());
        used.createSession(false, Session.AUTO_ACKNOWLEDGE);
        assertThrows(IllegalStateException.class, () -> used.setClientID(unique("late")));

        first.close();
        Connection third = connectAs(id); // free again once its holder has closed
        assertEquals(id, third.getClientID());

        JMSContext context = WHARF.factory(Transport.TCP).createContext();
        try {
            assertThrows(InvalidClientIDRuntimeException.class, () -> context.setClientID(id));
        } finally {
            context.close();
        }
    }

    @Test
    void durableSubscriptionKeepsPublicationsWhileNoConsumerIsActive() throws Exception {
        String id = unique("durable");
        String topicName = "rules/" + id;
        Connection connection = connectAs(id);
        Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        Topic topic = session.createTopic(topicName);
        MessageConsumer durable = session.createDurableSubscriber(topic, "keep");
        MessageProducer publisher = session.createProducer(topic);
        publisher.send(session.createTextMessage("while active"));
        assertEquals("while active", Receive.nextText(durable).getText());
        durable.close();
        publisher.send(session.createTextMessage("while inactive 1"));
        publisher.send(session.createTextMessage("while inactive 2"));
        assertEquals(2, backlog(topicName, "keep"));

        MessageConsumer again = session.createDurableConsumer(topic, "keep");
        assertEquals(List.of("while inactive 1", "while inactive 2"), Receive.texts(again, 2));
        Receive.nothingMore(again);

        IllegalStateException second = assertThrows(IllegalStateException.class,
                () -> session.createDurableConsumer(topic, "keep"));
        assertTrue(second.getMessage().contains("active consumer"), second.getMessage());

        IllegalStateException active = assertThrows(IllegalStateException.class, () -> session.unsubscribe("keep"));
        assertTrue(active.getMessage().contains("active consumer"), active.getMessage());
        again.close();
        session.unsubscribe("keep");
        assertEquals(-1, backlog(topicName, "keep"));
        assertThrows(InvalidDestinationException.class, () -> session.unsubscribe("keep"));
    }

    /**
     * A factory with the option clientID gives its connections and contexts that client ID as they are created (an
     * administratively configured client ID, JMS 2.0 section 6.1.2): durable subscriptions need no setClientID,
     * setClientID is refused with IllegalStateException, and the ID stays unique: one connection at a time.
     */
    @Test
    void factoryOptionClientIdConfiguresEveryConnection() throws Exception {
        String id = unique("administered");
        WharfConnectionFactory factory = new WharfConnectionFactory(Transport.TCP.url(WHARF.server()) + "?clientID=" + id);
        Connection connection = WHARF.track(factory.createConnection());
        assertEquals(id, connection.getClientID());
        IllegalStateException again = assertThrows(IllegalStateException.class, () -> connection.setClientID("other"));
        assertTrue(again.getMessage().contains("clientID"), again.getMessage());
        Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        Topic topic = session.createTopic("rules/" + id);
        session.createDurableConsumer(topic, "configured").close();
        assertEquals(0, backlog("rules/" + id, "configured"));

        InvalidClientIDException taken = assertThrows(InvalidClientIDException.class, factory::createConnection);
        assertTrue(taken.getMessage().contains(id), taken.getMessage());
        session.unsubscribe("configured");
        connection.close();

        try (JMSContext context = factory.createContext()) {
            assertEquals(id, context.getClientID());
            assertThrows(IllegalStateRuntimeException.class, () -> context.setClientID("other"));
        }
    }

    @Test
    void unsharedDurableSubscriptionNeedsAClientId() throws Exception {
        Session session = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> session.createDurableConsumer(session.createTopic("rules/x"), "d"));
        assertTrue(e.getMessage().contains("client ID"), e.getMessage());
    }

    /** An invalid topic or selector is what a durable subscription without a client ID is refused for first. */
    @Test
    void invalidTopicOrSelectorIsNamedBeforeAMissingClientId() throws Exception {
        Session session = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
        Topic topic = session.createTopic("rules/order");
        assertThrows(InvalidDestinationException.class, () -> session.createDurableConsumer(null, "d"));
        assertThrows(InvalidDestinationException.class, () -> session.createDurableSubscriber(null, "d", null, false));
        assertThrows(InvalidSelectorException.class, () -> session.createDurableConsumer(topic, "d", "=", false));
        assertThrows(InvalidSelectorException.class, () -> session.createDurableSubscriber(topic, "d", "=", true));
        try (JMSContext context = WHARF.factory(Transport.TCP).createContext()) {
            assertThrows(InvalidDestinationRuntimeException.class, () -> context.createDurableConsumer(null, "d"));
            assertThrows(InvalidSelectorRuntimeException.class,
                    () -> context.createDurableConsumer(context.createTopic("rules/order"), "d", "=", false));
            assertThrows(IllegalStateRuntimeException.class,
                    () -> context.createDurableConsumer(context.createTopic("rules/order"), "d"));
        }
    }

    @Test
    void changingTheSelectorOfADurableSubscriptionReplacesIt() throws Exception {
        String id = unique("replace");
        Session session = connectAs(id).createSession(false, Session.AUTO_ACKNOWLEDGE);
        Topic topic = session.createTopic("rules/" + id);
        session.createDurableSubscriber(topic, "sub").close();
        TextMessage old = session.createTextMessage("old subscription");
        old.setStringProperty("kind", "new"); // the new selector would take it: only the replacement keeps it out
        session.createProducer(topic).send(old);
        MessageConsumer replaced = session.createDurableSubscriber(topic, "sub", "kind = 'new'", false);
        Receive.nothingMore(replaced); // the old subscription and its message are gone
        TextMessage wanted = session.createTextMessage("new subscription");
        wanted.setStringProperty("kind", "new");
        MessageProducer publisher = session.createProducer(topic);
        publisher.send(session.createTextMessage("filtered out"));
        publisher.send(wanted);
        assertEquals("new subscription", Receive.nextText(replaced).getText());
        replaced.close();
        session.unsubscribe("sub");
    }

    @Test
    void durableNoLocalLeavesOutPublicationsOfItsOwnClientId() throws Exception {
        String id = unique("durablenolocal");
        Session session = connectAs(id).createSession(false, Session.AUTO_ACKNOWLEDGE);
        Topic topic = session.createTopic("rules/" + id);
        MessageConsumer consumer = session.createDurableConsumer(topic, "d", null, true);
        session.createProducer(topic).send(session.createTextMessage("own"));
        Session other = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
        other.createProducer(other.createTopic("rules/" + id)).send(other.createTextMessage("other"));
        assertEquals("other", Receive.nextText(consumer).getText());
        Receive.nothingMore(consumer);
        consumer.close();
        session.unsubscribe("d");
    }

    @Test
    void sharedSubscriptionSplitsPublicationsAcrossConnectionsEachOnce() throws Exception {
        String name = "rules/" + unique("shared");
        Session a = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
        Session b = WHARF.connect(Transport.VM).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer onA = a.createSharedConsumer(a.createTopic(name), "workers");
        MessageConsumer onB = b.createSharedConsumer(b.createTopic(name), "workers");
        MessageConsumer everything = a.createConsumer(a.createTopic(name)); // another subscription: gets them all
        assertEquals(2, WHARF.server().topicManager().describe().stream().filter(i -> i.topic().equals(name)).count());
        MessageProducer publisher = a.createProducer(a.createTopic(name));
        int n = 200;
        for (int i = 0; i < n; i++) {
            publisher.send(a.createTextMessage("m" + i));
        }
        Set<String> seen = new HashSet<>();
        List<String> all = new ArrayList<>();
        int fromA = drain(onA, seen, all);
        int fromB = drain(onB, seen, all);
        assertEquals(n, all.size(), "each publication once across the shared subscription's consumers");
        assertEquals(n, seen.size(), "no publication twice");
        assertTrue(fromA > 0 && fromB > 0, "both consumers got a share: " + fromA + " / " + fromB);
        assertEquals(n, Receive.texts(everything, n).size());
    }

    /**
     * Takes every publication the consumer has or can still get. The sends were persistent, so each was on the
     * subscription's queue when its send returned; receiveNoWait asks the server (PULL) when the buffer is empty.
     */
    private static int drain(MessageConsumer consumer, Set<String> seen, List<String> all) throws JMSException {
        int count = 0;
        for (Message m; (m = consumer.receiveNoWait()) != null; ) {
            String text = ((TextMessage) m).getText();
            seen.add(text);
            all.add(text);
            count++;
        }
        return count;
    }

    @Test
    void sharedDurableSubscriptionsThroughJmsContext() throws Exception {
        String name = "rules/" + unique("shareddurable");
        try (JMSContext first = WHARF.factory(Transport.TCP).createContext();
             JMSContext second = WHARF.factory(Transport.TCP).createContext()) {
            Topic topic = first.createTopic(name);
            JMSConsumer c1 = first.createSharedDurableConsumer(topic, "sd-" + name);
            JMSConsumer c2 = second.createSharedDurableConsumer(second.createTopic(name), "sd-" + name);
            assertEquals(2, WHARF.server().topicManager().describe().stream()
                    .filter(i -> i.topic().equals(name) && i.durable() && i.shared()).mapToInt(i -> i.consumers()).sum());
            c1.close();
            c2.close();
            first.createProducer().send(topic, "kept while nobody consumes");
            JMSConsumer back = first.createSharedDurableConsumer(topic, "sd-" + name);
            assertEquals("kept while nobody consumes", back.receiveBody(String.class, Receive.EXPECTED_MS));
            back.close();
            first.unsubscribe("sd-" + name);
            assertThrows(javax.jms.InvalidDestinationRuntimeException.class, () -> first.unsubscribe("sd-" + name));
            JMSConsumer nonDurable = first.createSharedConsumer(topic, "nd");
            first.createProducer().send(topic, "to the shared non-durable one");
            assertEquals("to the shared non-durable one", nonDurable.receiveBody(String.class, Receive.EXPECTED_MS));
            assertNull(nonDurable.receiveNoWait()); // asks the server (PULL); the send was persistent, so answered
        }
    }

    @Test
    void aNameCannotBeBothSharedAndUnshared() throws Exception {
        String id = unique("mixed");
        Session session = connectAs(id).createSession(false, Session.AUTO_ACKNOWLEDGE);
        Topic topic = session.createTopic("rules/" + id);
        session.createDurableConsumer(topic, "one").close();
        assertThrows(IllegalStateException.class, () -> session.createSharedDurableConsumer(topic, "one"));
        session.unsubscribe("one");
    }

    /** The backlog of the named subscription on the topic, or -1 when it does not exist. */
    private static long backlog(String topic, String name) {
        return WHARF.server().topicManager().describe().stream()
                .filter(i -> i.topic().equals(topic) && name.equals(i.name()))
                .mapToLong(i -> i.depth()).findFirst().orElse(-1);
    }
}
