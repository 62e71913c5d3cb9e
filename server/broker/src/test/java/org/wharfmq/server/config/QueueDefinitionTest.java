package org.wharfmq.server.config;

import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A queue's settings read from text (an administrator's, a line of queues.def) through {@link QueueConfiguration}'s
 * declarations: every key round-trips, {@code default} puts one back, and what is wrong is refused naming it.
 */
class QueueDefinitionTest {

    @Test
    void everyKeyRoundTripsThroughItsText() {
        Map<String, String> every = QueueKeys.every();
        QueueDefinition queue = QueueDefinition.read("EVERY", every, "the test");
        assertEquals(every, queue.attributes(), "each key as config/wharf.yaml writes it, in declaration order");
        assertEquals(queue, QueueDefinition.read("EVERY", queue.attributes(), "the test"));
        assertEquals(40L, queue.get(QueueConfiguration.MAX_DEPTH));
        assertEquals(3, queue.get(QueueConfiguration.BACKOUT_THRESHOLD));
        assertTrue(queue.transmission() && queue.publishesFullEvents());
        assertEquals("EVERY", queue.shown().get("name"));
        assertEquals(65_536L, queue.shown().get("maxBytes"), "shown as a number, as display queue's JSON has it");
    }

    @Test
    void anAlterationChangesTheKeysItGivesAndDefaultPutsOneBack() {
        QueueDefinition queue = QueueDefinition.read("EVERY", QueueKeys.every(), "the test");
        Map<String, String> changes = new LinkedHashMap<>();
        changes.put("maxDepth", "41");
        changes.put("backoutQueue", "default");
        changes.put("usage", "normal");
        changes.put("policy", "");
        QueueDefinition altered = queue.alteredBy(changes, "the test");
        assertEquals(41L, altered.get(QueueConfiguration.MAX_DEPTH));
        assertNull(altered.get(QueueConfiguration.BACKOUT_QUEUE), "default: the dead-letter queue");
        assertNull(altered.get(QueueConfiguration.POLICY), "empty: the server-wide memoryPolicy");
        assertFalse(altered.transmission(), "normal: an ordinary queue");
        assertEquals(3, altered.get(QueueConfiguration.BACKOUT_THRESHOLD), "a key left out stays");
        assertEquals(QueueDefinition.named("EVERY"), queue.alteredBy(Map.of("maxDepth", "default", "maxBytes",
                "default", "policy", "default", "maxPageBytes", "default", "pageFullPolicy", "default",
                "backoutThreshold", "default", "backoutQueue", "default", "depthHighEvent", "default", "depthLowEvent",
                "default", "fullEvent", "default"), "the test").alteredBy(Map.of("usage", "default"), "the test"));
    }

    @Test
    void aWrongKeyOrValueIsRefusedNamingItTheQueueAndWhereItCameFrom() {
        String source = "the command 'alter queue ORDERS'";
        QueueDefinition queue = QueueDefinition.named("ORDERS");
        assertEquals("Setting maxDepth of queue 'ORDERS' must be at least 1, was 0. (in " + source + ")",
                refused(() -> queue.alteredBy(Map.of("maxDepth", "0"), source)));
        assertEquals("Invalid value for setting 'maxDepth' in " + source + ": 'lots' is not a whole number.",
                refused(() -> queue.alteredBy(Map.of("maxDepth", "lots"), source)));
        assertTrue(refused(() -> queue.alteredBy(Map.of("colour", "default"), source)).startsWith(
                "Unknown setting 'colour' in " + source + ". Known settings here: "), "default of no key is no key");
        assertEquals("Setting usage of queue 'ORDERS' must be transmission or normal (an ordinary queue), was xmitq."
                + " (in " + source + ")", refused(() -> queue.alteredBy(Map.of("usage", "xmitq"), source)));
        assertEquals("'name' is not a setting of " + source + ": the queue is the one it names.",
                refused(() -> queue.alteredBy(Map.of("name", "OTHER"), source)));
    }

    private static String refused(org.junit.jupiter.api.function.Executable change) {
        return assertThrows(ConfigurationException.class, change).getMessage();
    }
}
