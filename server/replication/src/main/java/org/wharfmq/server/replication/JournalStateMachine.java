package org.wharfmq.server.replication;

import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.storage.FileInfo;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.statemachine.impl.SimpleStateMachineStorage;
import org.apache.ratis.statemachine.impl.SingleFileSnapshotInfo;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.util.LifeCycle;
import org.apache.ratis.util.MD5FileUtil;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Collection;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The replicated log's Ratis state machine: each committed entry is one batch of journal records, a piece of a batch
 * too large for one entry (joined by {@link ChunkJoiner}: the sink gets the batch whole, at its last piece's index, or
 * never), or a file kept beside the journal ({@link BatchEntry}), handed to the member's {@link ReplicaSink} in log
 * order. A snapshot is the sink's state,
 * in one file named by the term and index of the last batch applied (Ratis's {@link SimpleStateMachineStorage});
 * the leader sends it to a member whose log is too far behind (a new or wiped member), which loads it in place of
 * its state and applies the log from there. A snapshot is never taken inside a batch of several entries.
 *
 * <p>Ratis calls {@link #applyTransaction}, {@link #takeSnapshot} and {@link #reinitialize} on one thread, its
 * state machine updater, so the sink is never applied to while a snapshot is written.
 */
final class JournalStateMachine extends BaseStateMachine {

    private static final System.Logger LOG = System.getLogger(JournalStateMachine.class.getName());

    private final SimpleStateMachineStorage storage = new SimpleStateMachineStorage();
    private final ReplicaSink sink;
    private final ActiveListener listener;
    private final AtomicLong batchesApplied = new AtomicLong();
    /** The term of the last entry applied (or of the snapshot loaded); the updater's thread only. */
    private long appliedTerm = -1;
    private final ChunkJoiner joiner;
    /** This member's settings that every member must share, answered to a member that asks ({@link #query}). */
    private final GroupSettings settings;

    JournalStateMachine(ReplicaSink sink, ActiveListener listener, ChunkJoiner joiner, GroupSettings settings) {
        this.sink = sink;
        this.listener = listener;
        this.joiner = joiner;
        this.settings = settings;
    }

    /** Another member asks for this one's settings (at its start): they must be the same. */
    @Override
    public CompletableFuture<Message> query(Message request) {
        return CompletableFuture.completedFuture(Message.valueOf(settings.encode()));
    }

    /** The settings do not depend on what was applied: answered at once, also before anything was. */
    @Override
    public CompletableFuture<Message> queryStale(Message request, long minIndex) {
        return query(request);
    }

    /**
     * Ratis: an entry that is not a batch was applied (each leader's first entry, a change of members): a batch of
     * an earlier term still being joined was left unfinished by its appender.
     */
    @Override
    public void notifyTermIndexUpdated(long term, long index) {
        joiner.newTerm(term);
        termSeen(term);
        super.notifyTermIndexUpdated(term, index);
    }

    /** Tells the sink of each new term, before its first entry (the updater's thread, in log order). */
    private void termSeen(long term) {
        if (term <= appliedTerm) {
            return;
        }
        appliedTerm = term;
        try {
            sink.newTerm(term);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Ratis: this member leads and has applied its term's first entry. */
    @Override
    public void notifyLeaderReady() {
        listener.active();
    }

    /** Ratis: this member's leadership ended; its pending appends were answered "not leader". */
    @Override
    public void notifyNotLeader(Collection<TransactionContext> pendingEntries) {
        listener.inactive();
    }

    @Override
    public void initialize(RaftServer server, RaftGroupId groupId, RaftStorage raftStorage) throws IOException {
        getLifeCycle().startAndTransition(() -> {
            super.initialize(server, groupId, raftStorage);
            storage.init(raftStorage);
            load(storage.getLatestSnapshot());
        });
    }

    /**
     * Before the leader installs a snapshot here: Ratis checks that the state machine is PAUSED. Called again for
     * each further part of a snapshot larger than one install request (16 MiB): paused already, it stays so.
     */
    @Override
    public void pause() {
        if (getLifeCycleState() == LifeCycle.State.PAUSED) {
            return;
        }
        getLifeCycle().transition(LifeCycle.State.PAUSING);
        getLifeCycle().transition(LifeCycle.State.PAUSED);
    }

    /** After the leader installed a snapshot here: the sink's state becomes the snapshot's. */
    @Override
    public void reinitialize() throws IOException {
        joiner.reset();
        load(storage.loadLatestSnapshot());
        if (getLifeCycleState() == LifeCycle.State.PAUSED) {
            getLifeCycle().transition(LifeCycle.State.STARTING);
            getLifeCycle().transition(LifeCycle.State.RUNNING);
        }
    }

    private void load(SingleFileSnapshotInfo snapshot) throws IOException {
        if (snapshot == null) {
            return;
        }
        Path file = snapshot.getFile().getPath();
        if (snapshot.getFile().getFileDigest() != null) {
            MD5FileUtil.verifySavedMD5(file.toFile(), snapshot.getFile().getFileDigest());
        }
        sink.reset();
        try (InputStream in = new BufferedInputStream(Files.newInputStream(file))) {
            sink.loadSnapshot(in);
        }
        setLastAppliedTermIndex(snapshot.getTermIndex());
        appliedTerm = snapshot.getTerm();
        LOG.log(System.Logger.Level.INFO, () -> getId() + ": replicated journal state loaded from snapshot at index "
                + snapshot.getIndex() + " (" + file + ")");
    }

    @Override
    public SimpleStateMachineStorage getStateMachineStorage() {
        return storage;
    }

    @Override
    public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
        LogEntryProto entry = trx.getLogEntry();
        termSeen(entry.getTerm());
        ByteString data = entry.getStateMachineLogEntry().getLogData();
        boolean file = BatchEntry.isFile(data);
        boolean batch = !file;
        try {
            if (file) {
                sink.applyFile(entry.getIndex(), BatchEntry.origin(data), BatchEntry.fileName(data),
                        BatchEntry.fileContent(data));
            } else if (BatchEntry.isChunk(data)) {
                String origin = BatchEntry.origin(data);
                batch = joiner.offer(entry.getTerm(), origin, data, sink.takes(origin));
                if (batch) {
                    ByteBuffer records = joiner.take();
                    if (records != null) {
                        sink.apply(entry.getIndex(), origin, records);
                    }
                }
            } else {
                joiner.interrupt();
                String origin = BatchEntry.origin(data);
                if (sink.takes(origin)) {
                    // not read on the member that appended it: its entries are ropes of the batches merged, which
                    // a read-only buffer over the records would copy whole
                    sink.apply(entry.getIndex(), origin, BatchEntry.records(data));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        // A failure is thrown, not returned as a failed future: Ratis logs a failed future and applies the next entry,
        // which would leave a gap in this member's journal; a throw stops its state machine updater and closes the
        // member (fail-stop), and the other two go on. Restarted, it applies the log again from its latest snapshot.
        updateLastAppliedTermIndex(entry.getTerm(), entry.getIndex());
        if (batch) {
            batchesApplied.incrementAndGet();
        }
        return CompletableFuture.completedFuture(Message.EMPTY);
    }

    /**
     * Writes the sink's state to {@code snapshot.<term>_<index>}: into a temporary file, forced, then renamed, so a
     * crash never leaves a torn snapshot under a snapshot's name; then its MD5 beside it, checked when loaded.
     */
    @Override
    public long takeSnapshot() throws IOException {
        TermIndex last = getLastAppliedTermIndex();
        if (last == null || last.getIndex() < 0) {
            return -1;
        }
        if (joiner.pending()) {
            // never inside a batch of several entries: a member loading the snapshot would get its later pieces only
            return latestSnapshotIndex();
        }
        File file = storage.getSnapshotFile(last.getTerm(), last.getIndex());
        Path tmp = file.toPath().resolveSibling(file.getName() + ".writing");
        boolean written;
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(tmp))) {
            written = sink.writeSnapshot(out);
        }
        if (!written) {
            Files.delete(tmp);
            return latestSnapshotIndex();
        }
        try (FileChannel channel = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
            channel.force(true);
        }
        Files.move(tmp, file.toPath(), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        FileInfo info = new FileInfo(file.toPath(), MD5FileUtil.computeAndSaveMd5ForFile(file));
        storage.updateLatestSnapshot(new SingleFileSnapshotInfo(info, last));
        return last.getIndex();
    }

    private long latestSnapshotIndex() {
        SingleFileSnapshotInfo latest = storage.getLatestSnapshot();
        return latest == null ? -1 : latest.getIndex();
    }

    /** The joiner of batches in pieces. */
    ChunkJoiner joiner() {
        return joiner;
    }

    /** Batches applied to the sink since this state machine was made. */
    long batchesApplied() {
        return batchesApplied.get();
    }
}
