package org.wharfmq.protocol.selector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/** Invalid selectors, each with the character position the error must point at. */
class SelectorParseErrorTest {

    private record Row(String selector, int position, String messageFragment) {
    }

    private static Row row(String selector, int position, String messageFragment) {
        return new Row(selector, position, messageFragment);
    }

    private static SelectorParseException parseFailure(String selector) {
        return assertThrows(SelectorParseException.class, () -> Selector.parse(selector), selector);
    }

    @TestFactory
    Stream<DynamicTest> invalidSelectors() {
        return Stream.of(
                // syntax
                row("(a = 1", 6, "Expected ')'"),
                row("((a = 1)", 8, "Expected ')'"),
                row("a = 1)", 5, "Unexpected ')'"),
                row("a = 1 b", 6, "Unexpected 'b'"),
                row("a = 1 AND", 9, "end of selector"),
                row("a = 'abc", 4, "Unterminated string"),
                row("'it''s", 0, "Unterminated string"),
                row("a == 1", 3, "Unexpected '='"),
                row("a != 1", 2, "Unexpected character '!'"),
                row("a @ b", 2, "Unexpected character '@'"),
                row("\u00A0a = 1", 0, "Unexpected character"),
                row("a = NULL", 4, "IS NULL"),
                row("a IS 1", 5, "Expected NULL"),
                row("a IS NOT 'x'", 9, "Expected NULL"),
                row("a NOT = 1", 6, "Expected BETWEEN, IN or LIKE"),
                row("a BETWEEN 1", 11, "Expected AND"),
                row("a BETWEEN 1 OR 2", 12, "Expected AND"),
                row("a IN 'x'", 5, "Expected '('"),
                row("a IN ('x' 'y')", 10, "Expected ',' or ')'"),
                row("a IN ('x',)", 10, "string literals"),
                row("a LIKE 'x' ESCAPE", 17, "ESCAPE must be followed"),
                row("i=5AND t", 2, "Invalid numeric literal"),
                row("a = 1e", 4, "exponent"),
                row("a = 0x", 4, "hexadecimal"),
                row("a = 09", 4, "octal"),
                row("a = 1.2.3", 4, "Invalid numeric literal"),
                row("a = 9223372036854775808", 4, "range"),
                row("a = 0x1FFFFFFFFFFFFFFFF", 4, "range"),
                row("a = 1e999", 4, "out of range"),
                // semantics
                row("JMSDestination = 'queue://x'", 0, "JMSDestination"),
                row("a = 1 AND JMSRedelivered = TRUE", 10, "JMSRedelivered"),
                row("JMSReplyTo IS NULL", 0, "JMSReplyTo"),
                row("JMSExpiration > 0", 0, "JMSExpiration"),
                row("JMSDeliveryTime > 0", 0, "JMSDeliveryTime"),
                row("a LIKE 5", 7, "pattern must be a string literal"),
                row("a LIKE b", 7, "pattern must be a string literal"),
                row("a LIKE 'a%' ESCAPE 'ab'", 19, "exactly one character"),
                row("a LIKE 'a%' ESCAPE ''", 19, "exactly one character"),
                row("a LIKE 'abc\\' ESCAPE '\\'", 7, "escape character"),
                row("5 LIKE '5'", 0, "identifier"),
                row("'x' IN ('x')", 0, "identifier"),
                row("(a + 1) IS NULL", 0, "identifier"),
                row("JMSPriority LIKE '4%'", 0, "requires a string"),
                row("JMSTimestamp IN ('1')", 0, "requires a string"),
                row("a IN ()", 6, "must not be empty"),
                row("a NOT IN ()", 10, "must not be empty"),
                row("a IN ('x', 1)", 11, "string literals"),
                row("'a' < 'b'", 0, "cannot be used as a number"),
                row("a < 'b'", 4, "cannot be used as a number"),
                row("TRUE >= a", 0, "cannot be used as a number"),
                row("'a' = 1", 4, "Cannot compare"),
                row("TRUE = 1", 5, "Cannot compare"),
                row("JMSType = 1", 8, "Cannot compare"),
                row("JMSDeliveryMode = 2", 16, "Cannot compare"),
                row("JMSPriority = '4'", 12, "Cannot compare"),
                row("'a' + 1 = 2", 0, "cannot be used as a number"),
                row("a = TRUE * 2", 4, "cannot be used as a number"),
                row("-'a' = a", 1, "cannot be used as a number"),
                row("a BETWEEN 'a' AND 'z'", 10, "cannot be used as a number"),
                row("(a > 1) + 1 = 2", 0, "cannot be used as a number"),
                row("3 + 4", 0, "must be a boolean expression"),
                row("'abc'", 0, "must be a boolean expression"),
                row("x + 1", 0, "must be a boolean expression"),
                row("JMSType", 0, "must be a boolean expression"),
                row("NOT 5", 4, "cannot be used as a condition"),
                row("a AND 'x'", 6, "cannot be used as a condition"),
                row("a = 1 OR 2", 9, "cannot be used as a condition"))
                .map(r -> DynamicTest.dynamicTest(r.selector(), () -> {
                    SelectorParseException e = parseFailure(r.selector());
                    assertEquals(r.position(), e.getPosition(), e.getMessage());
                    assertTrue(e.getMessage().contains(r.messageFragment()), e.getMessage());
                    assertTrue(e.getMessage().contains("\"" + r.selector() + "\""), e.getMessage());
                    assertTrue(e.getMessage().contains("position " + r.position()), e.getMessage());
                }));
    }

    @Test
    void deepParenthesesAreRejectedInsteadOfOverflowingTheStack() {
        String selector = "(".repeat(10_000) + "a" + ")".repeat(10_000);
        SelectorParseException e = parseFailure(selector);
        assertEquals(100, e.getPosition());
        assertTrue(e.getMessage().contains("too deeply nested"));
    }

    @Test
    void deepPrefixOperatorsAreRejectedInsteadOfOverflowingTheStack() {
        assertTrue(parseFailure("NOT ".repeat(10_000) + "a").getMessage().contains("too deeply nested"));
        assertTrue(parseFailure("-".repeat(10_000) + "a = 1").getMessage().contains("too deeply nested"));
    }

    @Test
    void overlongArithmeticChainIsRejected() {
        SelectorParseException e = parseFailure("a" + " + a".repeat(1_000) + " = 1");
        assertEquals(0, e.getPosition());
        assertTrue(e.getMessage().contains("too deeply nested"));
    }

    @Test
    void moderateNestingIsAccepted() throws SelectorParseException {
        String selector = "(".repeat(50) + "a = 1" + ")".repeat(50);
        assertTrue(Selector.parse(selector).matches(MapContext.of("a", 1)));
    }
}
