package org.wharfmq.server.store;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.server.config.ServerConfig;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.wharfmq.server.store.StoreHarness.Message;
import static org.wharfmq.server.store.StoreHarness.Recovered;

class JournalMessageStoreTest {

    @TempDir
    Path data;

    @Test
    void durableMessagesComeBackInOrderAndConsumedOnesDoNot() throws Exception {
        ServerConfig config = StoreHarness.config(data);
        try (JournalMessageStore store = StoreHarness.open(config, new Recovered())) {
            for (int i = 1; i <= 5; i++) {
                StoreHarness.put(store, Message.of("Q", i, "m" + i));
            }
            StoreHarness.remove(store, Message.of("Q", 2, ""));
            StoreHarness.put(store, Message.of("OTHER", 1, "o1"));
        }
        Recovered recovered = new Recovered();
        try (JournalMessageStore ignored = StoreHarness.open(config, recovered)) {
            assertEquals(List.of("Q#1=m1", "Q#3=m3", "Q#4=m4", "Q#5=m5"), onQueue(recovered, "Q"));
            assertEquals(List.of("OTHER#1=o1"), onQueue(recovered, "OTHER"));
            assertEquals(5L, recovered.queues.get("Q"), "new messages must be numbered above every old one");
            assertEquals(1, recovered.deliveryCounts.get("Q#1"), "never delivered: not redelivered");
        }
    }

    /** Block claims that run out of disk when told to, and claim for every record (no step ahead). */
    private static final class RunningOut extends DiskBlockClaims {
        volatile boolean full;

        @Override
        boolean claim(java.io.File file, long from, long length) {
            if (full) {
                throw new JournalFullException("The disk of the journal is full (test)");
            }
            return super.claim(file, from, length);
        }

        @Override
        long stepBytes() {
            return 0;
        }
    }

    @Test
    void aRecordThatFindsNoDiskFailsAloneAndACommitWithoutItsMarkerIsRolledBack() throws Exception {
        ServerConfig config = StoreHarness.config(data);
        RunningOut claims = new RunningOut();
        try (JournalMessageStore store = JournalMessageStore.open(config, JournalSpace.diskFreeSpace(), claims)) {
            store.recover(new Recovered());
            StoreHarness.put(store, Message.of("Q", 1, "before"));
            store.putInTransaction(1, Message.of("Q", 2, "its commit marker finds the disk full"));
            StoreHarness.put(store, Message.of("Q", 3, "written after the transaction's put")); // the put is written

            claims.full = true;
            StoreHarness.Done commit = new StoreHarness.Done();
            store.commit(1, commit);
            Throwable failure = commit.await();
            assertTrue(failure instanceof JournalFullException, "the commit fails with the disk error: " + failure);
            StoreHarness.Done refused = new StoreHarness.Done();
            store.put(Message.of("Q", 4, "refused"), refused);
            assertTrue(refused.await() instanceof JournalFullException, "a send fails alone, the writer goes on");

            claims.full = false;
            StoreHarness.put(store, Message.of("Q", 5, "after"));
            store.putInTransaction(2, Message.of("Q", 6, "committed once there is room"));
            StoreHarness.Done next = new StoreHarness.Done();
            store.commit(2, next);
            assertNull(next.await());
        }
        Recovered recovered = new Recovered();
        try (JournalMessageStore ignored = StoreHarness.open(config, recovered)) {
            assertEquals(List.of("Q#1=before", "Q#3=written after the transaction's put", "Q#5=after",
                    "Q#6=committed once there is room"), recovered.messages);
        }
    }

    @Test
    void onlyCommittedTransactionsTakeEffect() throws Exception {
        ServerConfig config = StoreHarness.config(data);
        try (JournalMessageStore store = StoreHarness.open(config, new Recovered())) {
            StoreHarness.put(store, Message.of("Q", 1, "consumed in a committed transaction"));
            StoreHarness.put(store, Message.of("Q", 2, "consumed in a rolled back transaction"));
            store.putInTransaction(1, Message.of("Q", 3, "committed"));
            store.removeInTransaction(1, Message.of("Q", 1, ""));
            StoreHarness.Done commit = new StoreHarness.Done();
            store.commit(1, commit);
            assertNull(commit.await());
            store.putInTransaction(2, Message.of("Q", 4, "rolled back"));
            store.removeInTransaction(2, Message.of("Q", 2, ""));
            StoreHarness.Done rollback = new StoreHarness.Done();
            store.rollback(2, rollback);
            assertNull(rollback.await());
            store.putInTransaction(3, Message.of("Q", 5, "never committed: open at the crash"));
            StoreHarness.put(store, Message.of("Q", 6, "synced after the open transaction's record"));
        }
        Recovered recovered = new Recovered();
        try (JournalMessageStore store = StoreHarness.open(config, recovered)) {
            assertEquals(List.of("Q#2=consumed in a rolled back transaction", "Q#3=committed",
                    "Q#6=synced after the open transaction's record"), recovered.messages);
            // transaction ids restart with the queue manager: id 3 again must not complete the old open one
            StoreHarness.Done commit = new StoreHarness.Done();
            store.commit(3, commit);
            assertNull(commit.await());
        }
        Recovered again = new Recovered();
        try (JournalMessageStore ignored = StoreHarness.open(config, again)) {
            assertEquals(recovered.messages, again.messages);
        }
    }

    @Test
    void deliveredButUnacknowledgedMessagesComeBackWithTheirDeliveryCount() throws Exception {
        ServerConfig config = StoreHarness.config(data);
        try (JournalMessageStore store = StoreHarness.open(config, new Recovered())) {
            Message once = Message.of("Q", 1, "delivered once");
            Message twice = Message.of("Q", 2, "delivered twice");
            StoreHarness.put(store, once);
            StoreHarness.put(store, twice);
            StoreHarness.put(store, Message.of("Q", 3, "never delivered"));
            store.delivered(once, 1);
            store.delivered(twice, 1);
            store.delivered(twice, 2);
        }
        Recovered recovered = new Recovered();
        try (JournalMessageStore ignored = StoreHarness.open(config, recovered)) {
            assertEquals(2, recovered.deliveryCounts.get("Q#1"));
            assertEquals(3, recovered.deliveryCounts.get("Q#2"));
            assertEquals(1, recovered.deliveryCounts.get("Q#3"));
        }
    }

    @Test
    void concurrentWritersShareSyncs() throws Exception {
        int threads = 16;
        int perThread = 40;
        try (JournalMessageStore store = StoreHarness.open(StoreHarness.config(data), new Recovered())) {
            long syncsBefore = store.syncs();
            CountDownLatch start = new CountDownLatch(1);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            List<Thread> writers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                String queue = "Q" + t;
                Thread writer = new Thread(() -> {
                    try {
                        start.await();
                        for (int i = 1; i <= perThread; i++) {
                            StoreHarness.put(store, Message.of(queue, i, "x"));
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                });
                writer.start();
                writers.add(writer);
            }
            start.countDown();
            for (Thread writer : writers) {
                writer.join(TimeUnit.SECONDS.toMillis(60));
            }
            assertNull(failure.get());
            long syncs = store.syncs() - syncsBefore;
            int puts = threads * perThread;
            assertTrue(syncs < puts / 2, "group commit: " + puts + " puts from " + threads + " threads took "
                    + syncs + " syncs");
        }
    }

    @Test
    void aSyncWritesNothingAndMakesTheRecordsNobodyWaitedForDurableWithOneSync() throws Exception {
        ServerConfig config = StoreHarness.config(data);
        try (JournalMessageStore store = StoreHarness.open(config, new Recovered())) {
            for (int i = 1; i <= 3; i++) {
                StoreHarness.put(store, Message.of("Q", i, "m" + i));
            }
            long syncs = store.syncs();
            long records = store.records();
            store.remove(List.of(Message.of("Q", 1, "")), StoreCompletion.NONE);
            store.remove(List.of(Message.of("Q", 2, "")), StoreCompletion.NONE);
            StoreHarness.Done synced = new StoreHarness.Done();
            store.sync(synced);
            assertNull(synced.await());
            assertEquals(syncs + 1, store.syncs(), "one sync, for the barrier: the removals nobody waited for "
                    + "asked for none");
            assertEquals(records + 2, store.records(), "the barrier is no record");
        }
        Recovered recovered = new Recovered();
        try (JournalMessageStore ignored = StoreHarness.open(config, recovered)) {
            assertEquals(List.of("Q#3=m3"), onQueue(recovered, "Q"));
        }
    }

    @Test
    void aSecondQueueManagerCannotUseTheSameDataDirectory() throws Exception {
        ServerConfig config = StoreHarness.config(data);
        try (JournalMessageStore ignored = StoreHarness.open(config, new Recovered())) {
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> JournalMessageStore.open(config));
            assertTrue(e.getMessage().contains("in use by another Wharf queue manager"), e.getMessage());
        }
    }

    @Test
    void aClosedStoreFailsNewRecordsInsteadOfLosingThem() throws Exception {
        JournalMessageStore store = StoreHarness.open(StoreHarness.config(data), new Recovered());
        store.close();
        StoreHarness.Done done = new StoreHarness.Done();
        store.put(Message.of("Q", 1, "late"), done);
        assertTrue(done.await() instanceof IllegalStateException);
    }

    private static List<String> onQueue(Recovered recovered, String queue) {
        return recovered.messages.stream().filter(m -> m.startsWith(queue + "#")).toList();
    }

    @Test
    void diskFreeSpaceReadsTheDiskOfTheDirectoryAndSaysWhenItCannot() throws Exception {
        var freeSpace = JournalSpace.diskFreeSpace();
        long expected = java.nio.file.Files.getFileStore(data).getUsableSpace();
        long read = freeSpace.applyAsLong(data);
        assertTrue(read > 0 && Math.abs(read - expected) < (64L << 20),
                "free space of " + data + ": " + read + " read, " + expected + " by the JDK");
        assertEquals(-1, freeSpace.applyAsLong(data.resolve("no-such-directory")));
    }

    @Test
    void onceTheWriterHasFailedEveryPersistentSendSaysSoAndWhy() throws Exception {
        java.util.concurrent.atomic.AtomicBoolean fault = new java.util.concurrent.atomic.AtomicBoolean();
        ServerConfig config = StoreHarness.config(data);
        // what a write through the map into a disk filled by another program looks like on the writer thread
        try (JournalMessageStore store = JournalMessageStore.open(config, directory -> {
            if (fault.get()) {
                throw new InternalError("a fault occurred in a recent unsafe memory access operation");
            }
            return 100L << 30;
        })) {
            store.recover(new Recovered());
            StoreHarness.put(store, Message.of("Q", 1, "stored"));
            fault.set(true);
            Throwable failure = null;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            for (long sequence = 2; failure == null && System.nanoTime() < deadline; sequence++) {
                StoreHarness.Done done = new StoreHarness.Done();
                store.put(Message.of("Q", sequence, "x"), done); // until the writer reads the disk again
                failure = done.await();
            }
            assertTrue(failure != null, "the writer never failed");
            StoreHarness.Done later = new StoreHarness.Done();
            store.put(Message.of("Q", 1000, "after"), later);
            String message = later.await().getMessage();
            assertTrue(message.contains("The journal failed (java.lang.InternalError: a fault occurred"), message);
            assertTrue(message.contains("until the queue manager is restarted"), message);
        }
    }
}
