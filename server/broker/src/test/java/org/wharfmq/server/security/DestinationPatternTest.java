package org.wharfmq.server.security;

import org.junit.jupiter.api.Test;
import org.wharfmq.server.config.ConfigurationException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DestinationPatternTest {

    @Test
    void aQueuePatternsStarIsOnePartAndDoubleStarAnyNumber() {
        DestinationPattern one = DestinationPattern.queue("ORDERS.*");
        assertTrue(one.matches("ORDERS.EU"));
        assertFalse(one.matches("ORDERS"));
        assertFalse(one.matches("ORDERS.EU.LATE"));
        assertFalse(one.matches("ORDERSX.EU"));

        DestinationPattern any = DestinationPattern.queue("ORDERS.**");
        assertTrue(any.matches("ORDERS"));
        assertTrue(any.matches("ORDERS.EU"));
        assertTrue(any.matches("ORDERS.EU.LATE"));
        assertFalse(any.matches("PAYROLL"));
        assertFalse(any.matches("ORDERSX"));

        DestinationPattern middle = DestinationPattern.queue("A.**.Z");
        assertTrue(middle.matches("A.Z"));
        assertTrue(middle.matches("A.B.C.Z"));
        assertFalse(middle.matches("A.B.C"));

        assertTrue(DestinationPattern.queue("**").matches("ANY.QUEUE.AT.ALL"));
        assertTrue(DestinationPattern.queue("PAYROLL").matches("PAYROLL"));
        assertFalse(DestinationPattern.queue("PAYROLL").matches("PAYROLL.X"));
    }

    @Test
    void aPathPatternsStarIsOneSegmentAndDoubleStarAnyNumber() {
        DestinationPattern any = DestinationPattern.path("/flows/**");
        assertTrue(any.matches("/flows/orders"));
        assertTrue(any.matches("/flows/orders/eu"));
        assertFalse(any.matches("/flowsx/orders"));
        assertFalse(any.matches("/metrics"));
        DestinationPattern one = DestinationPattern.path("/flows/*");
        assertTrue(one.matches("/flows/orders"));
        assertFalse(one.matches("/flows/orders/eu"));
        assertTrue(DestinationPattern.path("/flows/echo").matches("/flows/echo"));
        assertFalse(DestinationPattern.path("/flows/echo").matches("/flows/echo/x"));
        assertThrows(ConfigurationException.class, () -> DestinationPattern.path("flows/x"));
        assertThrows(ConfigurationException.class, () -> DestinationPattern.path("/flows/x*"));
    }

    @Test
    void aTopicPatternTakesInATopicOrAFilterOnlyWhenEveryTopicTheFilterMatchesIsItsOwn() {
        DestinationPattern prices = DestinationPattern.topic("prices/#");
        assertTrue(prices.matches("prices"));
        assertTrue(prices.matches("prices/fx/GBP"));
        assertTrue(prices.matches("prices/+/GBP"));
        assertTrue(prices.matches("prices/#"));
        assertFalse(prices.matches("#"), "# matches every topic, not only prices'");
        assertFalse(prices.matches("+/fx"), "+ matches other first levels than prices");
        assertFalse(prices.matches("news"));

        DestinationPattern fx = DestinationPattern.topic("prices/+/GBP");
        assertTrue(fx.matches("prices/fx/GBP"));
        assertTrue(fx.matches("prices/+/GBP"));
        assertFalse(fx.matches("prices/fx/EUR"));
        assertFalse(fx.matches("prices/fx/GBP/spot"));
        assertFalse(fx.matches("prices/#"));
        assertFalse(fx.matches("prices/fx/+"));

        DestinationPattern exact = DestinationPattern.topic("news");
        assertTrue(exact.matches("news"));
        assertFalse(exact.matches("news/#"), "news/# also matches news/sport");
    }

    @Test
    void aWildcardInsideANameIsRefusedWithTheRule() {
        ConfigurationException queue = assertThrows(ConfigurationException.class, () -> DestinationPattern.queue("ORD*"));
        assertEquals("Queue pattern 'ORD*': a wildcard (* or **) must be a whole dot-separated part, as in ORDERS.* "
                + "or ORDERS.**.", queue.getMessage());
        assertThrows(ConfigurationException.class, () -> DestinationPattern.topic("prices/#/GBP"));
        assertThrows(ConfigurationException.class, () -> DestinationPattern.topic("pri+ces"));
        assertThrows(ConfigurationException.class, () -> DestinationPattern.queue(""));
    }

    @Test
    void onlyAPatternThatNamesSysTakesInTheQueueManagersOwnTopics() {
        assertFalse(DestinationPattern.topic("#").matches("$SYS/EVENTS/QUEUE/FULL"));
        assertFalse(DestinationPattern.topic("#").matches("$SYS/EVENTS/#"));
        assertFalse(DestinationPattern.topic("+/EVENTS/#").matches("$SYS/EVENTS/QUEUE/FULL"));
        assertTrue(DestinationPattern.topic("$SYS/#").matches("$SYS/EVENTS/#"));
        assertTrue(DestinationPattern.topic("$SYS/EVENTS/QUEUE/+").matches("$SYS/EVENTS/QUEUE/DEPTH_HIGH"));
        assertTrue(DestinationPattern.topic("#").matches("prices/fx"), "other topics as before");
    }
}
