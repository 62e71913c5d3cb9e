package org.wharfmq.server.store;

import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The journal writer's inbox: entries added by any thread without waiting, taken in arrival order by the writer alone.
 *
 * <p>Only an entry somebody waits for ({@link JournalEntry#wakesWriter}: a persistent send, a commit, an answered
 * acknowledgement, a sync, the stop) wakes a writer that sleeps between batches. An entry nobody waits for (a delivery
 * count, an unanswered acknowledgement's {@code REMOVE}, a transaction's {@code PUT} or {@code REMOVE} before its
 * {@code COMMIT}) is taken with the next one that does, or by the writer's own wake {@link #quietNanos} after its last
 * batch, whichever comes first: a persistent request/reply made one wake of the writer per delivery, each a system
 * call on the delivering event loop and a context switch, for records that change nothing anyone waits for. A writer
 * idle since that wake sleeps until any entry comes, so an entry nobody waits for is never left longer than
 * {@link #quietNanos} unwritten (and the sync stage forces it within journalLazySyncMillis after that). The order is
 * the arrival order whatever woke the writer, so a sync still covers every record added before the one it serves.
 */
final class JournalInbox {

    private static final int RUNNING = 0;
    /** Asleep until an entry that wakes it comes, or {@link #quietNanos} have passed. */
    private static final int SLEEPING_BRIEFLY = 1;
    /** Asleep until any entry comes: nothing was taken at its last wake. */
    private static final int SLEEPING = 2;

    private final ConcurrentLinkedQueue<JournalEntry> entries = new ConcurrentLinkedQueue<>();
    private final long quietNanos;
    /** The writer thread, set by its first {@link #takeInto}. */
    private volatile Thread taker;
    private volatile int state = RUNNING;
    /** Wakes of the writer asked for by {@link #add}: one costs a system call and a context switch. */
    private final AtomicLong wakes = new AtomicLong();

    /** @param quietNanos the longest an entry nobody waits for waits for the writer to take it */
    JournalInbox(long quietNanos) {
        this.quietNanos = quietNanos;
    }

    /** Adds {@code entry}; never blocks. Wakes the writer if it sleeps and the entry needs it awake. */
    void add(JournalEntry entry) {
        entries.offer(entry);
        int s = state; // read after the offer: a writer going to sleep reads the entries after its state (no lost wake)
        if (s == SLEEPING || (s == SLEEPING_BRIEFLY && entry.wakesWriter())) {
            Thread t = taker;
            if (t != null) {
                wakes.incrementAndGet();
                LockSupport.unpark(t);
            }
        }
    }

    /**
     * Moves up to {@code max} entries into {@code batch}, in arrival order, sleeping first while there is none to take
     * (see the class comment for how long). The writer thread only.
     *
     * @throws InterruptedException when the writer is interrupted while it sleeps
     */
    void takeInto(List<JournalEntry> batch, int max) throws InterruptedException {
        if (taker == null) {
            taker = Thread.currentThread();
        }
        boolean brief = true; // the first sleep after a batch: entries nobody waits for wait for company
        JournalEntry first;
        while ((first = entries.poll()) == null) {
            state = brief ? SLEEPING_BRIEFLY : SLEEPING;
            if (entries.isEmpty()) { // read after the state: an add that saw RUNNING left its entry for this read
                if (brief) {
                    LockSupport.parkNanos(this, quietNanos);
                } else {
                    LockSupport.park(this);
                }
            }
            state = RUNNING;
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
            brief = false; // woken with nothing to take (or with what the loop now takes): any entry wakes it next
        }
        batch.add(first);
        JournalEntry e;
        for (int n = 1; n < max && (e = entries.poll()) != null; n++) {
            batch.add(e);
        }
    }

    /** The wakes of the writer entries asked for so far. */
    long wakes() {
        return wakes.get();
    }

    /** Moves every entry left into {@code out}: the writer failing or stopping fails them. */
    void drainTo(List<JournalEntry> out) {
        JournalEntry e;
        while ((e = entries.poll()) != null) {
            out.add(e);
        }
    }
}
