package org.wharfmq.protocol.selector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.wharfmq.protocol.selector.Truth.FALSE;
import static org.wharfmq.protocol.selector.Truth.TRUE;
import static org.wharfmq.protocol.selector.Truth.UNKNOWN;

import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/** Table-driven evaluation of valid selectors against one message; each row names the expected truth value. */
class SelectorEvaluationTest {

    private static final MapContext MESSAGE = MapContext.of(
            "i", 5,
            "l", 10L,
            "b", (byte) 2,
            "s", (short) 3,
            "d", 2.5,
            "f", 1.5f,
            "f11", 1.1f,
            "zero", 0,
            "max", Long.MAX_VALUE,
            "nan", Double.NaN,
            "str", "hello",
            "str2", "world",
            "numstr", "5",
            "empty", "",
            "quote", "it's",
            "under", "a_b",
            "underx", "axb",
            "pct", "100%",
            "pct2", "1000",
            "bang", "a!b",
            "meta", "a.b*c[d]$e^f(g)+h?i{j}|k\\l",
            "dotted", "axb",
            "aaa", "aaa",
            "x", "x",
            "ch", 'c',
            "t", true,
            "f0", false,
            "JMSPriority", 4,
            "JMSTimestamp", 1500L,
            "JMSMessageID", "ID:1",
            "JMSCorrelationID", "corr",
            "JMSType", "order",
            "JMSDeliveryMode", "PERSISTENT",
            "JMSXDeliveryCount", 2,
            "JMS_wharf_route", "x");

    private record Row(String selector, Truth expected) {
    }

    private static Row row(String selector, Truth expected) {
        return new Row(selector, expected);
    }

    private static Stream<DynamicTest> table(Row... rows) {
        return Stream.of(rows).map(r -> DynamicTest.dynamicTest(r.selector() + " -> " + r.expected(),
                () -> assertEquals(r.expected(), Truth.of(r.selector(), MESSAGE), r.selector())));
    }

    @TestFactory
    Stream<DynamicTest> comparisonOperators() {
        return table(
                row("i = 5", TRUE), row("i = 6", FALSE),
                row("i <> 5", FALSE), row("i <> 6", TRUE),
                row("i > 4", TRUE), row("i > 5", FALSE),
                row("i >= 5", TRUE), row("i >= 6", FALSE),
                row("i < 6", TRUE), row("i < 5", FALSE),
                row("i <= 5", TRUE), row("i <= 4", FALSE),
                row("l = 10", TRUE), row("b = 2", TRUE), row("s = 3", TRUE),
                row("d = 2.5", TRUE), row("f = 1.5", TRUE),
                row("i = 5.0", TRUE), row("d > i", FALSE), row("d < i", TRUE),
                row("str = 'hello'", TRUE), row("str = 'Hello'", FALSE), row("str <> 'hello'", FALSE),
                row("str <> 'world'", TRUE), row("str = str2", FALSE),
                row("empty = ''", TRUE), row("quote = 'it''s'", TRUE),
                row("t = TRUE", TRUE), row("t <> FALSE", TRUE), row("f0 = FALSE", TRUE), row("t = f0", FALSE),
                row("(i > 1) = TRUE", TRUE), row("(i > 1) = (l > 100)", FALSE));
    }

    @TestFactory
    Stream<DynamicTest> unlikeTypesCompareFalse() {
        return table(
                row("numstr = 5", FALSE), row("numstr <> 5", FALSE), row("NOT (numstr = 5)", TRUE),
                row("i = '5'", FALSE), row("i <> '5'", FALSE),
                row("t = 1", FALSE), row("i = TRUE", FALSE),
                row("str > str2", FALSE), row("str < str2", FALSE), row("t > f0", FALSE),
                row("ch = 'c'", FALSE), row("ch IS NULL", FALSE),
                row("nan = nan", FALSE), row("nan <> nan", TRUE), row("nan > 0", FALSE));
    }

    @TestFactory
    Stream<DynamicTest> arithmetic() {
        return table(
                row("i + l * 2 = 25", TRUE), row("(i + l) * 2 = 30", TRUE),
                row("i - l - 1 = -6", TRUE), row("l / 5 / 2 = 1", TRUE),
                row("i / 2 = 2", TRUE), row("i / 2.0 = 2.5", TRUE), row("i * 1.0 / 2 = 2.5", TRUE),
                row("-i = -5", TRUE), row("- -i = 5", TRUE), row("+i = 5", TRUE), row("-d = -2.5", TRUE),
                row("i * -1 = -5", TRUE), row("-(i + 1) = -6", TRUE), row("i - -1 = 6", TRUE),
                row("b * s = 6", TRUE), row("b + f = 3.5", TRUE), row("s / b = 1", TRUE), row("s / b = 1.5", FALSE),
                row("f11 = 1.1", FALSE), row("f11 = 1.1F", TRUE),
                row("i / zero = 1", UNKNOWN), row("i / 0 <> 1", UNKNOWN), row("i / 0 = i / 0", UNKNOWN),
                row("d / zero > 1000000", TRUE), row("i / 0.0 > 1000000", TRUE), row("zero / 0.0 = zero / 0.0", FALSE),
                row("max + 1 < 0", TRUE), row("max + 1 = -9223372036854775808", TRUE),
                row("l * 1000000000000000000 < 0", TRUE),
                row("str + 1 = 1", UNKNOWN), row("-str = 1", UNKNOWN), row("+t = 1", UNKNOWN));
    }

    @TestFactory
    Stream<DynamicTest> numericLiteralForms() {
        return table(
                row("i = 0x5", TRUE), row("l = 0XA", TRUE), row("l = 012", TRUE), row("l = 10L", TRUE),
                row("l = 10l", TRUE), row("d = 25e-1", TRUE), row("d = .25E1", TRUE), row("d = 2.5D", TRUE),
                row("i = 5.", TRUE), row("-i = -0x5", TRUE), row("max = 9223372036854775807", TRUE),
                row("-max - 1 = -9223372036854775808", TRUE), row("l = 1e1", TRUE), row("d = 2.5f", TRUE));
    }

    @TestFactory
    Stream<DynamicTest> like() {
        return table(
                row("str LIKE 'h%'", TRUE), row("str LIKE '%o'", TRUE), row("str LIKE '%ell%'", TRUE),
                row("str LIKE 'hello'", TRUE), row("str LIKE 'hell'", FALSE), row("str LIKE '%'", TRUE),
                row("str LIKE 'h_llo'", TRUE), row("str LIKE 'h_lo'", FALSE), row("str LIKE '_____'", TRUE),
                row("str LIKE '______'", FALSE), row("str LIKE 'h%l_o'", TRUE), row("str LIKE 'H%'", FALSE),
                row("str LIKE '%x%'", FALSE), row("empty LIKE '%'", TRUE), row("empty LIKE '_'", FALSE),
                row("quote LIKE '%''%'", TRUE),
                row("under LIKE 'a\\_%' ESCAPE '\\'", TRUE), row("underx LIKE 'a\\_%' ESCAPE '\\'", FALSE),
                row("underx LIKE 'a_%'", TRUE),
                row("pct LIKE '100!%' ESCAPE '!'", TRUE), row("pct2 LIKE '100!%' ESCAPE '!'", FALSE),
                row("bang LIKE 'a!!b' ESCAPE '!'", TRUE), row("bang LIKE 'a!_' ESCAPE '!'", FALSE),
                row("meta LIKE 'a.b*c[d]$e^f(g)+h?i{j}|k\\l'", TRUE),
                row("dotted LIKE 'a.b'", FALSE), row("aaa LIKE 'a*'", FALSE), row("x LIKE '[xy]'", FALSE),
                row("x LIKE 'x$'", FALSE), row("x LIKE '^x'", FALSE), row("aaa LIKE 'a+'", FALSE),
                row("str NOT LIKE 'h%'", FALSE), row("str NOT LIKE 'x%'", TRUE),
                row("missing LIKE 'x'", UNKNOWN), row("missing NOT LIKE 'x'", UNKNOWN),
                row("i LIKE '5'", FALSE), row("i NOT LIKE '5'", FALSE),
                row("JMSType LIKE 'ord%'", TRUE));
    }

    @TestFactory
    Stream<DynamicTest> between() {
        return table(
                row("i BETWEEN 5 AND 10", TRUE), row("i BETWEEN 1 AND 5", TRUE), row("i BETWEEN 6 AND 10", FALSE),
                row("i BETWEEN 1 AND 4", FALSE), row("i BETWEEN 10 AND 1", FALSE),
                row("i NOT BETWEEN 5 AND 10", FALSE), row("i NOT BETWEEN 1 AND 5", FALSE),
                row("i NOT BETWEEN 6 AND 10", TRUE), row("i NOT BETWEEN 1 AND 4", TRUE),
                row("d BETWEEN 2 AND 3", TRUE), row("i BETWEEN 4.5 AND 5.5", TRUE), row("i BETWEEN 5.0 AND 5.0", TRUE),
                row("d BETWEEN 2.5 AND 2.5", TRUE), row("d BETWEEN 2.6 AND 3", FALSE), row("d BETWEEN 1 AND i", TRUE),
                row("i + 1 BETWEEN 2 * 3 AND 6", TRUE), row("-i BETWEEN -5 AND -5", TRUE),
                row("i BETWEEN 1 AND 10 AND t", TRUE), row("i BETWEEN 1 AND 10 AND f0", FALSE),
                row("missing BETWEEN 1 AND 2", UNKNOWN), row("missing NOT BETWEEN 1 AND 2", UNKNOWN),
                row("i BETWEEN missing AND 3", FALSE), row("i BETWEEN missing AND 10", UNKNOWN),
                row("i NOT BETWEEN missing AND 3", TRUE), row("i NOT BETWEEN missing AND 10", UNKNOWN),
                row("str BETWEEN 1 AND 10", FALSE), row("str NOT BETWEEN 1 AND 10", FALSE),
                row("JMSTimestamp BETWEEN 1000 AND 2000", TRUE));
    }

    @TestFactory
    Stream<DynamicTest> in() {
        return table(
                row("str IN ('hello', 'world')", TRUE), row("str IN ('world')", FALSE), row("str IN ('HELLO')", FALSE),
                row("str NOT IN ('world')", TRUE), row("str NOT IN ('hello', 'x')", FALSE),
                row("quote IN ('it''s')", TRUE), row("empty IN ('')", TRUE),
                row("missing IN ('a')", UNKNOWN), row("missing NOT IN ('a')", UNKNOWN),
                row("i IN ('5')", FALSE), row("i NOT IN ('5')", FALSE),
                row("JMSCorrelationID IN ('a', 'corr')", TRUE));
    }

    @TestFactory
    Stream<DynamicTest> isNull() {
        return table(
                row("missing IS NULL", TRUE), row("missing IS NOT NULL", FALSE),
                row("str IS NULL", FALSE), row("str IS NOT NULL", TRUE), row("empty IS NULL", FALSE),
                row("f0 IS NOT NULL", TRUE), row("NOT missing IS NULL", FALSE));
    }

    @TestFactory
    Stream<DynamicTest> nullsAreUnknown() {
        return table(
                row("missing = 1", UNKNOWN), row("missing <> 1", UNKNOWN), row("missing > 1", UNKNOWN),
                row("missing = 'a'", UNKNOWN), row("missing = missing", UNKNOWN), row("str = missing", UNKNOWN),
                row("missing + 1 = 1", UNKNOWN), row("-missing = 1", UNKNOWN), row("i * missing > 0", UNKNOWN),
                row("I = 5", UNKNOWN), row("Str = 'hello'", UNKNOWN));
    }

    @TestFactory
    Stream<DynamicTest> precedenceAndParentheses() {
        return table(
                row("t OR f0 AND f0", TRUE), row("(t OR f0) AND f0", FALSE),
                row("f0 AND f0 OR t", TRUE), row("f0 AND (f0 OR t)", FALSE),
                row("NOT f0 AND f0", FALSE), row("NOT (f0 AND f0)", TRUE),
                row("NOT t OR t", TRUE), row("NOT (t OR t)", FALSE),
                row("NOT i = 6", TRUE), row("NOT NOT t", TRUE),
                row("i = 5 AND l = 10 OR i = 6 AND l = 11", TRUE), row("i = 5 AND (l = 11 OR i = 6) AND l = 10", FALSE),
                row("((((i = 5))))", TRUE), row("(i) = 5", TRUE), row("(((t)))", TRUE), row("2 + 3 * 4 = 14", TRUE),
                row("(2 + 3) * 4 = 20", TRUE), row("10 - 4 - 3 = 3", TRUE), row("12 / 2 * 3 = 18", TRUE));
    }

    @TestFactory
    Stream<DynamicTest> bareIdentifiersAndBooleanLiterals() {
        return table(
                row("t", TRUE), row("f0", FALSE), row("missing", UNKNOWN), row("str", UNKNOWN), row("i", UNKNOWN),
                row("TRUE", TRUE), row("FALSE", FALSE), row("t = TRUE AND TRUE", TRUE), row("t AND str", UNKNOWN),
                row("f0 AND str", FALSE), row("t OR str", TRUE));
    }

    @TestFactory
    Stream<DynamicTest> headers() {
        return table(
                row("JMSPriority > 3", TRUE), row("JMSPriority BETWEEN 0 AND 3", FALSE),
                row("JMSDeliveryMode = 'PERSISTENT'", TRUE), row("JMSDeliveryMode = 'NON_PERSISTENT'", FALSE),
                row("JMSMessageID = 'ID:1'", TRUE), row("JMSTimestamp > 1000", TRUE),
                row("JMSCorrelationID = 'corr'", TRUE), row("JMSType = 'order'", TRUE),
                row("JMSXDeliveryCount > 1", TRUE), row("JMS_wharf_route = 'x'", TRUE),
                row("JMSXGroupID IS NULL", TRUE));
    }

    @TestFactory
    Stream<DynamicTest> keywordsAreCaseInsensitive() {
        return table(
                row("str like 'h%' and i between 1 and 10", TRUE), row("i Between 6 aNd 10 oR t", TRUE),
                row("str not in ('a')", TRUE), row("missing is null", TRUE), row("str iS nOt NuLl", TRUE),
                row("t = true", TRUE), row("f0 = False", TRUE), row("not f0", TRUE),
                row("under like 'a!_b' escape '!'", TRUE), row("str NoT LiKe 'x%'", TRUE));
    }

    @TestFactory
    Stream<DynamicTest> whitespace() {
        return table(
                row("i\t=\n5\r\fAND\r\nt", TRUE), row("  i=5  ", TRUE), row("i=5 AND(t)", TRUE),
                row("str IN('hello')", TRUE), row("i>=5", TRUE), row("i<>4", TRUE));
    }
}
