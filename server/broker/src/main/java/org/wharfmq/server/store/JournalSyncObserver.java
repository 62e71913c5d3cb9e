package org.wharfmq.server.store;

/**
 * Told of every sync of the journal (durability {@code fsync}), on the journal's sync thread right after the disk
 * confirmed it and before the entries it covers complete: the metrics' sync latency and batch size histograms. Once
 * per sync, never per message; it must be quick and must not block or throw (a throw is logged and ignored).
 */
@FunctionalInterface
public interface JournalSyncObserver {

    /** Observes nothing: the default. */
    JournalSyncObserver NONE = (nanos, entries) -> {
    };

    /**
     * @param nanos   how long the sync took
     * @param entries the journal entries it made durable (the batch)
     */
    void synced(long nanos, int entries);
}
