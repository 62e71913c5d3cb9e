package org.wharfmq.server.store;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.server.Configuration;
import org.wharfmq.server.config.ServerConfig;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.wharfmq.server.store.StoreHarness.Message;
import static org.wharfmq.server.store.StoreHarness.Recovered;

/**
 * A long run with a slow consumer: one old message stays unconsumed while thousands pass through. The journal must
 * stay within live data plus the slack (the old message is copied forward, its file deleted), and the old message
 * must survive it all.
 */
class ReclamationTest {

    private static final long FILE_BYTES = Configuration.MIN_JOURNAL_FILE_BYTES;
    private static final long SLACK_BYTES = 2 * FILE_BYTES;

    @TempDir
    Path data;

    @Test
    void journalStaysBoundedWhileAnOldMessageWaits() throws Exception {
        // durability os: this test is about space, and syncs would only make it slower
        ServerConfig config = StoreHarness.settings(data).journalFileBytes(FILE_BYTES).journalSlackBytes(SLACK_BYTES)
                .durability(Durability.OS).build();
        String body = "x".repeat(1000);
        long written = 0;
        long largest = 0;
        try (JournalMessageStore store = StoreHarness.open(config, new Recovered())) {
            StoreHarness.put(store, Message.of("SLOW", 1, "the old message"));
            for (int round = 0; round < 200; round++) {
                List<Message> batch = new ArrayList<>();
                for (int i = 0; i < 10; i++) {
                    Message m = Message.of("FAST", round * 10L + i + 1, body);
                    batch.add(m);
                    StoreHarness.put(store, m);
                    written += body.length();
                }
                for (Message m : batch) {
                    StoreHarness.remove(store, m);
                }
                largest = Math.max(largest, store.journalBytes());
            }
            assertTrue(written > 20 * FILE_BYTES, "the run must outgrow the bound many times over");
            assertTrue(store.reclaimedFiles() > 10, "reclaimed " + store.reclaimedFiles() + " segments");
            long bound = 2 * FILE_BYTES + SLACK_BYTES + 16 * 1024;
            assertTrue(largest <= bound, "journal grew to " + largest + " bytes, bound " + bound);
            assertTrue(segments() <= 2 + SLACK_BYTES / FILE_BYTES + 1, segments() + " segments on disk");
        }
        assertEquals(0, awaitingDeletion(), "closing the journal finishes deleting its reclaimed segments");
        Recovered recovered = new Recovered();
        try (JournalMessageStore ignored = StoreHarness.open(config, recovered)) {
            assertEquals(List.of("SLOW#1=the old message"), recovered.messages);
            assertEquals(2000L, recovered.queues.get("FAST"));
        }
    }

    /**
     * A segment left renamed for deletion by a crash is no segment: recovery does not read it, and the next start
     * deletes it (the journal writer only renames a reclaimed segment; its files are deleted on a thread of their own).
     */
    @Test
    void aSegmentLeftRenamedForDeletionIsIgnoredAndDeletedAtTheNextStart() throws Exception {
        ServerConfig config = StoreHarness.settings(data).durability(Durability.OS).build();
        try (JournalMessageStore store = StoreHarness.open(config, new Recovered())) {
            StoreHarness.put(store, Message.of("Q", 1, "kept"));
        }
        // a copy of the live segment, renamed as the writer renames a reclaimed one, as if a crash stopped its deletion
        Path journal = data.resolve("journal");
        Path segment;
        try (Stream<Path> list = Files.list(journal)) {
            segment = list.filter(Files::isDirectory).findFirst().orElseThrow();
        }
        Path leftover = journal.resolve("00000000" + SegmentDeleter.SUFFIX);
        try (Stream<Path> files = Files.walk(segment)) {
            for (Path p : (Iterable<Path>) files::iterator) {
                Files.copy(p, leftover.resolve(segment.relativize(p).toString()));
            }
        }
        Recovered recovered = new Recovered();
        try (JournalMessageStore ignored = StoreHarness.open(config, recovered)) {
            assertEquals(List.of("Q#1=kept"), recovered.messages, "the renamed copy was not read as a segment");
        }
        assertEquals(0, awaitingDeletion(), "the leftover was deleted");
    }

    @Test
    void queuesCreatedAndDeletedByTheThousandLeaveNothingBehind() throws Exception {
        ServerConfig config = StoreHarness.settings(data).journalFileBytes(FILE_BYTES).journalSlackBytes(SLACK_BYTES)
                .durability(Durability.OS).build();
        int churned = 20_000;
        try (JournalMessageStore store = StoreHarness.open(config, new Recovered())) {
            store.queueCreated("KEPT");
            for (int i = 0; i < churned; i++) {
                store.queueCreated("GONE." + i); // a queue created by use...
                store.queueDeleted("GONE." + i); // ...and deleted as unused
            }
            StoreHarness.put(store, Message.of("KEPT", 1, "after them all")); // durable: so is every record before it
            assertTrue(store.reclaimedFiles() > 5, "reclaimed " + store.reclaimedFiles() + " segments");
            long bound = 2 * FILE_BYTES + SLACK_BYTES + 16 * 1024;
            assertTrue(store.journalBytes() <= bound, "journal holds " + store.journalBytes() + " bytes, bound " + bound);
        }
        Recovered recovered = new Recovered();
        try (JournalMessageStore ignored = StoreHarness.open(config, recovered)) {
            assertEquals(List.of("KEPT"), List.copyOf(recovered.queues.keySet()), "a deleted queue stays deleted");
            assertEquals(List.of("KEPT#1=after them all"), recovered.messages);
        }
    }

    /** Segment directories: eight digits. */
    private long segments() throws Exception {
        try (Stream<Path> list = Files.list(data.resolve("journal"))) {
            return list.filter(p -> p.getFileName().toString().matches("[0-9]{8}")).count();
        }
    }

    private long awaitingDeletion() throws Exception {
        try (Stream<Path> list = Files.list(data.resolve("journal"))) {
            return list.filter(p -> p.getFileName().toString().endsWith(SegmentDeleter.SUFFIX)).count();
        }
    }
}
