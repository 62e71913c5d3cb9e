package org.wharfmq.server.it;

import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.TextMessage;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

/** Receiving with bounded waits: a message that should come gets generous time, one that must not gets a short look. */
final class Receive {

    /** How long a message that is expected may take to arrive. */
    static final long EXPECTED_MS = 10_000;
    /** How long to watch for a message that must not arrive. */
    static final long ABSENT_MS = 200;

    private Receive() {
    }

    static Message next(MessageConsumer consumer) throws JMSException {
        Message message = consumer.receive(EXPECTED_MS);
        assertNotNull(message, "no message within " + EXPECTED_MS + " ms");
        return message;
    }

    static TextMessage nextText(MessageConsumer consumer) throws JMSException {
        return assertInstanceOf(TextMessage.class, next(consumer));
    }

    /** The texts of the next {@code count} messages, in the order received. */
    static List<String> texts(MessageConsumer consumer, int count) throws JMSException {
        List<String> texts = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            texts.add(nextText(consumer).getText());
        }
        return texts;
    }

    static void nothingMore(MessageConsumer consumer) throws JMSException {
        Message extra = consumer.receive(ABSENT_MS);
        assertNull(extra, () -> "unexpected message " + describe(extra));
    }

    private static String describe(Message message) {
        try {
            return message instanceof TextMessage t ? "'" + t.getText() + "'" : String.valueOf(message);
        } catch (JMSException e) {
            return String.valueOf(message);
        }
    }
}
