package org.wharfmq.server.store;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.server.Configuration;
import org.wharfmq.server.config.ServerConfig;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.wharfmq.server.store.StoreHarness.Message;
import static org.wharfmq.server.store.StoreHarness.Recovered;

/**
 * XA prepare in the journal: a prepared transaction comes back in doubt after a restart, its send not live and the
 * message it consumed held (not restored as a message), until its commit or rollback, which then survive a restart too;
 * and reclamation never deletes a segment holding a record of it.
 */
class PreparedTransactionTest {

    private static final byte[] BRANCH = "xid-1".getBytes(StandardCharsets.UTF_8);

    @TempDir
    Path data;

    @Test
    void aPreparedTransactionIsInDoubtAfterARestartUntilItsCommit() throws Exception {
        ServerConfig config = StoreHarness.config(data);
        prepareOneSendAndOneConsume(config);
        Recovered inDoubt = new Recovered();
        try (JournalMessageStore store = StoreHarness.open(config, inDoubt)) {
            assertEquals(List.of("Q#9=unrelated"), inDoubt.messages, "the consumed message is held, not restored");
            assertEquals(List.of("xid-1: sends [Q#2=sent in the branch] consumed [Q#1=consumed in the branch/1]"),
                    inDoubt.prepared);
            StoreHarness.Done commit = new StoreHarness.Done();
            store.commit(inDoubt.preparedIds.get(0), commit);
            assertNull(commit.await());
        }
        Recovered committed = new Recovered();
        try (JournalMessageStore ignored = StoreHarness.open(config, committed)) {
            assertEquals(List.of("Q#2=sent in the branch", "Q#9=unrelated"), committed.messages);
            assertEquals(List.of(), committed.prepared);
        }
    }

    @Test
    void aPreparedTransactionRolledBackAfterARestartGivesBackWhatItConsumed() throws Exception {
        ServerConfig config = StoreHarness.config(data);
        prepareOneSendAndOneConsume(config);
        Recovered inDoubt = new Recovered();
        try (JournalMessageStore store = StoreHarness.open(config, inDoubt)) {
            StoreHarness.Done rollback = new StoreHarness.Done();
            store.rollback(inDoubt.preparedIds.get(0), rollback);
            assertNull(rollback.await());
        }
        Recovered rolledBack = new Recovered();
        try (JournalMessageStore ignored = StoreHarness.open(config, rolledBack)) {
            assertEquals(List.of("Q#1=consumed in the branch", "Q#9=unrelated"), rolledBack.messages);
            assertEquals(List.of(), rolledBack.prepared);
        }
    }

    /**
     * A prepared transaction that only consumed (its records: a REMOVE and the PREPARE) holds the oldest segment: the
     * journal grows while it waits (what a long-lived prepared branch costs), and after a restart it is still in
     * doubt. Before the REMOVE and PREPARE records counted as the transaction's, reclamation deleted their segment,
     * and the branch came back as nothing at all, its consumed message as an ordinary message.
     */
    @Test
    void reclamationKeepsEverySegmentOfAPreparedTransaction() throws Exception {
        long fileBytes = Configuration.MIN_JOURNAL_FILE_BYTES;
        ServerConfig config = StoreHarness.settings(data).journalFileBytes(fileBytes).journalSlackBytes(fileBytes)
                .durability(Durability.OS).build();
        String body = "x".repeat(1000);
        try (JournalMessageStore store = StoreHarness.open(config, new Recovered())) {
            StoreHarness.put(store, Message.of("Q", 1, "consumed in the branch"));
            store.removeInTransaction(1, Message.of("Q", 1, ""));
            prepare(store, 1);
            for (int i = 1; i <= 400; i++) {
                Message m = Message.of("FAST", i, body);
                StoreHarness.put(store, m);
                StoreHarness.remove(store, m);
            }
            assertEquals(0, store.reclaimedFiles(), "the prepared transaction's segment is the oldest, and stays");
            assertTrue(store.journalBytes() > 4 * fileBytes, "the journal grows meanwhile: " + store.journalBytes());
        }
        Recovered inDoubt = new Recovered();
        try (JournalMessageStore store = StoreHarness.open(config, inDoubt)) {
            assertEquals(List.of("xid-1: sends [] consumed [Q#1=consumed in the branch/1]"), inDoubt.prepared);
            assertEquals(List.of(), inDoubt.messages);
            StoreHarness.Done commit = new StoreHarness.Done();
            store.commit(inDoubt.preparedIds.get(0), commit);
            assertNull(commit.await());
            for (int i = 401; i <= 410; i++) { // batches after the commit reclaim what it held
                Message m = Message.of("FAST", i, body);
                StoreHarness.put(store, m);
                StoreHarness.remove(store, m);
            }
            assertTrue(store.reclaimedFiles() > 0, "reclamation resumes once the transaction has ended");
        }
    }

    /** Q#1 is consumed and Q#2 sent in transaction 1, prepared; Q#9 is an unrelated message. */
    private static void prepareOneSendAndOneConsume(ServerConfig config) throws Exception {
        try (JournalMessageStore store = StoreHarness.open(config, new Recovered())) {
            StoreHarness.put(store, Message.of("Q", 1, "consumed in the branch"));
            store.delivered(Message.of("Q", 1, ""), 1);
            store.putInTransaction(1, Message.of("Q", 2, "sent in the branch"));
            store.removeInTransaction(1, Message.of("Q", 1, ""));
            prepare(store, 1);
            StoreHarness.put(store, Message.of("Q", 9, "unrelated"));
        }
    }

    private static void prepare(JournalMessageStore store, long transactionId) throws Exception {
        StoreHarness.Done prepare = new StoreHarness.Done();
        store.prepare(transactionId, BRANCH, prepare);
        assertNull(prepare.await());
    }
}
