package org.wharfmq.server.replication;

import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Applies committed log entries to a {@link ReplicaSink} in log order, as Ratis hands them to the state machine: each
 * entry a batch of journal records, a piece of a batch too large for one entry (joined by its {@link ChunkJoiner}: the
 * sink gets the batch whole, at its last piece's index, or never), or a file kept beside the journal
 * ({@link BatchEntry}); each new term told to the sink before its first entry. An elected member's settings entry
 * is nothing to the sink. The state machine's for the member's
 * own sink, and the active member's {@link LogSnapshots} builder's for a scratch sink it replays the log into: both
 * apply the log alike, so a snapshot built from the log holds what a replica's holds.
 *
 * <p>One thread at a time (the state machine updater, or the snapshot builder for its own).
 */
final class LogApplier {

    private final ReplicaSink sink;
    private final ChunkJoiner joiner;
    /** The term of the last entry applied (or of the snapshot loaded). */
    private long appliedTerm = -1;

    LogApplier(ReplicaSink sink, ChunkJoiner joiner) {
        this.sink = sink;
        this.joiner = joiner;
    }

    /** The sink now holds a snapshot taken in {@code term}: no batch is under way. */
    void loaded(long term) {
        joiner.reset();
        appliedTerm = term;
    }

    /**
     * An entry that is not a batch was applied (each leader's first entry, a change of members): a batch of an earlier
     * term still being joined was left unfinished by its appender.
     */
    void otherEntry(long term) throws IOException {
        joiner.newTerm(term);
        termSeen(term);
    }

    /** Applies any entry of the log: a batch, a piece or a file as {@link #apply}, any other as {@link #otherEntry}. */
    void replay(LogEntryProto entry) throws IOException {
        if (entry.hasStateMachineLogEntry()) {
            apply(entry);
        } else {
            otherEntry(entry.getTerm());
        }
    }

    /**
     * Applies a state machine entry. Returns whether it ended a batch (a batch of one entry, or a batch in pieces'
     * last piece): false for a file and a piece before the last.
     */
    boolean apply(LogEntryProto entry) throws IOException {
        termSeen(entry.getTerm());
        ByteString data = entry.getStateMachineLogEntry().getLogData();
        if (BatchEntry.isSettings(data)) {
            joiner.interrupt(); // the member elected compares them (JournalStateMachine); nothing for the sink
            return false;
        }
        if (BatchEntry.isFile(data)) {
            sink.applyFile(entry.getIndex(), BatchEntry.origin(data), BatchEntry.fileName(data),
                    BatchEntry.fileContent(data));
            return false;
        }
        if (BatchEntry.isChunk(data)) {
            String origin = BatchEntry.origin(data);
            boolean last = joiner.offer(entry.getTerm(), origin, data, sink.takes(origin));
            if (last) {
                ByteBuffer records = joiner.take();
                if (records != null) {
                    sink.apply(entry.getIndex(), origin, records);
                }
            }
            return last;
        }
        joiner.interrupt();
        String origin = BatchEntry.origin(data);
        if (sink.takes(origin)) {
            // not read on the member that appended it: its entries are ropes of the batches merged, which a
            // read-only buffer over the records would copy whole
            sink.apply(entry.getIndex(), origin, BatchEntry.records(data));
        }
        return true;
    }

    /** Whether a batch in pieces is under way: a snapshot now would be inside it. */
    boolean insideBatch() {
        return joiner.pending();
    }

    /** Tells the sink of each new term, before its first entry. */
    private void termSeen(long term) throws IOException {
        if (term <= appliedTerm) {
            return;
        }
        appliedTerm = term;
        sink.newTerm(term);
    }
}
