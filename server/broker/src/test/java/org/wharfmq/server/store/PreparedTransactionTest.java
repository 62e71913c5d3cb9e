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
 * and reclamation copies it forward, as live messages, rather than keep the segments holding its records.
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
     * A prepared transaction does not hold reclamation back: the oldest segment, holding its records, is reclaimed by
     * copying the transaction forward whole (its PUT, its REMOVE, its PREPARE), as live messages are, while the journal
     * goes on; after a restart it is in doubt exactly as before, once, and its commit then makes its send live.
     * Before, only the oldest segment could go and one with a record of an open transaction never did: a branch that
     * stayed prepared kept every segment from its own on, and the journal grew with all traffic.
     */
    @Test
    void reclamationCarriesAPreparedTransactionForward() throws Exception {
        long fileBytes = Configuration.MIN_JOURNAL_FILE_BYTES;
        ServerConfig config = StoreHarness.settings(data).journalFileBytes(fileBytes).journalSlackBytes(fileBytes)
                .durability(Durability.OS).build();
        try (JournalMessageStore store = StoreHarness.open(config, new Recovered())) {
            StoreHarness.put(store, Message.of("Q", 1, "consumed in the branch"));
            store.putInTransaction(1, Message.of("Q", 2, "sent in the branch"));
            store.removeInTransaction(1, Message.of("Q", 1, ""));
            prepare(store, 1);
            traffic(store, 1, 400);
            assertTrue(store.reclaimedFiles() > 0, "the prepared transaction's segment is reclaimed");
            assertTrue(store.journalBytes() <= 3 * fileBytes, "the journal stays within its bound: "
                    + store.journalBytes());
        }
        Recovered inDoubt = new Recovered();
        try (JournalMessageStore store = StoreHarness.open(config, inDoubt)) {
            assertEquals(List.of("xid-1: sends [Q#2=sent in the branch] consumed [Q#1=consumed in the branch/1]"),
                    inDoubt.prepared);
            assertEquals(List.of(), inDoubt.messages);
            traffic(store, 401, 800); // copied forward again, across the restart
            StoreHarness.Done commit = new StoreHarness.Done();
            store.commit(inDoubt.preparedIds.get(0), commit);
            assertNull(commit.await());
        }
        Recovered committed = new Recovered();
        try (JournalMessageStore ignored = StoreHarness.open(config, committed)) {
            assertEquals(List.of("Q#2=sent in the branch"), committed.messages);
            assertEquals(List.of(), committed.prepared);
        }
    }

    /**
     * Copied forward, a prepared transaction's older records may still be in the journal at the next start: here its
     * REMOVE and PREPARE stay in a segment behind one that holds a live message (not worth reclaiming: the slack is
     * large). Recovery sees its REMOVE and PREPARE twice and keeps one of each: the branch consumed its message once.
     */
    @Test
    void aPreparedTransactionSeenTwiceByRecoveryIsInDoubtOnce() throws Exception {
        long fileBytes = Configuration.MIN_JOURNAL_FILE_BYTES;
        ServerConfig config = StoreHarness.settings(data).journalFileBytes(fileBytes).journalSlackBytes(1L << 30)
                .durability(Durability.OS).build();
        try (JournalMessageStore store = StoreHarness.open(config, new Recovered())) {
            store.putInTransaction(1, Message.of("Q", 2, "sent in the branch"));
            traffic(store, 1, 200); // a few segments on
            StoreHarness.put(store, Message.of("Q", 1, "consumed in the branch"));
            StoreHarness.put(store, Message.of("KEEP", 1, "live, holds its segment"));
            traffic(store, 201, 400);
            store.removeInTransaction(1, Message.of("Q", 1, ""));
            prepare(store, 1);
            traffic(store, 401, 600);
            assertTrue(store.reclaimedFiles() > 0, "the segment of the transaction's PUT is reclaimed");
        }
        Recovered inDoubt = new Recovered();
        try (JournalMessageStore store = StoreHarness.open(config, inDoubt)) {
            assertEquals(List.of("xid-1: sends [Q#2=sent in the branch] consumed [Q#1=consumed in the branch/1]"),
                    inDoubt.prepared);
            assertEquals(List.of("KEEP#1=live, holds its segment"), inDoubt.messages);
            StoreHarness.Done commit = new StoreHarness.Done();
            store.commit(inDoubt.preparedIds.get(0), commit);
            assertNull(commit.await());
        }
        Recovered committed = new Recovered();
        try (JournalMessageStore ignored = StoreHarness.open(config, committed)) {
            assertEquals(List.of("KEEP#1=live, holds its segment", "Q#2=sent in the branch"),
                    committed.messages.stream().sorted().toList());
            assertEquals(List.of(), committed.prepared);
        }
    }

    /**
     * A journal of an older version could hold two PREPAREs of one branch: it left the rollback of a branch restored
     * after a restart unrecorded, and a channel then took the batch's messages again under the same batch id, so the
     * same Xid. The older was rolled back then: recovery rolls it back (recorded, so once), the later one is in doubt
     * alone, and what only the older held is live again. Before, both were handed over, each holding the message they
     * share, and the server's table of branches kept one of them: the other's messages were held for good.
     */
    @Test
    void aBranchPreparedTwiceInAnOldJournalIsInDoubtOnceTheOlderRolledBack() throws Exception {
        ServerConfig config = StoreHarness.config(data);
        prepareOneBranchTwice(config, false);
        Recovered inDoubt = new Recovered();
        try (JournalMessageStore store = StoreHarness.open(config, inDoubt)) {
            assertEquals(List.of("xid-1: sends [] consumed [Q#1=in both batches/1]"), inDoubt.prepared);
            assertEquals(List.of("Q#2=in the older batch only", "Q#9=unrelated"), inDoubt.messages);
            assertEquals(List.of("xid-1"), inDoubt.superseded, "named, for the log");
            StoreHarness.Done rollback = new StoreHarness.Done();
            store.rollback(inDoubt.preparedIds.get(0), rollback);
            assertNull(rollback.await());
        }
        Recovered rolledBack = new Recovered();
        try (JournalMessageStore ignored = StoreHarness.open(config, rolledBack)) {
            assertEquals(List.of(), rolledBack.superseded, "the older PREPARE's rollback is recorded");
            assertEquals(List.of(), rolledBack.prepared);
            assertEquals(List.of("Q#1=in both batches", "Q#2=in the older batch only", "Q#9=unrelated"),
                    rolledBack.messages);
        }
    }

    /**
     * The later PREPARE of the branch committed before the restart: the older one, left alone, is not in doubt (it
     * would hold its messages for good, and a commit of it by its channel would remove one it never sent).
     */
    @Test
    void aBranchPreparedAgainAndCommittedInAnOldJournalLeavesNothingInDoubt() throws Exception {
        ServerConfig config = StoreHarness.config(data);
        prepareOneBranchTwice(config, true);
        Recovered recovered = new Recovered();
        try (JournalMessageStore ignored = StoreHarness.open(config, recovered)) {
            assertEquals(List.of(), recovered.prepared);
            assertEquals(List.of("Q#2=in the older batch only", "Q#9=unrelated"), recovered.messages);
            assertEquals(List.of("xid-1"), recovered.superseded, "named, for the log");
        }
        Recovered again = new Recovered();
        try (JournalMessageStore ignored = StoreHarness.open(config, again)) {
            assertEquals(List.of(), again.superseded);
            assertEquals(List.of(), again.prepared);
            assertEquals(List.of("Q#2=in the older batch only", "Q#9=unrelated"), again.messages);
        }
    }

    /**
     * As an older version wrote it: transaction 1 consumes Q#1 and Q#2 and prepares branch xid-1 (its rollback after
     * a restart went unrecorded); transaction 2 consumes Q#1 again and prepares xid-1 again, then commits when
     * {@code commitLater}. Q#9 is an unrelated message.
     */
    private static void prepareOneBranchTwice(ServerConfig config, boolean commitLater) throws Exception {
        try (JournalMessageStore store = StoreHarness.open(config, new Recovered())) {
            StoreHarness.put(store, Message.of("Q", 1, "in both batches"));
            StoreHarness.put(store, Message.of("Q", 2, "in the older batch only"));
            store.removeInTransaction(1, Message.of("Q", 1, ""));
            store.removeInTransaction(1, Message.of("Q", 2, ""));
            prepare(store, 1);
            store.removeInTransaction(2, Message.of("Q", 1, ""));
            prepare(store, 2);
            if (commitLater) {
                StoreHarness.Done commit = new StoreHarness.Done();
                store.commit(2, commit);
                assertNull(commit.await());
            }
            StoreHarness.put(store, Message.of("Q", 9, "unrelated"));
        }
    }

    /** Messages {@code from} to {@code to} of 1000 bytes through queue FAST, each put and consumed. */
    private static void traffic(JournalMessageStore store, int from, int to) throws Exception {
        String body = "x".repeat(1000);
        for (int i = from; i <= to; i++) {
            Message m = Message.of("FAST", i, body);
            StoreHarness.put(store, m);
            StoreHarness.remove(store, m);
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
