package org.wharfmq.server.topic;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.wharfmq.server.WharfException;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The topic tree's matching rules (IBM MQ topic strings) and its cost, counted in nodes visited. */
class TopicTreeTest {

    @ParameterizedTest(name = "{0} vs {1} -> {2}")
    @CsvSource({
            "a/b/c, a/b/c, true",
            "a/b/c, a/b, false",
            "a/b, a/b/c, false",
            "a/+/c, a/b/c, true",
            "a/+/c, a/x/c, true",
            "a/+/c, a/b/d, false",
            "a/+/c, a/b/x/c, false",
            "a/+, a, false",
            "+, a, true",
            "+, a/b, false",
            "+/+, a/b, true",
            "a/#, a, true",
            "a/#, a/b, true",
            "a/#, a/b/c/d, true",
            "a/#, b/a, false",
            "#, a, true",
            "#, a/b/c, true",
            "a/b/#, a/b, true",
            "a/b/#, a/bc, false",
            "a/+/#, a, false",
            "a/+/#, a/b, true",
            "a/+/#, a/b/c/d, true",
            "+/b/#, x/b/y, true",
            "A/b, a/b, false",
    })
    void matchingTable(String filter, String topic, boolean expected) {
        TopicNames.checkFilter(filter);
        TopicTree<String> tree = new TopicTree<>();
        tree.add(filter, "s");
        List<String> out = new ArrayList<>();
        tree.match(topic, out);
        assertEquals(expected, out.contains("s"), "tree: " + filter + " vs " + topic);
        assertEquals(expected, TopicNames.matches(filter, topic), "TopicNames.matches: " + filter + " vs " + topic);
        assertEquals(expected ? 1 : 0, out.size(), "each subscription matches at most once");
    }

    @Test
    void everyMatchingFilterIsFoundOnce() {
        TopicTree<String> tree = new TopicTree<>();
        for (String f : List.of("a/b/c", "a/+/c", "a/#", "#", "+/b/+", "a/b/#", "a/b", "x/#")) {
            tree.add(f, f);
        }
        List<String> out = new ArrayList<>();
        tree.match("a/b/c", out);
        out.sort(null);
        assertEquals(List.of("#", "+/b/+", "a/#", "a/+/c", "a/b/#", "a/b/c"), out);
    }

    @Test
    void removeTakesOutOnlyThatEntryAndPrunesEmptyNodes() {
        TopicTree<String> tree = new TopicTree<>();
        tree.add("a/+/c", "one");
        tree.add("a/+/c", "two");
        assertTrue(tree.remove("a/+/c", "one"));
        assertEquals(false, tree.remove("a/+/c", "one"));
        List<String> out = new ArrayList<>();
        tree.match("a/b/c", out);
        assertEquals(List.of("two"), out);
        assertTrue(tree.remove("a/+/c", "two"));
        long before = tree.visits();
        tree.match("a/b/c", out = new ArrayList<>());
        assertEquals(List.of(), out);
        assertEquals(1, tree.visits() - before, "only the root is left to visit");
    }

    @Test
    void tenThousandNonMatchingSubscriptionsDoNotAddToTheCostOfAMatchingPublish() {
        TopicTree<String> tree = new TopicTree<>();
        tree.add("prices/fx/GBP", "wanted");
        tree.add("prices/+/GBP", "wanted-wildcard");
        List<String> out = new ArrayList<>();
        long before = tree.visits();
        tree.match("prices/fx/GBP", out);
        long alone = tree.visits() - before;

        for (int i = 0; i < 10_000; i++) { // other topics, and siblings at every level of the matching one
            tree.add("orders/region" + i + "/new", "o" + i);
            tree.add("prices/fx/CCY" + i, "c" + i);
            tree.add("prices/equity" + i + "/#", "e" + i);
        }
        out.clear();
        before = tree.visits();
        tree.match("prices/fx/GBP", out);
        long crowded = tree.visits() - before;

        out.sort(null);
        assertEquals(List.of("wanted", "wanted-wildcard"), out);
        assertEquals(alone, crowded, "nodes visited must not grow with 30,000 non-matching subscriptions");
        assertTrue(crowded <= 10, "a 3-level topic with 2 matches visits a handful of nodes, not " + crowded);
    }

    @ParameterizedTest
    @CsvSource({"a/b+", "a/#/b", "a#", "''"})
    void badFiltersAreRefusedWithTheRule(String filter) {
        WharfException e = assertThrows(WharfException.class, () -> TopicNames.checkFilter(filter));
        assertTrue(e.getMessage().contains("'" + filter + "'") || filter.isEmpty(), e.getMessage());
    }

    @ParameterizedTest
    @CsvSource({"a/+", "#", "a/b#"})
    void publishingToAWildcardIsRefused(String topic) {
        WharfException e = assertThrows(WharfException.class, () -> TopicNames.checkTopic(topic));
        assertTrue(e.getMessage().contains("wildcard"), e.getMessage());
    }

    /** As MQTT's and IBM MQ's $SYS: a wildcard first level does not match the queue manager's own topics. */
    @Test
    void aWildcardFirstLevelDoesNotMatchTheQueueManagersOwnTopics() {
        TopicTree<String> tree = new TopicTree<>();
        for (String f : List.of("#", "+/EVENTS/#", "$SYS/#", "$SYS/EVENTS/QUEUE/+", "$SYS/+/QUEUE/FULL")) {
            tree.add(f, f);
        }
        List<String> found = new ArrayList<>();
        tree.match("$SYS/EVENTS/QUEUE/FULL", found);
        assertEquals(Set.of("$SYS/#", "$SYS/EVENTS/QUEUE/+", "$SYS/+/QUEUE/FULL"), Set.copyOf(found));
        found.clear();
        tree.match("prices/EVENTS/x", found);
        assertEquals(Set.of("#", "+/EVENTS/#"), Set.copyOf(found), "other topics as before");
    }
}
