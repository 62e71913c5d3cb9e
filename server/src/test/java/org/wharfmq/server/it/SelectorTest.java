package org.wharfmq.server.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.InvalidSelectorException;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Queue;
import javax.jms.Session;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Message selectors evaluated by the server on real messages: each selector takes exactly the matching messages,
 * in order, and leaves the rest on the queue, in order, for a consumer without selector. Properties that are
 * absent make comparisons unknown, which neither a condition nor its negation selects.
 */
@Timeout(90)
class SelectorTest {

    @RegisterExtension
    static final WharfServerExtension WHARF = WharfServerExtension.withDefaults();

    /** The messages every property selector runs against: id → properties (absent means not set). */
    private static final List<Map<String, Object>> MESSAGES = List.of(
            Map.of("id", 1, "code", "100%", "a", 1),
            Map.of("id", 2, "code", "100x", "a", 2, "b", 2),
            Map.of("id", 3, "code", "1000%", "a", 3),
            Map.of("id", 4, "code", "_ab", "a", 5, "kind", "gold"),
            Map.of("id", 5, "b", 2, "kind", "silver"),
            Map.of("id", 6, "kind", "bronze"),
            Map.of("id", 7, "a", 10));

    static Stream<Arguments> propertySelectors() {
        return Stream.of(
                Arguments.of("code LIKE '100!%' ESCAPE '!'", List.of(1)),
                Arguments.of("code LIKE '!_a%' ESCAPE '!'", List.of(4)),
                Arguments.of("code LIKE '100_'", List.of(1, 2)),
                Arguments.of("code NOT LIKE '100%'", List.of(4)),
                Arguments.of("a BETWEEN 2 AND 5", List.of(2, 3, 4)),
                Arguments.of("a NOT BETWEEN 2 AND 5", List.of(1, 7)),
                Arguments.of("kind IN ('gold', 'silver')", List.of(4, 5)),
                Arguments.of("kind NOT IN ('gold', 'silver')", List.of(6)),
                Arguments.of("kind IS NULL", List.of(1, 2, 3, 7)),
                Arguments.of("kind IS NOT NULL", List.of(4, 5, 6)),
                Arguments.of("a > 1", List.of(2, 3, 4, 7)),
                Arguments.of("NOT (a > 1)", List.of(1)),
                Arguments.of("a > 1 OR b = 2", List.of(2, 3, 4, 5, 7)),
                Arguments.of("a > 1 AND b = 2", List.of(2)),
                Arguments.of("a * 2 = b + 2", List.of(2)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("propertySelectors")
    void propertySelectorTakesMatchesAndLeavesTheRest(String selector, List<Integer> expected) throws Exception {
        Connection connection = WHARF.connect(Transport.TCP);
        String queueName = WHARF.queueName("sel");
        send(connection, queueName, MESSAGES.stream().<Consumer<Message>>map(props -> m -> {
            try {
                for (Map.Entry<String, Object> p : props.entrySet()) {
                    m.setObjectProperty(p.getKey(), p.getValue());
                }
            } catch (JMSException e) {
                throw new IllegalStateException(e);
            }
        }).toList());

        List<Integer> selected = drain(connection, queueName, selector, expected.size());
        assertEquals(expected, selected, "selected by " + selector);

        List<Integer> rest = new ArrayList<>(MESSAGES.stream().map(p -> (Integer) p.get("id")).toList());
        rest.removeAll(expected);
        assertEquals(rest, drain(connection, queueName, null, rest.size()), "left on the queue");
    }

    @Test
    void headerSelectorsSeeJmsPriorityTypeAndDeliveryMode() throws Exception {
        Connection connection = WHARF.connect(Transport.TCP);
        Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        record Header(int id, int priority, String type, int mode) {
        }
        List<Header> headers = List.of(
                new Header(1, 8, "big", DeliveryMode.PERSISTENT),
                new Header(2, 3, "big", DeliveryMode.NON_PERSISTENT),
                new Header(3, 7, "small", DeliveryMode.NON_PERSISTENT),
                new Header(4, 1, null, DeliveryMode.PERSISTENT));
        Map<String, Set<Integer>> expectations = Map.of(
                "JMSPriority > 6", Set.of(1, 3),
                "JMSType = 'big' AND JMSPriority < 5", Set.of(2),
                "JMSType IS NULL", Set.of(4),
                "JMSDeliveryMode = 'NON_PERSISTENT'", Set.of(2, 3));
        for (Map.Entry<String, Set<Integer>> expectation : expectations.entrySet()) {
            Queue queue = session.createQueue(WHARF.queueName("sel.header"));
            MessageProducer producer = session.createProducer(queue);
            for (Header h : headers) {
                Message m = session.createMessage();
                m.setIntProperty("id", h.id());
                m.setJMSType(h.type());
                producer.send(m, h.mode(), h.priority(), 0);
            }
            String selector = expectation.getKey();
            // priority order decides which comes first, so compare as sets
            Set<Integer> selected = new HashSet<>(drain(connection, queue.getQueueName(), selector,
                    expectation.getValue().size()));
            assertEquals(expectation.getValue(), selected, "selected by " + selector);
            Set<Integer> rest = new HashSet<>(Set.of(1, 2, 3, 4));
            rest.removeAll(expectation.getValue());
            assertEquals(rest, new HashSet<>(drain(connection, queue.getQueueName(), null, rest.size())),
                    "left on the queue by " + selector);
        }
    }

    @Test
    void matchingMessageBehindManyNonMatchingOnesIsFound() throws Exception {
        Connection connection = WHARF.connect(Transport.TCP);
        String queueName = WHARF.queueName("sel.deep");
        List<Consumer<Message>> setters = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            int id = i;
            setters.add(m -> setInt(m, "id", id));
        }
        setters.add(m -> {
            setInt(m, "id", 500);
            setInt(m, "wanted", 1);
        });
        send(connection, queueName, setters);

        assertEquals(List.of(500), drain(connection, queueName, "wanted = 1", 1));
        assertEquals(500, WHARF.depth(queueName), "non-matching messages stay on the queue");
    }

    @Test
    void invalidSelectorFailsCreateConsumerAndLeavesTheSessionUsable() throws Exception {
        Session session = WHARF.connect(Transport.TCP).createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue queue = session.createQueue(WHARF.queueName("sel.invalid"));

        assertThrows(InvalidSelectorException.class, () -> session.createConsumer(queue, "a >"));
        assertThrows(InvalidSelectorException.class, () -> session.createConsumer(queue, "a = 'unterminated"));
        assertThrows(InvalidSelectorException.class, () -> session.createConsumer(queue, "a LIKE 'x' ESCAPE"));

        MessageConsumer valid = session.createConsumer(queue, "a = 1");
        Message m = session.createMessage();
        m.setIntProperty("a", 1);
        session.createProducer(queue).send(m);
        assertEquals(1, Receive.next(valid).getIntProperty("a"));
    }

    private static void send(Connection connection, String queueName, List<Consumer<Message>> propertySetters)
            throws JMSException {
        Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageProducer producer = session.createProducer(session.createQueue(queueName));
        // fire-and-forget is enough: the consumers that look next are on this same connection, whose frames the
        // server handles in order
        producer.setDeliveryMode(DeliveryMode.NON_PERSISTENT);
        for (Consumer<Message> setter : propertySetters) {
            Message m = session.createMessage();
            setter.accept(m);
            producer.send(m);
        }
        session.close();
    }

    /** Receives exactly {@code count} messages through {@code selector}, checks no more match, returns their ids. */
    private static List<Integer> drain(Connection connection, String queueName, String selector, int count)
            throws JMSException {
        Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        try {
            MessageConsumer consumer = session.createConsumer(session.createQueue(queueName), selector);
            List<Integer> ids = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                ids.add(Receive.next(consumer).getIntProperty("id"));
            }
            Receive.nothingMore(consumer); // names the selector and the message it took too
            return ids;
        } finally {
            session.close();
        }
    }

    private static void setInt(Message m, String name, int value) {
        try {
            m.setIntProperty(name, value);
        } catch (JMSException e) {
            throw new IllegalStateException(e);
        }
    }
}
