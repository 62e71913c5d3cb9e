package org.wharfmq.server.transport;

import io.netty.util.ResourceLeakDetector;
import org.junit.jupiter.api.Test;
import org.wharfmq.server.TestServer;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * The server runs without Netty's leak detector unless the JVM is given a level: a queue manager's start turns it off,
 * and keeps a level given.
 */
class LeakDetectionTest {

    @Test
    void offUnlessOneOfNettysPropertiesGivesALevel() {
        assertEquals(ResourceLeakDetector.Level.DISABLED, LeakDetection.chosen(p -> null));
        assertNull(LeakDetection.chosen(Map.of(LeakDetection.LEVEL, "advanced")::get), "the level given stands");
        assertNull(LeakDetection.chosen(Map.of("io.netty.leakDetectionLevel", "paranoid")::get), "its older name");
        assertNull(LeakDetection.chosen(Map.of("io.netty.noResourceLeakDetection", "false")::get));
    }

    /** What a queue manager's start does to the JVM's level, without the property and with it. */
    @Test
    void aQueueManagersStartTurnsTheDetectorOffUnlessTheJvmWasGivenALevel() throws Exception {
        String given = System.clearProperty(LeakDetection.LEVEL); // the build's test JVMs are given one
        ResourceLeakDetector.Level before = ResourceLeakDetector.getLevel();
        try {
            ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.SIMPLE); // Netty's own default
            try (TestServer server = TestServer.start(c -> c)) {
                assertEquals(ResourceLeakDetector.Level.DISABLED, ResourceLeakDetector.getLevel(), "no level given");
            }
            System.setProperty(LeakDetection.LEVEL, "advanced");
            ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.ADVANCED); // as Netty read it at its start
            try (TestServer server = TestServer.start(c -> c)) {
                assertEquals(ResourceLeakDetector.Level.ADVANCED, ResourceLeakDetector.getLevel(), "a level given");
            }
        } finally {
            if (given == null) {
                System.clearProperty(LeakDetection.LEVEL);
            } else {
                System.setProperty(LeakDetection.LEVEL, given);
            }
            ResourceLeakDetector.setLevel(before);
        }
    }
}
