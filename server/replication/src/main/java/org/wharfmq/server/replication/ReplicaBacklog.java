package org.wharfmq.server.replication;

/**
 * How many bytes of the committed log each replica still lacks, on the active member ({@code display server}'s
 * backlog per member, issue 35's "backlog in bytes"): the bytes committed since the last log index the replica is
 * known to hold (its match index). The active member records, as each of its batches is committed, the bytes
 * committed so far at that batch's last index, in a ring of {@value #SLOTS} indexes; a replica further behind than
 * the ring reaches is shown at least what the ring holds.
 *
 * <p>Threads: {@link #committed} is called on Ratis's threads as batches are committed (one slot written, no
 * allocation, no lock); {@link #behind} on any thread. A slot read while it is being written gives a figure one batch
 * off, which a status may show.
 */
final class ReplicaBacklog {

    /** The indexes the ring holds (a power of two): at 1,000 batches a second, about a minute. */
    static final int SLOTS = 1 << 16;
    /** How far back from a replica's index a recorded one is looked for (the entries of a batch in pieces). */
    private static final int SEARCH = 1024;

    private final long[] indexes = new long[SLOTS];
    private final long[] committedBytes = new long[SLOTS];
    private final java.util.concurrent.atomic.AtomicLong total = new java.util.concurrent.atomic.AtomicLong();
    private final java.util.concurrent.atomic.AtomicLong batches = new java.util.concurrent.atomic.AtomicLong();
    private volatile long lastIndex = -1;

    ReplicaBacklog() {
        java.util.Arrays.fill(indexes, -1);
    }

    /** A batch of {@code bytes}, whose last log entry is {@code index}, is committed. */
    void committed(long index, int bytes) {
        long sum = total.addAndGet(bytes);
        batches.incrementAndGet();
        int slot = (int) (index & (SLOTS - 1));
        committedBytes[slot] = sum;
        indexes[slot] = index;
        if (index > lastIndex) {
            lastIndex = index;
        }
    }

    /**
     * The bytes committed after log index {@code held} (a replica's match index): 0 when it holds the last batch
     * committed. For a replica further behind than the ring reaches, at least the bytes the ring holds.
     */
    long behind(long held) {
        long now = total.get();
        if (held >= lastIndex) {
            return 0;
        }
        for (long i = held; i >= 0 && i > held - SEARCH; i--) {
            int slot = (int) (i & (SLOTS - 1));
            if (indexes[slot] == i) {
                return Math.max(0, now - committedBytes[slot]);
            }
        }
        if (batches.get() <= SLOTS) {
            return now; // the ring holds every batch, and none was recorded at or before held
        }
        long oldest = Long.MAX_VALUE;
        long oldestBytes = now;
        for (int slot = 0; slot < SLOTS; slot++) {
            if (indexes[slot] >= 0 && indexes[slot] < oldest) {
                oldest = indexes[slot];
                oldestBytes = committedBytes[slot];
            }
        }
        return Math.max(0, now - oldestBytes);
    }
}
