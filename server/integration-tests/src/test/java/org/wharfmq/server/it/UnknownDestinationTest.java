package org.wharfmq.server.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import javax.jms.DeliveryMode;
import javax.jms.InvalidDestinationException;
import javax.jms.MessageProducer;
import javax.jms.Queue;
import javax.jms.Session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** With auto-creation off, a queue that was not defined is an InvalidDestinationException that names it. */
@Timeout(60)
class UnknownDestinationTest {

    private static final String KNOWN = "KNOWN";
    private static final String UNKNOWN = "NO.SUCH.QUEUE";

    @RegisterExtension
    static final WharfServerExtension WHARF = WharfServerExtension.configured(c -> c.autoCreate(false).queue(KNOWN));

    @Test
    void producingToAnUnknownQueueFails() throws Exception {
        Session session = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue unknown = session.createQueue(UNKNOWN);

        // the server reports it when the producer is created; a client that checks only on send is also right
        InvalidDestinationException refused = assertThrows(InvalidDestinationException.class, () -> {
            MessageProducer producer = session.createProducer(unknown);
            producer.send(session.createTextMessage("lost"), DeliveryMode.PERSISTENT, 4, 0);
        });
        assertNamesUnknownQueue(refused);
        assertFalse(WHARF.server().queueManager().exists(UNKNOWN), "refusal must not create the queue");
    }

    @Test
    void anonymousProducerSendingToAnUnknownQueueFails() throws Exception {
        Session session = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageProducer anonymous = session.createProducer(null);
        InvalidDestinationException refused = assertThrows(InvalidDestinationException.class, () ->
                anonymous.send(session.createQueue(UNKNOWN), session.createTextMessage("lost"),
                        DeliveryMode.PERSISTENT, 4, 0));
        assertNamesUnknownQueue(refused);

        // the same producer and session still work for a known queue
        Queue known = session.createQueue(KNOWN);
        anonymous.send(known, session.createTextMessage("kept"), DeliveryMode.PERSISTENT, 4, 0);
        assertEquals("kept", Receive.nextText(session.createConsumer(known)).getText());
    }

    @Test
    void consumingFromAnUnknownQueueFails() throws Exception {
        Session session = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
        InvalidDestinationException refused = assertThrows(InvalidDestinationException.class,
                () -> session.createConsumer(session.createQueue(UNKNOWN)));
        assertNamesUnknownQueue(refused);
        assertFalse(WHARF.server().queueManager().exists(UNKNOWN));
        assertTrue(WHARF.server().queueManager().exists(KNOWN));
    }

    private static void assertNamesUnknownQueue(InvalidDestinationException e) {
        assertTrue(String.valueOf(e.getMessage()).contains(UNKNOWN), () -> "exception names the queue: " + e.getMessage());
    }
}
