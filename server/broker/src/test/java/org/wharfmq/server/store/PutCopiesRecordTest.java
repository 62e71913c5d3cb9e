package org.wharfmq.server.store;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.server.Configuration;
import org.wharfmq.server.config.ServerConfig;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.wharfmq.server.store.StoreHarness.Message;
import static org.wharfmq.server.store.StoreHarness.Recovered;

/**
 * A message's copies on several queues (a publication's on its durable subscriptions) are one PUT_COPIES record: its
 * bytes once, one entry for the writer and so one sync, and after a restart each copy is there until its own
 * REMOVE, whatever became of the others; reclamation keeps the copies still live and lets the record go once none is.
 */
class PutCopiesRecordTest {

    private static final int SUBSCRIBERS = 10;
    private static final String BODY = "b".repeat(2000);

    @TempDir
    Path data;

    @Test
    void theCopiesAreOneRecordWithTheBytesOnceOneSyncAndEachIsConsumedAlone() throws Exception {
        ServerConfig config = StoreHarness.config(data);
        String[] queues = new String[SUBSCRIBERS];
        for (int i = 0; i < SUBSCRIBERS; i++) {
            queues[i] = "SYSTEM.SUB.D" + i;
        }
        try (JournalMessageStore store = StoreHarness.open(config, new Recovered())) {
            long records = store.records();
            long syncs = store.syncs();
            for (int p = 1; p <= 5; p++) {
                StoreHarness.putCopies(store, p, BODY + p, queues);
            }
            assertEquals(records + 5, store.records(), "one record a publication, not one a copy");
            assertEquals(syncs + 5, store.syncs(), "one sync a publication, each waited for alone");
            // publication 1: half its copies consumed; publication 2: all of them; the others: none
            for (int i = 0; i < SUBSCRIBERS; i++) {
                if (i < SUBSCRIBERS / 2) {
                    StoreHarness.remove(store, Message.of(queues[i], 1, ""));
                }
                StoreHarness.remove(store, Message.of(queues[i], 2, ""));
            }
        }
        Recovered recovered = new Recovered();
        try (JournalMessageStore store = StoreHarness.open(config, recovered)) {
            List<String> expected = new ArrayList<>();
            for (int i = 0; i < SUBSCRIBERS; i++) {
                for (int p = 1; p <= 5; p++) {
                    if (p != 2 && (p != 1 || i >= SUBSCRIBERS / 2)) {
                        expected.add(queues[i] + "#" + p + "=" + BODY + p);
                    }
                }
                assertEquals(5L, recovered.queues.get(queues[i]), "each copy's sequence is seen: " + queues[i]);
            }
            List<String> messages = new ArrayList<>(recovered.messages);
            messages.sort(null);
            expected.sort(null);
            assertEquals(expected, messages, "every copy until its own REMOVE, and no other");
            // the body once a publication: 5 x 2 KB and the queues' names, not 5 x 10 x 2 KB
            assertTrue(store.journalBytes() < 5 * 2 * BODY.length(), "the journal holds " + store.journalBytes()
                    + " bytes for 5 publications of " + BODY.length() + " bytes to " + SUBSCRIBERS + " queues");
        }
    }

    /**
     * In a transaction the copies are one record too, effective at its commit: committed, they are live; rolled back
     * or left open by the crash, gone; prepared, the branch comes back in doubt with every copy as a send.
     */
    @Test
    void inATransactionTheCopiesAreOneRecordEffectiveAtItsCommitAndAPreparedBranchHoldsThemAll() throws Exception {
        ServerConfig config = StoreHarness.config(data);
        try (JournalMessageStore store = StoreHarness.open(config, new Recovered())) {
            long records = store.records();
            store.putCopiesInTransaction(1, StoreHarness.copies(1, "committed", "A", "B", "C"));
            StoreHarness.Done committed = new StoreHarness.Done();
            store.commit(1, committed);
            assertNull(committed.await());
            store.putCopiesInTransaction(2, StoreHarness.copies(2, "rolled back", "A", "B", "C"));
            StoreHarness.Done rolledBack = new StoreHarness.Done();
            store.rollback(2, rolledBack);
            assertNull(rolledBack.await());
            store.putCopiesInTransaction(3, StoreHarness.copies(3, "in doubt", "A", "B", "C"));
            StoreHarness.Done prepared = new StoreHarness.Done();
            store.prepare(3, "xid-3".getBytes(StandardCharsets.UTF_8), prepared);
            assertNull(prepared.await());
            store.putCopiesInTransaction(4, StoreHarness.copies(4, "never committed", "A", "B", "C"));
            StoreHarness.put(store, Message.of("Q", 1, "after the open transaction's record"));
            assertEquals(records + 8, store.records(), "4 x PUT_COPIES, COMMIT, ROLLBACK, PREPARE and a PUT");
        }
        Recovered recovered = new Recovered();
        try (JournalMessageStore ignored = StoreHarness.open(config, recovered)) {
            assertEquals(List.of("A#1=committed", "B#1=committed", "C#1=committed", "Q#1=after the open transaction's "
                    + "record"), recovered.messages.stream().sorted().toList());
            assertEquals(List.of("xid-3: sends [A#3=in doubt, B#3=in doubt, C#3=in doubt] consumed []"),
                    recovered.prepared);
            assertEquals(4L, recovered.queues.get("B"), "each copy's sequence is seen, the transactions' too");
        }
    }

    /**
     * One publication's copy kept while thousands of publications to three queues are put and consumed through
     * 64 KiB files: their records die once their last copy is consumed (the files are deleted, the journal stays
     * bounded), and the kept copy is copied forward alone, then recovered with its delivery count.
     */
    @Test
    void reclamationDeletesARecordWithItsLastCopyAndCopiesForwardTheCopiesStillLive() throws Exception {
        long fileBytes = Configuration.MIN_JOURNAL_FILE_BYTES;
        ServerConfig config = StoreHarness.settings(data).journalFileBytes(fileBytes).journalSlackBytes(2 * fileBytes)
                .durability(Durability.OS).build();
        String body = "x".repeat(1000);
        long largest = 0;
        try (JournalMessageStore store = StoreHarness.open(config, new Recovered())) {
            StoreHarness.putCopies(store, 1, "kept on B", "A", "B", "C");
            StoreHarness.remove(store, Message.of("A", 1, ""));
            store.delivered(Message.of("B", 1, ""), 1);
            StoreHarness.remove(store, Message.of("C", 1, ""));
            for (long p = 2; p <= 2000; p++) {
                StoreHarness.putCopies(store, p, body, "A", "B", "C");
                StoreHarness.Done removed = new StoreHarness.Done();
                store.remove(List.of(Message.of("A", p, ""), Message.of("B", p, ""), Message.of("C", p, "")), removed);
                assertNull(removed.await());
                largest = Math.max(largest, store.journalBytes());
            }
            assertTrue(store.reclaimedFiles() > 10, "reclaimed " + store.reclaimedFiles() + " segments");
            long bound = 2 * fileBytes + 2 * fileBytes + 16 * 1024;
            assertTrue(largest <= bound, "journal grew to " + largest + " bytes, bound " + bound);
        }
        Recovered recovered = new Recovered();
        try (JournalMessageStore ignored = StoreHarness.open(config, recovered)) {
            assertEquals(List.of("B#1=kept on B"), recovered.messages);
            assertEquals(2, recovered.deliveryCounts.get("B#1"), "delivered once: the next delivery is the second");
            assertEquals(2000L, recovered.queues.get("A"));
        }
    }
}
