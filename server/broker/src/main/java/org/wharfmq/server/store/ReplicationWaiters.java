package org.wharfmq.server.store;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The completion stage of a replicated journal that is not forced itself (durability {@code os}: the replicated log,
 * forced on a majority, is the durable copy): each batch's entries are finished once its replication is done and
 * every earlier batch's entries are finished, on the thread that completes the replication (the replicated log's
 * apply thread), with no thread of its own between the commit and the waiters.
 *
 * <p>Why not the {@link JournalSyncer}: with nothing to force, its thread only waited for the replication, one more
 * hand-off per confirmation, and it completed everything it had taken at once, so a batch's waiters waited for the
 * replication of later batches taken with it (a further commit round when they left in the next append).
 *
 * <p>Ownership: the writer thread calls {@link #handOver} and {@link #awaitIdle}; the chain's tail
 * ({@link #last}) is the writer's; the entries handed over belong to the chain until finished.
 */
final class ReplicationWaiters {

    private static final System.Logger LOG = System.getLogger(ReplicationWaiters.class.getName());

    private final Object lock = new Object();
    /** The last batch handed over, completed once its entries are finished. Writer thread only. */
    private CompletableFuture<Void> last = CompletableFuture.completedFuture(null);
    /** Entries handed over; writer thread only (read under {@link #lock} when waiting). */
    private long handedCount;
    /** Entries finished; guarded by {@link #lock}. */
    private long finishedCount;

    /**
     * Passes one batch's appended entries on: finished in order after the earlier batches', once {@code replicated}
     * is done (null: the batch carried no record), those waiting for durability failed with its failure. Never
     * blocks.
     */
    void handOver(List<JournalEntry> batch, CompletableFuture<?> replicated) {
        JournalEntry[] entries = batch.toArray(new JournalEntry[0]); // the writer reuses its list
        handedCount += entries.length;
        CompletableFuture<?> own = replicated == null ? last : replicated;
        last = last.thenCompose(previous -> own.handle((done, failure) -> {
            finish(entries, failure);
            return null;
        }));
    }

    private void finish(JournalEntry[] entries, Throwable failure) {
        try {
            if (failure != null) {
                Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                        ? failure.getCause() : failure;
                LOG.log(System.Logger.Level.WARNING, "A journal batch was not replicated: " + cause);
                for (JournalEntry e : entries) {
                    if (e.needsSync && e.failure == null) {
                        e.failure = cause;
                    }
                }
            }
            for (JournalEntry e : entries) {
                e.finish();
            }
        } finally {
            synchronized (lock) {
                finishedCount += entries.length;
                lock.notifyAll();
            }
        }
    }

    /** Waits until every entry handed over is finished: before the writer closes the file, and at its stop. */
    void awaitIdle() {
        long handed = handedCount;
        boolean interrupted = false;
        synchronized (lock) {
            while (finishedCount < handed) {
                try {
                    lock.wait();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
