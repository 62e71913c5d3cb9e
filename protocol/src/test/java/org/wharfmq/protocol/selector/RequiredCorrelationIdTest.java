package org.wharfmq.protocol.selector;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/** Which selectors let the server serve a consumer from the correlation-ID index. */
class RequiredCorrelationIdTest {

    private record Row(String selector, String expected) {
    }

    private static Row row(String selector, String expected) {
        return new Row(selector, expected);
    }

    @TestFactory
    Stream<DynamicTest> requiredCorrelationId() {
        return Stream.of(
                row("JMSCorrelationID = 'x'", "x"),
                row("'x' = JMSCorrelationID", "x"),
                row("(JMSCorrelationID = 'x')", "x"),
                row("JMSCorrelationID = 'it''s'", "it's"),
                row("JMSCorrelationID = ''", ""),
                row("JMSCorrelationID = 'x' AND color = 'red'", "x"),
                row("color = 'red' AND JMSCorrelationID = 'x'", "x"),
                row("color = 'red' AND size > 2 AND 'x' = JMSCorrelationID", "x"),
                row("(color = 'red' AND JMSCorrelationID = 'x') AND size > 2", "x"),
                row("JMSCorrelationID = 'x' OR color = 'red'", null),
                row("(JMSCorrelationID = 'x' AND a) OR b", null),
                row("NOT JMSCorrelationID = 'x'", null),
                row("JMSCorrelationID <> 'x'", null),
                row("JMSCorrelationID LIKE 'x'", null),
                row("JMSCorrelationID IN ('x')", null),
                row("JMSCorrelationID = other", null),
                row("JMSCorrelationID IS NOT NULL", null),
                row("JMSMessageID = 'x'", null),
                row("correlationID = 'x'", null),
                row("jmsCorrelationID = 'x'", null),
                row("color = 'red'", null),
                row("", null))
                .map(r -> DynamicTest.dynamicTest(r.selector() + " -> " + r.expected(),
                        () -> assertEquals(r.expected(), Selector.parse(r.selector()).requiredCorrelationId())));
    }
}
