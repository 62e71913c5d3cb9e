package org.wharfmq.server.replication;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;

/**
 * What a member's replicated log applies committed batches to: on the broker side, the member's own journal and the
 * state recovery would read back from it ({@link org.wharfmq.server.store.ReplicaJournal}). Called by one thread at a
 * time, Ratis's state machine updater, in log order.
 *
 * <p>After a restart, the log re-applies every batch after the latest snapshot ({@link #loadSnapshot} first, if
 * there is one): a sink that keeps state across restarts by itself skips the indexes it already holds.
 */
public interface ReplicaSink {

    /**
     * Applies one committed batch of journal records.
     *
     * @param index   the batch's Raft log index, increasing by one or more from one call to the next
     * @param origin  the id of the member that appended it as leader: this member's own id means its journal writer
     *                already wrote these records before handing them over
     * @param records the batch's bytes, valid during the call only
     * @throws IOException (or any exception) when the batch cannot be applied: this member then stops (its Raft
     *                     server closes) rather than go on with a gap; the other two go on
     */
    void apply(long index, String origin, ByteBuffer records) throws IOException;

    /**
     * A new term began (a new leader, whose first entry this member applies before any batch of it): the transactions
     * still open before it ended with the old leader, as its successor's takeover ends them (rolled back; the prepared
     * ones stay in doubt). Called in log order with the batches, also when the log is applied again after a restart.
     *
     * @throws IOException (or any exception) as {@link #apply}
     */
    default void newTerm(long term) throws IOException {
    }

    /**
     * Whether the batches appended by {@code origin} are applied here now: false where {@link #apply} would ignore
     * them (the active member's own, which its journal writer wrote already). The log then does not join a batch
     * that came in pieces (a large message's record) for nothing, and does not call {@link #apply} with it.
     */
    default boolean takes(String origin) {
        return true;
    }

    /**
     * Applies the new version of a file the queue manager keeps beside its journal (the definitions made at run time):
     * the whole file, replacing the one before.
     *
     * @param index   the entry's Raft log index, in the same sequence as the batches'
     * @param origin  the id of the member that appended it as leader (its own id: that member wrote the file already)
     * @param name    the file's name in the data directory
     * @param content the file's bytes, valid during the call only
     * @throws IOException (or any exception) as {@link #apply}
     */
    void applyFile(long index, String origin, String name, ByteBuffer content) throws IOException;

    /**
     * Writes the sink's state as of the last batch applied, or nothing and returns false when it has none to give
     * now (the active instance: its state is the live queue manager's); the log then keeps its entries.
     */
    boolean writeSnapshot(OutputStream out) throws IOException;

    /** Replaces the sink's whole state with one written by {@link #writeSnapshot} (on this member or another). */
    void loadSnapshot(InputStream in) throws IOException;

    /** Drops the sink's whole state: the log is about to be applied from its start, or a snapshot loaded. */
    void reset() throws IOException;
}
