package org.wharfmq.server.security;

import org.junit.jupiter.api.Test;
import org.wharfmq.server.config.ConfigurationException;

import java.time.Duration;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
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

    /**
     * A pattern of many {@code **} (a caller's, given to {@code display-queues} by a user with {@code monitor} only)
     * is matched in parts times name's parts steps: before, every split was tried for every {@code **}, and this one
     * took longer than the test allows (hours; the bound only ends a hang, it is never reached now).
     */
    @Test
    void aPatternOfManyDoubleStarsIsMatchedInPolynomialSteps() {
        DestinationPattern hostile = DestinationPattern.queue("**.".repeat(1000) + "NOPE");
        String name = "A.B.C.D.E.F.G.H.I.J.K.L.M.N.O.P.Q.R.S.T";
        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> assertFalse(hostile.matches(name)));
        assertTrue(DestinationPattern.queue("**.".repeat(1000) + "T").matches(name));
        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> assertFalse(DestinationPattern.path(
                "/" + "**/".repeat(1000) + "nope").matches("/flows" + "/x".repeat(1000))));
    }

    /** The one-pass matcher decides as trying every split does, over every small pattern and name of a, b, *, **. */
    @Test
    void theOnePassMatcherAgreesWithTryingEverySplit() {
        Random random = new Random(42);
        String[] pieces = {"a", "b", "*", "**"};
        for (int i = 0; i < 20_000; i++) {
            String[] pattern = new String[1 + random.nextInt(5)];
            for (int p = 0; p < pattern.length; p++) {
                pattern[p] = pieces[random.nextInt(pieces.length)];
            }
            String[] name = new String[1 + random.nextInt(6)];
            for (int n = 0; n < name.length; n++) {
                name[n] = random.nextBoolean() ? "a" : "b";
            }
            String text = String.join(".", pattern);
            String queue = String.join(".", name);
            assertEquals(everySplit(pattern, 0, name, 0), DestinationPattern.queue(text).matches(queue),
                    text + " against " + queue);
        }
    }

    /** The reference: every split of the name tried for every {@code **}. */
    private static boolean everySplit(String[] parts, int p, String[] name, int n) {
        if (p == parts.length) {
            return n == name.length;
        }
        if (parts[p].equals("**")) {
            for (int rest = n; rest <= name.length; rest++) {
                if (everySplit(parts, p + 1, name, rest)) {
                    return true;
                }
            }
            return false;
        }
        return n < name.length && (parts[p].equals("*") || parts[p].equals(name[n]))
                && everySplit(parts, p + 1, name, n + 1);
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
