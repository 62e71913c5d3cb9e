package org.wharfmq.server.store;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

/**
 * A replicated journal's waiters, without a sync of its own: each batch's finished as soon as its own replication
 * and the earlier batches' are done, on the thread that completed it, in journal order.
 */
class ReplicationWaitersTest {

    private final List<String> finished = new CopyOnWriteArrayList<>();
    private final List<Thread> finishedOn = new CopyOnWriteArrayList<>();
    private final List<Throwable> failures = new CopyOnWriteArrayList<>();
    private final ReplicationWaiters waiters = new ReplicationWaiters();

    private JournalEntry entry(String name, boolean needsSync) {
        JournalEntry e = JournalEntry.marker(JournalRecord.COMMIT, 1, failure -> {
            finished.add(name);
            finishedOn.add(Thread.currentThread());
            if (failure != null) {
                failures.add(failure);
            }
        });
        e.needsSync = needsSync;
        return e;
    }

    private void handOver(CompletableFuture<?> replicated, JournalEntry... entries) {
        waiters.handOver(new ArrayList<>(List.of(entries)), replicated);
    }

    @Test
    void aBatchIsFinishedWhenItsOwnReplicationIsDoneNotALaterOnes() throws Exception {
        CompletableFuture<Long> first = new CompletableFuture<>();
        CompletableFuture<Long> second = new CompletableFuture<>();
        handOver(first, entry("a1", true), entry("a2", true));
        handOver(second, entry("b", true));
        assertEquals(List.of(), finished);

        Thread completer = new Thread(() -> first.complete(1L), "replication-apply");
        completer.start();
        completer.join();
        assertEquals(List.of("a1", "a2"), finished, "the first batch waits for its own replication only");
        assertSame(completer, finishedOn.get(0), "finished on the thread that completed the replication");

        second.complete(2L);
        assertEquals(List.of("a1", "a2", "b"), finished);
        waiters.awaitIdle(); // returns: everything handed over is finished
    }

    @Test
    void aLaterBatchReplicatedFirstWaitsForTheEarlierOnesInJournalOrder() {
        CompletableFuture<Long> first = new CompletableFuture<>();
        CompletableFuture<Long> second = new CompletableFuture<>();
        handOver(first, entry("a", true));
        handOver(null, entry("nothing written", false));
        handOver(second, entry("b", true));

        second.complete(2L);
        assertEquals(List.of(), finished);
        first.complete(1L);
        assertEquals(List.of("a", "nothing written", "b"), finished);
    }

    @Test
    void aBatchNotReplicatedFailsItsDurableWaitersOnly() {
        CompletableFuture<Long> first = new CompletableFuture<>();
        CompletableFuture<Long> second = new CompletableFuture<>();
        handOver(first, entry("durable", true), entry("rollback", false));
        handOver(second, entry("next", true));
        IllegalStateException notActive = new IllegalStateException("not the active instance");

        first.completeExceptionally(notActive);
        assertEquals(List.of("durable", "rollback"), finished);
        assertEquals(List.of(notActive), failures, "only the waiter that needed durability hears of it");

        second.complete(2L);
        assertEquals(List.of("durable", "rollback", "next"), finished);
        assertEquals(1, failures.size(), "a later batch replicated is not failed by the earlier one");
    }
}
