package org.wharfmq.protocol.selector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

/** The public surface of {@link Selector}: empty selectors, text, and evaluation cost. */
class SelectorApiTest {

    @Test
    void nullAndBlankSelectorsMatchEverything() throws SelectorParseException {
        for (String text : new String[] {null, "", " ", "\t\r\n\f"}) {
            Selector selector = Selector.parse(text);
            assertSame(Selector.ALL_MATCH, selector);
            assertTrue(selector.matchesAll());
            assertTrue(selector.matches(MapContext.of()));
            assertEquals("", selector.text());
            assertEquals(null, selector.requiredCorrelationId());
        }
    }

    @Test
    void textAndToStringReturnTheOriginal() throws SelectorParseException {
        String text = "  color = 'red'  AND size > 2 ";
        Selector selector = Selector.parse(text);
        assertEquals(text, selector.text());
        assertEquals(text, selector.toString());
        assertFalse(selector.matchesAll());
    }

    @Test
    void constantTrueSelectorIsNotTheEmptySelector() throws SelectorParseException {
        Selector selector = Selector.parse("TRUE");
        assertFalse(selector.matchesAll());
        assertTrue(selector.matches(MapContext.of()));
    }

    @Test
    void matchingReadsEachIdentifierFromTheContext() throws SelectorParseException {
        Selector selector = Selector.parse("JMSPriority >= 5 AND region = 'eu'");
        assertTrue(selector.matches(MapContext.of("JMSPriority", 7, "region", "eu")));
        assertFalse(selector.matches(MapContext.of("JMSPriority", 4, "region", "eu")));
        assertFalse(selector.matches(MapContext.of("JMSPriority", 7, "region", "us")));
        assertFalse(selector.matches(MapContext.of("region", "eu")));
    }

    @Test
    void longGeneratedOrChainEvaluatesWithoutDeepRecursion() throws SelectorParseException {
        StringBuilder text = new StringBuilder("id = 0");
        for (int i = 1; i < 20_000; i++) {
            text.append(" OR id = ").append(i);
        }
        Selector selector = Selector.parse(text.toString());
        assertTrue(selector.matches(MapContext.of("id", 19_999)));
        assertFalse(selector.matches(MapContext.of("id", 20_000)));
    }

    @Test
    void evaluationWithoutArithmeticDoesNotAllocate() throws SelectorParseException {
        assumeTrue(ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean);
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        assumeTrue(threads.isThreadAllocatedMemorySupported() && threads.isThreadAllocatedMemoryEnabled());
        Selector selector = Selector.parse("JMSPriority > 3 AND color IN ('red', 'blue') AND name LIKE 'a%b_c' "
                + "AND size BETWEEN 1 AND 10.5 AND NOT (missing IS NOT NULL) AND (flag OR JMSType <> 'x')");
        MapContext message = MapContext.of("JMSPriority", 4, "color", "blue", "name", "axxbyc", "size", 3L,
                "flag", false, "JMSType", "y");
        int iterations = 100_000;
        boolean all = true;
        for (int i = 0; i < iterations; i++) {
            all &= selector.matches(message);
        }
        long thread = Thread.currentThread().getId();
        long before = threads.getThreadAllocatedBytes(thread);
        for (int i = 0; i < iterations; i++) {
            all &= selector.matches(message);
        }
        long allocated = threads.getThreadAllocatedBytes(thread) - before;
        assertTrue(all);
        // a single allocated object per call would be at least 16 bytes, i.e. 1.6 MB over the loop
        assertTrue(allocated < iterations, () -> allocated + " bytes allocated over " + iterations + " calls");
    }
}
