package org.wharfmq.server.store;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletionStage;

/**
 * Where the journal's batches go besides its own disk: the replicated queue manager's log (module
 * {@code server/replication}; docs/resilience.md, "Replicated queue manager"). The broker knows nothing of how.
 *
 * <p>The journal writer hands over each group-commit batch's records once, in journal order, on its own thread; the
 * sync stage completes the batch's waiters (a persistent send's confirmation, a commit) only once both its own sync
 * and the returned stage are done, and fails them with the stage's failure. Records written between batches
 * (reclamation's copies) go with the next batch. The closing record of a stop is not handed over.
 */
@FunctionalInterface
public interface JournalReplication {

    /**
     * Replicates one batch. Called on the journal writer thread, which must not wait here.
     *
     * @param records the batch's records, each as {@link ReplicaJournal#apply} reads it: a 4-byte big-endian length,
     *                then the record's bytes (its fields, its body, its CRC); the buffer is not changed until the
     *                returned stage completes
     * @return completes once the batch is durable on a majority of the members; exceptionally when it is not
     *         confirmed (this member is not, or no longer, the active one)
     */
    CompletionStage<?> replicate(ByteBuffer records);
}
