package org.wharfmq.protocol.selector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * The AND, OR and NOT truth tables of JMS 2.0 tables 3-4, 3-5 and 3-6, with UNKNOWN produced both by an absent
 * boolean property and by a comparison involving NULL.
 */
class ThreeValuedLogicTest {

    private static final MapContext MESSAGE = MapContext.of("t", true, "f", false, "n", 1);

    /** Operand spellings for each truth value: a property, and a comparison yielding it. */
    private static final Map<Truth, List<String>> OPERANDS = Map.of(
            Truth.TRUE, List.of("t", "n = 1"),
            Truth.FALSE, List.of("f", "n = 2"),
            Truth.UNKNOWN, List.of("u", "u = 1"));

    private static final Truth[] VALUES = Truth.values();

    private static Truth and(Truth a, Truth b) {
        if (a == Truth.FALSE || b == Truth.FALSE) {
            return Truth.FALSE;
        }
        return a == Truth.TRUE && b == Truth.TRUE ? Truth.TRUE : Truth.UNKNOWN;
    }

    private static Truth or(Truth a, Truth b) {
        if (a == Truth.TRUE || b == Truth.TRUE) {
            return Truth.TRUE;
        }
        return a == Truth.FALSE && b == Truth.FALSE ? Truth.FALSE : Truth.UNKNOWN;
    }

    @Test
    void referenceTablesMatchTheSpecification() {
        // guards the oracle itself: the spec's tables written out literally, row operand by column operand
        Truth[][] andTable = {
            {Truth.TRUE, Truth.FALSE, Truth.UNKNOWN},
            {Truth.FALSE, Truth.FALSE, Truth.FALSE},
            {Truth.UNKNOWN, Truth.FALSE, Truth.UNKNOWN}};
        Truth[][] orTable = {
            {Truth.TRUE, Truth.TRUE, Truth.TRUE},
            {Truth.TRUE, Truth.FALSE, Truth.UNKNOWN},
            {Truth.TRUE, Truth.UNKNOWN, Truth.UNKNOWN}};
        for (int i = 0; i < 3; i++) {
            for (int j = 0; j < 3; j++) {
                assertEquals(andTable[i][j], and(VALUES[i], VALUES[j]));
                assertEquals(orTable[i][j], or(VALUES[i], VALUES[j]));
            }
        }
    }

    @TestFactory
    Stream<DynamicTest> andTable() {
        return binary("AND", ThreeValuedLogicTest::and);
    }

    @TestFactory
    Stream<DynamicTest> orTable() {
        return binary("OR", ThreeValuedLogicTest::or);
    }

    private Stream<DynamicTest> binary(String operator, java.util.function.BinaryOperator<Truth> oracle) {
        List<DynamicTest> tests = new ArrayList<>();
        for (Truth a : VALUES) {
            for (Truth b : VALUES) {
                for (String left : OPERANDS.get(a)) {
                    for (String right : OPERANDS.get(b)) {
                        String selector = left + " " + operator + " " + right;
                        Truth expected = oracle.apply(a, b);
                        tests.add(DynamicTest.dynamicTest(selector + " -> " + expected,
                                () -> assertEquals(expected, Truth.of(selector, MESSAGE))));
                    }
                }
            }
        }
        return tests.stream();
    }

    @Test
    void notTableObservedDirectly() throws SelectorParseException {
        // asserted with matches() alone, since the Truth helper itself relies on NOT
        assertFalse(Selector.parse("NOT t").matches(MESSAGE));
        assertTrue(Selector.parse("NOT f").matches(MESSAGE));
        assertFalse(Selector.parse("NOT u").matches(MESSAGE));
        assertFalse(Selector.parse("NOT NOT u").matches(MESSAGE));
        assertFalse(Selector.parse("NOT (u = 1)").matches(MESSAGE));
        assertFalse(Selector.parse("u").matches(MESSAGE));
        assertTrue(Selector.parse("NOT NOT t").matches(MESSAGE));
    }

    @Test
    void longChainsMixingValues() {
        assertEquals(Truth.FALSE, Truth.of("t AND u AND f AND t", MESSAGE));
        assertEquals(Truth.UNKNOWN, Truth.of("t AND u AND t", MESSAGE));
        assertEquals(Truth.TRUE, Truth.of("f OR u OR t OR f", MESSAGE));
        assertEquals(Truth.UNKNOWN, Truth.of("f OR u OR f", MESSAGE));
        assertEquals(Truth.UNKNOWN, Truth.of("(t AND u) OR (f AND t)", MESSAGE));
        assertEquals(Truth.TRUE, Truth.of("(t AND u) OR NOT (f AND t)", MESSAGE));
    }
}
