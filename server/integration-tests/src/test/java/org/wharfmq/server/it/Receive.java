package org.wharfmq.server.it;

import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.TextMessage;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * Receiving in tests: a message that should come gets generous time; that no message is left is asked of the server,
 * never concluded from a short wait (which a slow machine passes whatever the server does).
 */
public final class Receive {

    /** How long a message that is expected may take to arrive: it bounds a hang only (a loaded machine is slow). */
    static final long EXPECTED_MS = 30_000;

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

    /**
     * Asks the server that it has nothing more for {@code consumer}, and fails if it has. Wharf's
     * {@code receiveNoWait} takes a buffered message, else sends PULL: the server first writes every delivery already
     * recorded for the consumer's session, then one message still waiting on the queue that the consumer's selector
     * accepts (credit or not), then PULL_DONE (docs/protocol.md, "Consuming"). So a message the server has handed to
     * this consumer, or keeps for it, makes this fail.
     *
     * <p>It proves nothing about frames the server has not handled yet: a send from another connection that was not
     * answered (non-persistent or transacted, before its commit) needs {@link Send#barrier} on that connection first.
     * The consumer's connection must be started (a stopped one answers null without asking).
     */
    public static void nothingMore(MessageConsumer consumer) throws JMSException {
        Message extra = consumer.receiveNoWait();
        assertNull(extra, () -> "the server still had a message for " + consumer + ": " + describe(extra));
    }

    private static String describe(Message message) {
        try {
            List<String> properties = new ArrayList<>();
            for (Object name : Collections.list(message.getPropertyNames())) {
                properties.add(name + "=" + message.getObjectProperty((String) name));
            }
            String body = message instanceof TextMessage t ? "'" + t.getText() + "'" : message.getClass().getSimpleName();
            return body + " " + properties + " " + message.getJMSMessageID();
        } catch (JMSException e) {
            return String.valueOf(message);
        }
    }
}
