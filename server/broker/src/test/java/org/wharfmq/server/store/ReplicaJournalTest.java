package org.wharfmq.server.store;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.server.Configuration;
import org.wharfmq.server.config.ServerConfig;
import org.wharfmq.server.store.StoreHarness.Message;
import org.wharfmq.server.store.StoreHarness.Recovered;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A replica's journal keeps the recovered state current as the records arrive: a store opened on it with that state
 * (a takeover) recovers exactly what crash recovery reads back from the same journal, without reading the journal
 * back. The records come from a real store's replication hook, as the active instance of a replicated queue manager
 * hands them over (its reclamation's copies forward included).
 */
class ReplicaJournalTest {

    @TempDir
    Path dir;

    /**
     * What the replication is handed is what the Raft log keeps in its cache: a batch of a few KiB must not hold a
     * larger array (each batch once had a fresh 64 KiB buffer of its own, and the log's cache of recent entries held
     * thirteen times their size: an active member at 300 round trips/s ran out of a 1 GiB heap in two minutes). A
     * large message's batch goes as it is, whole.
     */
    @Test
    void theReplicationIsHandedEachBatchInAnArrayOfItsOwnSizeAndALargeMessageWhole() throws Exception {
        List<Integer> wasted = new ArrayList<>();
        List<Integer> sizes = new ArrayList<>();
        try (JournalMessageStore active = JournalMessageStore.openReplicated(fileSized(dir.resolve("active")),
                records -> {
                    sizes.add(records.remaining());
                    if (records.remaining() <= JournalWriter.COPIED_UP_TO_BYTES) {
                        wasted.add(records.array().length - records.remaining());
                    }
                    return CompletableFuture.completedFuture(null);
                })) {
            for (int i = 1; i <= 50; i++) {
                StoreHarness.put(active, Message.of("ORDERS", i, "x".repeat(2000)));
            }
            StoreHarness.put(active, Message.of("LARGE", 1, "y".repeat(3 << 20)));
        }
        assertTrue(wasted.size() >= 50, () -> "batches handed over: " + sizes);
        assertTrue(wasted.stream().allMatch(w -> w == 0), () -> "bytes beyond each small batch's records: " + wasted);
        assertTrue(sizes.stream().anyMatch(n -> n > 3 << 20), () -> "the large message's batch whole: " + sizes);
    }

    /**
     * Messages put, consumed (one at a time and several per record), redelivered; transactions committed, rolled back,
     * left open (rolled back at the takeover), prepared and in doubt, prepared then committed; a queue defined and
     * deleted, one defined and kept; durable subscriptions defined and deleted; segments reclaimed on the active side.
     */
    @Test
    void aTakeoverFromTheLiveStateRecoversWhatCrashRecoveryReadsBack() throws Exception {
        Replicated replicated = replicate(400, 380);
        Recovered live = new Recovered();
        Recovered crash = new Recovered();
        try (JournalMessageStore fromLive = replicated.takeOver(live);
             JournalMessageStore fromJournal = replicated.crashRecovery(crash)) {
            assertEquals(0, fromLive.recordsReadAtOpen(), "the takeover read the journal back");
            // the replica's journal as reclaimed: its live records and the files since
            assertTrue(fromJournal.recordsReadAtOpen() > 100, "crash recovery read " + fromJournal.recordsReadAtOpen());
            assertEquals(crash.subscriptions, live.subscriptions);
            assertEquals(crash.queues, live.queues);
            assertEquals(crash.messages, live.messages);
            assertEquals(crash.deliveryCounts, live.deliveryCounts);
            assertEquals(crash.prepared, live.prepared);
            assertEquals(crash.preparedIds, live.preparedIds);
            assertEquals(fromJournal.journalBytes(), fromLive.journalBytes(), "the journal's accounting differs");

            // and what the workload left, so that a model that recovers nothing does not pass
            assertEquals(List.of("SYSTEM.SUB.D.KEPT"), live.subscriptions);
            assertTrue(live.queues.containsKey("KEPT.Q") && !live.queues.containsKey("TEMP.Q"), "" + live.queues);
            assertEquals("ORDERS#383=m383", live.messages.stream().filter(m -> m.startsWith("ORDERS#")).findFirst()
                    .orElseThrow(), "the first live message on ORDERS");
            assertTrue(live.messages.contains("ORDERS#401=sent in tx 1")
                    && live.messages.contains("ORDERS#404=sent in tx 4"), "" + live.messages);
            // tx 1 consumed 381, tx 3 (in doubt) holds 382 back, tx 5 (open) consumed 383 and is rolled back
            assertEquals(List.of("xid-3: sends [ORDERS#403=sent in tx 3] consumed [ORDERS#382=m382/1]"), live.prepared);
            assertEquals(3, live.deliveryCounts.get("ORDERS#390"), "delivered twice, the next delivery is the third");
            assertEquals(publicationCopies(), copies(live), "the publications' copies still live");

            // the store goes on from there: its in-doubt transaction commits
            StoreHarness.Done commit = new StoreHarness.Done();
            fromLive.commit(live.preparedIds.get(0), commit);
            assertNull(commit.await());
        }
    }

    /**
     * A replica reclaims its journal as the active store does (files of 64 KiB): after 700 KiB and more put and
     * consumed past the workload, it holds a few files, the live messages and the prepared transaction in doubt copied
     * forward by the active store (its own older copies then dead), and the takeover recovers them. A new term rolls
     * back the transaction left open (a ROLLBACK record of the replica's own; the active store's later one changes
     * nothing).
     */
    @Test
    void aReplicaReclaimsItsJournalAsTheActiveStoreDoes() throws Exception {
        ServerConfig replicaConfig = fileSized(dir.resolve("replica"));
        ReplicaJournal replica = ReplicaJournal.open(replicaConfig);
        java.util.concurrent.atomic.AtomicBoolean newTerm = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.concurrent.atomic.AtomicInteger rolledBack = new java.util.concurrent.atomic.AtomicInteger(-1);
        long written = 0;
        try (JournalMessageStore active = JournalMessageStore.openReplicated(fileSized(dir.resolve("active")),
                records -> {
                    if (newTerm.getAndSet(false)) { // on the applier's thread, before the term's first batch
                        rolledBack.set(replica.rollBackOpenTransactions());
                    }
                    replica.apply(records);
                    return CompletableFuture.completedFuture(null);
                })) {
            workload(active, 400, 380);
            newTerm.set(true);
            marker(active, 5, JournalRecord.ROLLBACK);
            String body = "x".repeat(990);
            for (int i = 1; i <= 700; i++) {
                Message m = Message.of("FLOW", i, body);
                StoreHarness.put(active, m);
                StoreHarness.remove(active, m);
                written += body.length();
            }
            assertTrue(active.reclaimedFiles() > 0, "the active store reclaimed nothing");
        }
        assertEquals(1, rolledBack.get(), "transaction 5, open, rolled back at the new term");
        long fileBytes = Configuration.MIN_JOURNAL_FILE_BYTES;
        assertTrue(replica.segments() <= 6 && replica.journalBytes() <= 6 * fileBytes, "the replica's journal holds "
                + replica.journalBytes() + " bytes in " + replica.segments() + " files after " + written
                + " bytes put and consumed");
        replica.close();
        Recovered live = new Recovered();
        try (JournalMessageStore store = JournalMessageStore.openReplicated(replicaConfig,
                records -> CompletableFuture.completedFuture(null), replica)) {
            store.recover(live);
        }
        assertEquals("ORDERS#383=m383", live.messages.stream().filter(m -> m.startsWith("ORDERS#")).findFirst()
                .orElseThrow(), "the first live message on ORDERS");
        assertTrue(live.messages.stream().noneMatch(m -> m.startsWith("FLOW#") || m.startsWith("ORDERS#405=")),
                "" + live.messages);
        assertEquals(List.of("xid-3: sends [ORDERS#403=sent in tx 3] consumed [ORDERS#382=m382/1]"), live.prepared);
        assertEquals(publicationCopies(), copies(live),
                "the publications' copies still live, copied forward by the active store's reclamation");
    }

    /** The recovered copies of {@link #workload}'s publications, sorted. */
    private static List<String> copies(Recovered recovered) {
        return recovered.messages.stream().filter(m -> m.startsWith("SUB.")).sorted().toList();
    }

    /** The copies {@link #workload}'s publications leave live, sorted: SUB.A's 20, SUB.B's 11 on, SUB.C's 6 on. */
    private static List<String> publicationCopies() {
        List<String> copies = new ArrayList<>();
        copies.add("SUB.A#20=p20");
        for (int i = 6; i <= 20; i++) {
            if (i > 10) {
                copies.add("SUB.B#" + i + "=p" + i);
            }
            copies.add("SUB.C#" + i + "=p" + i);
        }
        copies.sort(null);
        return copies;
    }

    /**
     * A replica that loads a snapshot (a member too far behind) reads it back once, then keeps the state current as
     * before: a transaction open at the snapshot and committed after it is committed.
     */
    @Test
    void aReplicaThatLoadsASnapshotReadsItBackOnceAndGoesOnLive() throws Exception {
        ReplicaJournal first = ReplicaJournal.open(fileSized(dir.resolve("first")));
        ServerConfig secondConfig = fileSized(dir.resolve("second"));
        ReplicaJournal second = ReplicaJournal.open(secondConfig);
        AtomicReference<ReplicaJournal> to = new AtomicReference<>(first);
        try {
            try (JournalMessageStore active = JournalMessageStore.openReplicated(fileSized(dir.resolve("active")),
                    records -> {
                        to.get().apply(records);
                        return CompletableFuture.completedFuture(null);
                    })) {
                StoreHarness.put(active, Message.of("Q", 1, "one"));
                active.putInTransaction(1, Message.of("Q", 2, "two, in a transaction across the snapshot"));
                StoreHarness.put(active, Message.of("Q", 3, "three"));
                Path snapshot = dir.resolve("snapshot");
                try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(snapshot))) {
                    first.writeSnapshot(out);
                }
                try (InputStream in = new BufferedInputStream(Files.newInputStream(snapshot))) {
                    second.loadSnapshot(in);
                }
                assertEquals(3, second.recordsReadBack(), "the snapshot's records are read back");
                to.set(second);
                StoreHarness.Done commit = new StoreHarness.Done();
                active.commit(1, commit);
                assertNull(commit.await());
                StoreHarness.put(active, Message.of("Q", 4, "four"));
            }
            second.close();
            Recovered recovered = new Recovered();
            try (JournalMessageStore store = JournalMessageStore.openReplicated(secondConfig,
                    records -> CompletableFuture.completedFuture(null), second)) {
                store.recover(recovered);
                assertEquals(3, store.recordsReadAtOpen(), "only the snapshot was read back");
            }
            assertEquals(List.of("Q#1=one", "Q#2=two, in a transaction across the snapshot", "Q#3=three",
                    "Q#4=four"), recovered.messages);
            assertThrows(IllegalStateException.class, second::handOver, "a state is handed over once");
        } finally {
            first.close();
            second.close();
        }
    }

    /** A replica's journal fed by a real store, closed as at a takeover; its directory. */
    record Replicated(ServerConfig replicaConfig, ReplicaJournal replica, Path copy) {

        /** The takeover: a store on the replica's journal, from the state the replica kept. */
        JournalMessageStore takeOver(Recovered into) throws Exception {
            JournalMessageStore store = JournalMessageStore.openReplicated(replicaConfig,
                    records -> CompletableFuture.completedFuture(null), replica);
            store.recover(into);
            return store;
        }

        /** Crash recovery of a copy of the same journal. */
        JournalMessageStore crashRecovery(Recovered into) throws Exception {
            return StoreHarness.open(replicaConfig.toBuilder().dataDirectory(copy).build(), into);
        }
    }

    /**
     * Runs the workload on a store whose replication hook applies every batch to a replica's journal, stops both, and
     * copies the replica's journal aside.
     *
     * @param messages ORDERS#1..messages put, 1000 bytes each
     * @param consumed the first {@code consumed} of them consumed
     */
    Replicated replicate(int messages, int consumed) throws Exception {
        ServerConfig replicaConfig = fileSized(dir.resolve("replica"));
        ReplicaJournal replica = ReplicaJournal.open(replicaConfig);
        try (JournalMessageStore active = JournalMessageStore.openReplicated(fileSized(dir.resolve("active")),
                records -> {
                    replica.apply(records); // on the writer thread: one thread, as Ratis's applier
                    return CompletableFuture.completedFuture(null);
                })) {
            workload(active, messages, consumed);
        }
        replica.close();
        Path copy = dir.resolve("copy");
        Files.createDirectories(copy);
        Path from = dir.resolve("replica").resolve(Journal.DIRECTORY);
        try (Stream<Path> files = Files.walk(from)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                Files.copy(f, copy.resolve(Journal.DIRECTORY).resolve(from.relativize(f).toString()));
            }
        }
        return new Replicated(replicaConfig, replica, copy);
    }

    private static ServerConfig fileSized(Path data) {
        long fileBytes = Configuration.MIN_JOURNAL_FILE_BYTES;
        return StoreHarness.settings(data).journalFileBytes(fileBytes).journalSlackBytes(fileBytes)
                .durability(Durability.OS).build();
    }

    static void workload(JournalMessageStore store, int messages, int consumed) throws Exception {
        store.queueCreated("TEMP.Q");
        StoreHarness.put(store, Message.of("TEMP.Q", 1, "gone with its queue"));
        StoreHarness.remove(store, Message.of("TEMP.Q", 1, ""));
        store.queueDeleted("TEMP.Q");
        store.queueCreated("KEPT.Q");
        store.subscriptionCreated(new SubscriptionRecord("SYSTEM.SUB.D.KEPT", "kept", "client", "T.>", null, false,
                false, "alice"));
        store.subscriptionCreated(new SubscriptionRecord("SYSTEM.SUB.D.GONE", "gone", "client", "T.>", "a = 1",
                true, false, null));
        store.subscriptionDeleted("SYSTEM.SUB.D.GONE");
        String body = "x".repeat(990);
        List<StoredMessage> batch = new ArrayList<>();
        for (int i = 1; i <= messages; i++) {
            StoreHarness.put(store, Message.of("ORDERS", i, i > consumed - 20 ? "m" + i : body));
            if (i % 10 == 0) {
                store.delivered(Message.of("ORDERS", i, ""), 1);
                store.delivered(Message.of("ORDERS", i, ""), 2);
            }
        }
        // publications' copies on three subscriptions' queues, one record each: 1 to 19 consumed on SUB.A, 1 to 10
        // on SUB.B, 1 to 5 on SUB.C (so records 1 to 5 are dead, the others live with one, two or three copies)
        for (int i = 1; i <= 20; i++) {
            StoreHarness.putCopies(store, i, "p" + i, "SUB.A", "SUB.B", "SUB.C");
        }
        for (int i = 1; i <= 20; i++) {
            for (String queue : i <= 5 ? List.of("SUB.A", "SUB.B", "SUB.C") : i <= 10 ? List.of("SUB.A", "SUB.B")
                    : i < 20 ? List.of("SUB.A") : List.<String>of()) {
                StoreHarness.remove(store, Message.of(queue, i, ""));
            }
        }
        for (int i = 1; i <= consumed; i++) {
            batch.add(Message.of("ORDERS", i, ""));
            if (batch.size() == 5 || i == consumed) {
                StoreHarness.Done removed = new StoreHarness.Done();
                store.remove(batch, removed);
                assertNull(removed.await());
                batch = new ArrayList<>();
            }
        }
        int next = messages;
        // tx 1 commits: a send and a consume
        store.putInTransaction(1, Message.of("ORDERS", ++next, "sent in tx 1"));
        store.removeInTransaction(1, Message.of("ORDERS", consumed + 1, ""));
        marker(store, 1, JournalRecord.COMMIT);
        // tx 2 rolls back
        store.putInTransaction(2, Message.of("ORDERS", ++next, "sent in tx 2"));
        marker(store, 2, JournalRecord.ROLLBACK);
        // tx 3 is prepared and stays in doubt
        store.putInTransaction(3, Message.of("ORDERS", ++next, "sent in tx 3"));
        store.removeInTransaction(3, Message.of("ORDERS", consumed + 2, ""));
        StoreHarness.Done prepared = new StoreHarness.Done();
        store.prepare(3, "xid-3".getBytes(java.nio.charset.StandardCharsets.UTF_8), prepared);
        assertNull(prepared.await());
        // tx 4 is prepared, then committed
        store.putInTransaction(4, Message.of("ORDERS", ++next, "sent in tx 4"));
        StoreHarness.Done prepared4 = new StoreHarness.Done();
        store.prepare(4, "xid-4".getBytes(java.nio.charset.StandardCharsets.UTF_8), prepared4);
        assertNull(prepared4.await());
        marker(store, 4, JournalRecord.COMMIT);
        // traffic after them, so that reclamation copies the prepared transaction forward on the active side
        for (int i = 1; i <= 100; i++) {
            Message m = Message.of("FAST", i, body);
            StoreHarness.put(store, m);
            StoreHarness.remove(store, m);
        }
        // tx 5 is open when the active instance goes: rolled back by the takeover, as by crash recovery
        store.putInTransaction(5, Message.of("ORDERS", ++next, "sent in tx 5"));
        store.removeInTransaction(5, Message.of("ORDERS", consumed + 3, ""));
        StoreHarness.put(store, Message.of("KEPT.Q", 1, "after tx 5's records"));
    }

    private static void marker(JournalMessageStore store, long tx, byte type) throws Exception {
        StoreHarness.Done done = new StoreHarness.Done();
        if (type == JournalRecord.COMMIT) {
            store.commit(tx, done);
        } else {
            store.rollback(tx, done);
        }
        assertNull(done.await());
    }
}
