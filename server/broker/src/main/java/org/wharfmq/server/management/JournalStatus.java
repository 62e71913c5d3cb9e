package org.wharfmq.server.management;

/**
 * The journal as the metrics see it: its size, and what its writer and sync stage have done since the start. The
 * counts are fields their one writer thread adds to, read without a lock (each is exact, the set is not one instant).
 *
 * @param bytes          bytes of records in the journal, live and dead
 * @param records        records appended
 * @param syncs          syncs done (with durability os: batches written, none synced)
 * @param syncNanos      time spent in syncs, in ns (0 with durability os)
 * @param syncedEntries  journal entries made durable by the syncs: over {@code syncs}, the mean batch
 * @param reclaimedFiles journal files deleted by reclamation
 */
public record JournalStatus(long bytes, long records, long syncs, long syncNanos, long syncedEntries,
                            long reclaimedFiles) {
}
