package org.wharfmq.server.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import javax.jms.Connection;
import javax.jms.InvalidSelectorException;
import javax.jms.JMSConsumer;
import javax.jms.JMSContext;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.Queue;
import javax.jms.Session;
import javax.jms.TextMessage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A property may be named like a selector keyword (NULL, TRUE, AND, BETWEEN, ...), as ActiveMQ and Artemis allow
 * and conformance suites do: JMS 2.0 section 3.5.1 asks names to follow the selector identifier rules, but the
 * Jakarta Messaging TCK does not test that rule (docs/jms-client.md). Such a property travels through a server that
 * decodes the message's properties for a selector, and comes back with its value; a selector still cannot name it.
 */
@Timeout(60)
class KeywordPropertyNamesTest {

    @RegisterExtension
    static final WharfServerExtension WHARF = WharfServerExtension.withDefaults();

    @Test
    void propertiesNamedLikeSelectorKeywordsTravelThroughASelectingConsumer() throws Exception {
        Connection connection = WHARF.connect(Transport.TCP);
        Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue queue = session.createQueue(WHARF.queueName("keywords"));
        MessageConsumer selecting = session.createConsumer(queue, "kind = 'wanted'");

        TextMessage message = session.createTextMessage("body");
        message.setBooleanProperty("true", false);
        message.setStringProperty("NULL", "not null");
        message.setIntProperty("AND", 1);
        message.setLongProperty("between", 2L);
        message.setStringProperty("Escape", "\\");
        message.setStringProperty("kind", "wanted");
        session.createProducer(queue).send(message);

        Message got = Receive.next(selecting);
        assertEquals(false, got.getBooleanProperty("true"));
        assertEquals("not null", got.getStringProperty("NULL"));
        assertEquals(1, got.getIntProperty("AND"));
        assertEquals(2L, got.getLongProperty("between"));
        assertEquals("\\", got.getStringProperty("Escape"));
    }

    @Test
    void theSimplifiedApiAcceptsThemToo() throws Exception {
        try (JMSContext context = WHARF.factory(Transport.VM).createContext()) {
            Queue queue = context.createQueue(WHARF.queueName("keywords.context"));
            JMSConsumer consumer = context.createConsumer(queue);
            context.createProducer().setProperty("or", "either").setProperty("IS", 3).send(queue, "body");
            Message got = consumer.receive(Receive.EXPECTED_MS);
            assertEquals("either", got.getStringProperty("or"));
            assertEquals(3, got.getIntProperty("IS"));
        }
    }

    @Test
    void aSelectorStillCannotNameThem() throws Exception {
        Session session = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue queue = session.createQueue(WHARF.queueName("keywords.selector"));
        InvalidSelectorException invalid = assertThrows(InvalidSelectorException.class,
                () -> session.createConsumer(queue, "NULL = 'not null'"));
        assertTrue(invalid.getMessage().toUpperCase().contains("NULL"), invalid.getMessage());
    }
}
