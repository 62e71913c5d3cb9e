package org.wharfmq.server.queue;

import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.message.MessageHeaders;
import org.wharfmq.protocol.message.WireMessage;
import org.wharfmq.protocol.selector.Selector;
import org.wharfmq.server.TestMessages;
import org.wharfmq.server.WharfException;
import org.wharfmq.server.config.ConfigurationException;
import org.wharfmq.server.config.MemoryPolicy;
import org.wharfmq.server.config.QueueConfiguration;
import org.wharfmq.server.config.QueueDefinition;
import org.wharfmq.server.config.ServerConfig;
import org.wharfmq.server.store.InMemoryMessageStore;
import org.wharfmq.server.store.QueueDefinitionFile;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the management view asks of the queues: their counters, queues defined, altered and deleted at run time and
 * kept across a restart of the queue manager (a new {@link QueueManager} on the same data directory), and the
 * waiting messages an administrator takes off a queue.
 */
class QueueAdministrationTest {

    /** The JMSTimestamp of the first message put; each next one is a millisecond later. */
    private static final long SENT_AT = 1_700_000_000_000L;

    @TempDir
    Path data;
    private long sent;
    private final InMemoryMessageStore store = new InMemoryMessageStore();
    private final List<QueueManager> opened = new ArrayList<>();

    @AfterEach
    void close() {
        opened.forEach(QueueManager::close);
    }

    private QueueManager start(ServerConfig.Builder config) {
        QueueManager queues = new QueueManager(config.build(), store, InstantSource.system(),
                QueueDefinitionFile.in(data));
        opened.add(queues);
        return queues;
    }

    @Test
    void countersCountWhatArrivedLeftAndExpiredWithoutALockOfTheirOwn() {
        QueueManager queues = start(ServerConfig.builder());
        LocalQueue queue = queues.queue("COUNTED");
        put(queue, "a", 0);
        put(queue, "b", 0);
        put(queue, "stale", 1); // expired long ago: discarded when offered
        RecordingConsumer consumer = new RecordingConsumer(null, 1);
        queue.addConsumer(consumer);
        queue.acknowledge(consumer.received.get(0));

        QueueSnapshot s = queue.snapshot();
        assertEquals(3, s.enqueued());
        assertEquals(1, s.dequeued());
        assertEquals(1, s.expired());
        assertEquals(1, s.depth(), "b waits");
        assertEquals(1, s.consumers());
        assertEquals(SENT_AT + 1, s.oldestTimestamp(), "the JMSTimestamp of b, the oldest waiting message");
        queue.removeConsumer(consumer);
    }

    @Test
    void takeWaitingTakesWhatTheSelectorAcceptsInDeliveryOrderAndLeavesTheRest() throws Exception {
        QueueManager queues = start(ServerConfig.builder());
        LocalQueue queue = queues.queue("MIXED");
        for (int i = 0; i < 6; i++) {
            put(queue, (i % 2 == 0 ? "red-" : "blue-") + i, 0);
        }
        List<QueuedMessage> red = queue.takeWaiting(Selector.parse("JMSType = 'red'"), 2);
        assertEquals(List.of("red-0", "red-2"), red.stream().map(m -> TestMessages.body(m.content())).toList());
        assertEquals(6, queue.depth(), "taken messages count until acknowledged");
        red.forEach(queue::acknowledge);
        RecordingConsumer rest = new RecordingConsumer(null, 10);
        queue.addConsumer(rest);
        assertEquals(List.of("blue-1", "blue-3", "red-4", "blue-5"), rest.bodies());
        queue.removeConsumer(rest);
    }

    @Test
    void definitionsMadeAtRunTimeSurviveARestartAndWinOverTheConfiguration() throws Exception {
        ServerConfig.Builder config = ServerConfig.builder().dataDirectory(data).queue("CONFIGURED", 100);
        QueueManager queues = start(config);
        queues.defineQueue(QueueDefinition.named("RUNTIME").with(QueueConfiguration.MAX_DEPTH, 7L));
        queues.alterQueue("CONFIGURED", Map.of("maxDepth", "50"));
        queues.queue("BY.USE");
        queues.alterQueue("BY.USE", Map.of()); // kept from now on, at the server-wide limit
        queues.defineQueue(QueueDefinition.named("GONE"));
        queues.deleteQueue("GONE", false);
        queues.close();

        QueueManager restarted = start(config.autoCreate(false));
        assertEquals(7, restarted.find("RUNTIME").maxDepth());
        assertEquals(QueueOrigin.DEFINED, restarted.origin(restarted.find("RUNTIME")));
        assertEquals(50, restarted.find("CONFIGURED").maxDepth(), "the run-time definition wins");
        assertEquals(QueueOrigin.ALTERED, restarted.origin(restarted.find("CONFIGURED")));
        assertEquals(QueueOrigin.DEFINED, restarted.origin(restarted.find("BY.USE")));
        assertNull(restarted.find("GONE"));
        assertTrue(Files.readString(data.resolve(QueueDefinitionFile.FILE_NAME)).contains("RUNTIME\tmaxDepth=7\n"));
    }

    /**
     * Every setting of a definition made at run time is kept, not only maxDepth (the file used to forget the memory
     * budget and policy, so a queue defined with maxBytes had none after a restart).
     */
    @Test
    void everySettingOfARunTimeDefinitionSurvivesARestart() {
        ServerConfig.Builder config = ServerConfig.builder().dataDirectory(data).queue("CONFIGURED");
        QueueManager queues = start(config);
        QueueDefinition full = QueueDefinition.named("EVERYTHING").with(QueueConfiguration.MAX_DEPTH, 40L)
                .with(QueueConfiguration.MAX_BYTES, 65_536L).with(QueueConfiguration.POLICY, "page")
                .with(QueueConfiguration.MAX_PAGE_BYTES, 1_000_000L).with(QueueConfiguration.PAGE_FULL_POLICY, "fail")
                .with(QueueConfiguration.BACKOUT_THRESHOLD, 3)
                .with(QueueConfiguration.BACKOUT_QUEUE, "EVERYTHING.BACKOUT")
                .with(QueueConfiguration.DEPTH_HIGH_EVENT, 80).with(QueueConfiguration.DEPTH_LOW_EVENT, 20)
                .with(QueueConfiguration.FULL_EVENT, true).with(QueueConfiguration.USAGE, "transmission");
        queues.defineQueue(full);
        queues.alterQueue("CONFIGURED", Map.of("maxBytes", "1000000", "policy", "fail"));
        queues.close();

        QueueManager restarted = start(config);
        LocalQueue everything = restarted.find("EVERYTHING");
        assertEquals(full, restarted.definition(everything));
        assertEquals(40, everything.maxDepth());
        assertEquals(new MemoryLimit(65_536, MemoryPolicy.PAGE, "queue 'EVERYTHING'",
                "setting maxBytes of queue 'EVERYTHING'", new MemoryLimit.PageLimit(1_000_000, MemoryPolicy.FAIL,
                "setting maxPageBytes of queue 'EVERYTHING'")), everything.memoryLimit());
        assertEquals(1_000_000, restarted.find("CONFIGURED").memoryLimit().maxBytes());
        assertEquals(MemoryPolicy.FAIL, restarted.find("CONFIGURED").memoryLimit().policy());
    }

    @Test
    void aDefinitionFileLineWithABadSettingNamesTheLineAndTheSetting() throws Exception {
        Files.writeString(data.resolve(QueueDefinitionFile.FILE_NAME), "OK\tmaxBytes=10\nBAD\tdepthLowEvent=20\n");
        ConfigurationException bad = assertThrows(ConfigurationException.class,
                () -> start(ServerConfig.builder().dataDirectory(data)));
        assertTrue(bad.getMessage().startsWith("Line 2 of " + data.resolve(QueueDefinitionFile.FILE_NAME) + " (the queues"
                + " defined at run time): Setting depthLowEvent of queue 'BAD' must be set together with depthHighEvent"),
                bad.getMessage());
    }

    /**
     * Without depthLowEvent a depth-high event is armed again once the depth is below its threshold; the thresholds
     * follow maxDepth when an administrator changes it; the events go to the sink the queue manager is given.
     */
    @Test
    void depthHighWithoutALowThresholdIsArmedAgainBelowItAndFollowsMaxDepth() {
        QueueManager queues = start(ServerConfig.builder());
        List<QueueEvent> events = new ArrayList<>();
        queues.publishEventsTo(events::add);
        LocalQueue queue = queues.defineQueue(QueueDefinition.named("HIGH.ONLY").with(QueueConfiguration.MAX_DEPTH, 4L)
                .with(QueueConfiguration.DEPTH_HIGH_EVENT, 50));
        put(queue, "1", 0);
        put(queue, "2", 0); // 2 of 4: 50 %
        put(queue, "3", 0);
        assertEquals(List.of("DEPTH_HIGH 2"), describe(events));
        RecordingConsumer consumer = new RecordingConsumer(null, 2);
        queue.addConsumer(consumer);
        consumer.received.forEach(queue::acknowledge); // depth 1: below 50 %, armed again, no low event
        queue.removeConsumer(consumer);
        put(queue, "4", 0);
        assertEquals(List.of("DEPTH_HIGH 2", "DEPTH_HIGH 2"), describe(events));

        queues.alterQueue("HIGH.ONLY", Map.of("maxDepth", "10")); // depth 2 is below the new threshold, 5: armed
        for (int i = 0; i < 3; i++) {
            put(queue, "more-" + i, 0);
        }
        assertEquals(List.of("DEPTH_HIGH 2", "DEPTH_HIGH 2", "DEPTH_HIGH 5"), describe(events));
    }

    /** An alter's memory budget counts what the queue holds now: below it, held producers are let go. */
    @Test
    void anAlteredMemoryBudgetCountsWhatTheQueueHoldsNow() {
        QueueManager queues = start(ServerConfig.builder());
        LocalQueue queue = queues.defineQueue(QueueDefinition.named("BUDGET"));
        put(queue, "one", 0);
        put(queue, "two", 0);
        long held = queue.heldBytes();
        queues.alterQueue("BUDGET", Map.of("maxBytes", Long.toString(held), "policy", "block"));
        assertTrue(queue.overBudget(), "a budget the queue already holds is spent");
        boolean[] released = {false};
        queue.whenUnderBudget(() -> released[0] = true);
        assertEquals(1, queue.producersHeldBack());
        queues.alterQueue("BUDGET", Map.of("maxBytes", Long.toString(held + 1)));
        assertTrue(!queue.overBudget() && released[0], "a larger budget lets the held producers go at once");
        queues.alterQueue("BUDGET", Map.of("maxBytes", "default"));
        assertEquals(0, queue.memoryLimit().maxBytes(), "default puts it back to none of its own");
    }

    private static List<String> describe(List<QueueEvent> events) {
        return events.stream().map(e -> e.kind() + " " + e.depth()).toList();
    }

    @Test
    void aQueueInUseIsDeletedOnlyWhenForcedAndAConfiguredOneNever() {
        QueueManager queues = start(ServerConfig.builder().dataDirectory(data).queue("CONFIGURED"));
        queues.defineQueue(QueueDefinition.named("BUSY"));
        LocalQueue busy = queues.find("BUSY");
        put(busy, "one", 0);
        put(busy, "two", 0);
        RecordingConsumer consumer = new RecordingConsumer("JMSType = 'none'", 10);
        busy.addConsumer(consumer);
        busy.attach();

        WharfException refused = assertThrows(WharfException.class, () -> queues.deleteQueue("BUSY", false));
        assertEquals("Queue 'BUSY' holds 2 messages and has 1 consumer: delete it with force (wharf admin delete"
                + " queue BUSY --force), or clear it and close its consumers first.", refused.getMessage());
        assertEquals(2, busy.depth(), "nothing changed");

        assertEquals(2, queues.deleteQueue("BUSY", true));
        assertNull(queues.find("BUSY"));
        assertEquals(0, busy.depth());
        assertTrue(!busy.attach(), "a deleted queue sends whoever looked it up to look again");

        WharfException configured = assertThrows(WharfException.class, () -> queues.deleteQueue("CONFIGURED", true));
        assertTrue(configured.getMessage().startsWith("Queue 'CONFIGURED' is defined in the configuration file"),
                configured.getMessage());
        WharfException unknown = assertThrows(WharfException.class, () -> queues.deleteQueue("NONE", true));
        assertEquals(ErrorCode.UNKNOWN_DESTINATION, unknown.code());
    }

    @Test
    void alteringOrDeletingAQueueThatDoesNotExistNamesWhereTheQueuesAreListed() {
        QueueManager queues = start(ServerConfig.builder().dataDirectory(data));
        String expected = "Queue 'REPLIES' does not exist ('display queues' lists the queues; subscriptions' queues"
                + " are under 'display subscriptions').";
        WharfException altered = assertThrows(WharfException.class,
                () -> queues.alterQueue("REPLIES", Map.of("maxDepth", "100")));
        assertEquals(ErrorCode.UNKNOWN_DESTINATION, altered.code());
        assertEquals(expected, altered.getMessage());
        WharfException deleted = assertThrows(WharfException.class, () -> queues.deleteQueue("REPLIES", false));
        assertEquals(ErrorCode.UNKNOWN_DESTINATION, deleted.code());
        assertEquals(expected, deleted.getMessage());
    }

    @Test
    void aDefinitionsFileThatCannotBeReadStopsTheStartNamingTheLine() throws Exception {
        Files.writeString(data.resolve(QueueDefinitionFile.FILE_NAME), "# comment\nGOOD\tmaxDepth=3\nBAD\tdepth=4\n");
        ConfigurationException e = assertThrows(ConfigurationException.class,
                () -> start(ServerConfig.builder().dataDirectory(data)));
        assertTrue(e.getMessage().startsWith("Line 3 of " + data.resolve(QueueDefinitionFile.FILE_NAME)
                + " (the queues defined at run time): Unknown setting 'depth' in the line. Known settings here: "),
                e.getMessage());
        assertTrue(e.getMessage().contains(" maxDepth, ") && e.getMessage().contains(" usage."), e.getMessage());
    }

    @Test
    void aQueueNameWithAnyCharacterRoundTripsThroughTheFile() {
        QueueDefinitionFile file = QueueDefinitionFile.in(data);
        List<QueueDefinition> odd = List.of(QueueDefinition.named("tab\there").with(QueueConfiguration.MAX_DEPTH, 1L),
                QueueDefinition.named("ünï cøde %"), QueueDefinition.named("#hash"));
        file.write(odd, List.of());
        assertEquals(odd, file.read().queues());
    }

    private void put(LocalQueue queue, String body, long expiration) {
        WireMessage wire = TestMessages.text(queue.name(), body);
        wire.timestamp = SENT_AT + sent++;
        wire.type = body.startsWith("red") ? "red" : "blue";
        wire.expiration = expiration;
        ByteBuf content = TestMessages.encode(wire);
        QueuedMessage m = new QueuedMessage(queue, content, MessageHeaders.read(content));
        queue.reserve(m);
        queue.offer(m);
    }
}
