package org.wharfmq.server.store;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.util.ArrayList;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The journal's sync stage (durability {@code fsync}): a thread that forces the current segment's file to the disk
 * and then completes the entries the {@link JournalWriter} appended before that force began.
 *
 * <p>Why a stage of its own: the writer's work (encoding, appending, bookkeeping) is CPU, a sync is waiting for the
 * disk. With the writer doing both in turn, entries arriving during a sync waited for it to end before they were
 * even appended, and the next sync waited for them to be appended. Here the writer appends while the previous sync
 * is in flight, and the next sync starts the moment the previous one ends, covering everything appended meanwhile:
 * one sync per batch still, but back to back.
 *
 * <p>Records nobody waits for (a consumer's unanswered acknowledgement, a delivery count) ask for no sync of their
 * own: they ride the next one a waiter asks for, and when none comes within {@code journalLazySyncMillis} this thread
 * forces the file for them itself, so that they are never left unforced for long.
 *
 * <p>Ownership: the writer hands entries over ({@link #handOver}) already appended; from then on only this thread
 * touches them. The hand-over list is the only shared state, guarded by {@link #lock}, which is never held across a
 * sync. Only the writer thread calls {@link #handOver}, {@link #awaitIdle} and {@link #stop}.
 */
final class JournalSyncer implements Runnable {

    private static final System.Logger LOG = System.getLogger(JournalSyncer.class.getName());

    private final Object lock = new Object();
    /** Appended, not yet taken by this thread; guarded by {@link #lock}. */
    private ArrayList<JournalEntry> handed = new ArrayList<>();
    /** This thread's current batch: synced, then finished. */
    private ArrayList<JournalEntry> syncing = new ArrayList<>();
    /** The replication of what was handed over, one per batch that had records; guarded by {@link #lock}. */
    private ArrayList<CompletableFuture<?>> handedReplications = new ArrayList<>();
    /** The replication of {@link #syncing}'s batches: waited for after the sync, before they are finished. */
    private ArrayList<CompletableFuture<?>> replicating = new ArrayList<>();
    /** The file to force: the current segment's (the writer waits for this stage to be idle before it rolls). */
    private FileChannel channel;
    private long handedCount;
    private long finishedCount;
    private boolean stopping;
    private final AtomicLong syncs = new AtomicLong();
    private final AtomicLong syncNanos = new AtomicLong();
    /** Entries the syncs made durable (the sum of their batches). */
    private final AtomicLong syncedEntries = new AtomicLong();
    /** Told of each sync; set by the metrics at any time. */
    private volatile JournalSyncObserver observer = JournalSyncObserver.NONE;
    /** The most time records nobody waits for stay unforced (setting journalLazySyncMillis). */
    private final long lazySyncNanos;
    /** Whether records nobody waits for were written and not forced yet; this thread only. */
    private boolean lazyPending;
    /** When this thread forces them if no sync has by then; this thread only. */
    private long lazyDeadline;
    /** This thread forces the file for records nobody waits for, outside a batch; guarded by {@link #lock}. */
    private boolean forcingLazily;

    /** @param lazySyncMillis the most time a record nobody waits for stays unforced */
    JournalSyncer(long lazySyncMillis) {
        this.lazySyncNanos = java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(lazySyncMillis);
    }

    /**
     * Passes appended entries on; they are completed after the next sync of {@code file} (or at once, in order,
     * when none of them needs one) and, when {@code replicated} is not null, once it is done too (its failure is
     * theirs). Never blocks for a sync.
     */
    void handOver(ArrayList<JournalEntry> batch, FileChannel file, CompletableFuture<?> replicated) {
        synchronized (lock) {
            handed.addAll(batch);
            if (replicated != null) {
                handedReplications.add(replicated);
            }
            handedCount += batch.size();
            if (file != null) {
                channel = file;
            }
            lock.notify();
        }
    }

    /** Waits until every entry handed over is synced and completed: before the writer closes the file. */
    void awaitIdle() {
        boolean interrupted = false;
        synchronized (lock) {
            while (finishedCount < handedCount || forcingLazily) {
                try {
                    lock.wait();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            channel = null;
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** Finishes what was handed over, then ends {@link #run}. */
    void stop() {
        synchronized (lock) {
            stopping = true;
            lock.notify();
        }
    }

    /** Syncs done so far. */
    long syncs() {
        return syncs.get();
    }

    /** Entries made durable by the syncs so far. */
    long syncedEntries() {
        return syncedEntries.get();
    }

    /** Tells {@code observer} of every later sync. Any thread. */
    void observe(JournalSyncObserver observer) {
        this.observer = observer;
    }

    /** Time spent in syncs so far. */
    long syncNanos() {
        return syncNanos.get();
    }

    @Override
    public void run() {
        while (true) {
            FileChannel file;
            synchronized (lock) {
                while (handed.isEmpty() && !stopping) {
                    long left = lazyPending ? lazyDeadline - System.nanoTime() : 0;
                    if (lazyPending && left <= 0) {
                        break;
                    }
                    try {
                        if (lazyPending) {
                            lock.wait(left / 1_000_000, (int) (left % 1_000_000));
                        } else {
                            lock.wait();
                        }
                    } catch (InterruptedException e) {
                        stopping = true; // nobody interrupts this thread but a dying JVM: finish what is here
                    }
                }
                if (handed.isEmpty() && stopping) {
                    return; // the writer's last batch (its CLOSED record) was synced: nothing is left unforced
                }
                if (handed.isEmpty()) { // records nobody waits for, and no sync came for them in time
                    lazyPending = false;
                    if (channel == null) {
                        continue; // the writer closed the file, forcing it first
                    }
                    forcingLazily = true;
                    file = channel;
                } else {
                    file = null;
                }
            }
            if (file != null) {
                try {
                    force(file);
                } finally {
                    synchronized (lock) {
                        forcingLazily = false;
                        lock.notifyAll();
                    }
                }
                continue;
            }
            synchronized (lock) {
                ArrayList<JournalEntry> taken = handed;
                handed = syncing;
                syncing = taken;
                ArrayList<CompletableFuture<?>> replications = handedReplications;
                handedReplications = replicating;
                replicating = replications;
                file = channel;
            }
            int finished = syncing.size();
            try {
                if (sync(file)) {
                    lazyPending = false; // the force covered every record written before it
                } else if (!lazyPending && anyUnwaited()) {
                    lazyPending = true;
                    lazyDeadline = System.nanoTime() + lazySyncNanos;
                }
                awaitReplication();
                for (int i = 0; i < finished; i++) {
                    syncing.get(i).finish();
                }
            } finally {
                // even if an Error ends this thread, the writer waiting to close the file must not wait forever
                syncing.clear();
                replicating.clear();
                synchronized (lock) {
                    finishedCount += finished;
                    lock.notifyAll();
                }
            }
        }
    }

    /**
     * Waits for the replication of the batches being completed (a majority of the members has them on disk), in
     * order; a batch not confirmed fails the entries that wait for durability, as a failed sync does.
     */
    private void awaitReplication() {
        Throwable failure = null;
        for (int i = 0; i < replicating.size(); i++) {
            try {
                replicating.get(i).join();
            } catch (CompletionException | CancellationException e) {
                Throwable cause = e.getCause() != null ? e.getCause() : e;
                if (failure == null) {
                    failure = cause;
                    LOG.log(System.Logger.Level.WARNING, "A journal batch was not replicated: " + cause);
                }
            }
        }
        if (failure != null) {
            for (JournalEntry e : syncing) {
                if (e.needsSync && e.failure == null) {
                    e.failure = failure;
                }
            }
        }
    }

    private boolean anyUnwaited() {
        for (int i = 0; i < syncing.size(); i++) {
            if (syncing.get(i).unwaited) {
                return true;
            }
        }
        return false;
    }

    /** Forces the file for records nobody waits for; a failure is logged (nobody waits to be told). */
    private void force(FileChannel file) {
        long start = System.nanoTime();
        try {
            file.force(false);
        } catch (IOException | RuntimeException failure) {
            LOG.log(System.Logger.Level.ERROR, "Could not sync the journal", failure);
            return;
        }
        syncNanos.addAndGet(System.nanoTime() - start);
        syncs.incrementAndGet();
    }

    /** Syncs the batch being completed if one of its entries waits for it; returns whether the file was forced. */
    private boolean sync(FileChannel file) {
        boolean needed = false;
        for (int i = 0; i < syncing.size() && !needed; i++) {
            needed = syncing.get(i).needsSync;
        }
        if (!needed || file == null) { // no file: durability os, the stage runs for the replication only
            return false;
        }
        long start = System.nanoTime();
        try {
            file.force(false);
        } catch (IOException | RuntimeException failure) {
            LOG.log(System.Logger.Level.ERROR, "Could not sync the journal", failure);
            for (JournalEntry e : syncing) {
                if (e.needsSync && e.failure == null) {
                    e.failure = failure;
                }
            }
            return false;
        }
        long nanos = System.nanoTime() - start;
        syncNanos.addAndGet(nanos);
        syncs.incrementAndGet();
        syncedEntries.addAndGet(syncing.size());
        try {
            observer.synced(nanos, syncing.size());
        } catch (RuntimeException e) { // a broken observer must not stop the journal
            LOG.log(System.Logger.Level.WARNING, "The journal's sync observer failed: " + e, e);
        }
        return true;
    }
}
