package org.wharfmq.server.store;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.util.ArrayList;
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

    /**
     * Passes appended entries on; they are completed after the next sync of {@code file} (or at once, in order,
     * when none of them needs one). Never blocks for a sync.
     */
    void handOver(ArrayList<JournalEntry> batch, FileChannel file) {
        synchronized (lock) {
            handed.addAll(batch);
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
            while (finishedCount < handedCount) {
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
                    try {
                        lock.wait();
                    } catch (InterruptedException e) {
                        stopping = true; // nobody interrupts this thread but a dying JVM: finish what is here
                    }
                }
                if (handed.isEmpty()) {
                    return;
                }
                ArrayList<JournalEntry> taken = handed;
                handed = syncing;
                syncing = taken;
                file = channel;
            }
            int finished = syncing.size();
            try {
                sync(file);
                for (int i = 0; i < finished; i++) {
                    syncing.get(i).finish();
                }
            } finally {
                // even if an Error ends this thread, the writer waiting to close the file must not wait forever
                syncing.clear();
                synchronized (lock) {
                    finishedCount += finished;
                    lock.notifyAll();
                }
            }
        }
    }

    private void sync(FileChannel file) {
        boolean needed = false;
        for (int i = 0; i < syncing.size() && !needed; i++) {
            needed = syncing.get(i).needsSync;
        }
        if (!needed) {
            return;
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
            return;
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
    }
}
