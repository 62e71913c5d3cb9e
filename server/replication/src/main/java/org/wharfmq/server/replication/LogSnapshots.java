package org.wharfmq.server.replication;

import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.SnapshotManagementRequest;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.raftlog.RaftLog;
import org.apache.ratis.server.storage.FileInfo;
import org.apache.ratis.statemachine.SnapshotRetentionPolicy;
import org.apache.ratis.statemachine.impl.SimpleStateMachineStorage;
import org.apache.ratis.statemachine.impl.SingleFileSnapshotInfo;
import org.apache.ratis.util.MD5FileUtil;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * When a member takes a snapshot, and how the active member makes one: every member, the active one included, takes
 * a snapshot once the entries applied since its latest hold {@link ReplicationConfiguration#SNAPSHOT_LOG_BYTES}
 * (not a count of entries: the log's size is what its disk holds), and Ratis then purges its log up to it. So every
 * member's log stays within about that many bytes and a segment, however long it runs.
 *
 * <p>A replica writes its own state ({@link ReplicaSink#writeSnapshot}, on Ratis's state machine updater, asked for
 * through Ratis's snapshot request). The active member's state is the live queue manager's journal, which holds
 * batches not yet committed: it builds its snapshot on a thread of its own instead, from the log, as a replica would
 * have applied it: its latest snapshot loaded into a {@link ReplicaSink#scratch scratch} sink, the entries after it
 * (read back from its Raft log) applied by a {@link LogApplier} of its own, the snapshot written from the scratch sink
 * at that index, then the log purged up to it. Meanwhile the member goes on committing and confirming: only the
 * builder reads the log. A member that lags or is new catches up from the log after the snapshot, or is sent the
 * snapshot (Ratis's leader sends its latest).
 *
 * <p>A snapshot is never taken inside a batch in pieces (a member loading it would get the later pieces only): it is
 * due only after an entry that ends a batch.
 *
 * <p>Threads: {@link #applied}, {@link #taken} and {@link #loaded} on Ratis's state machine updater; the builder and
 * the requests on this object's own thread, one snapshot at a time.
 */
final class LogSnapshots implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(LogSnapshots.class.getName());

    private final long everyBytes;
    private final ReplicaSink sink;
    private final SimpleStateMachineStorage storage;
    /** A new joiner, for each snapshot the builder replays the log for. */
    private final Supplier<ChunkJoiner> joiners;
    private final ExecutorService worker = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "wharf-replication-snapshot");
        t.setDaemon(true);
        return t;
    });
    /** Whether a snapshot is asked for or being built (at most one at a time). */
    private final AtomicBoolean running = new AtomicBoolean();
    private final ClientId clientId = ClientId.randomId();
    private final AtomicLong callIds = new AtomicLong();
    /** Bytes of entries applied since this member started; the updater's. */
    private long appliedBytes;
    /** {@link #appliedBytes} at the latest snapshot (taken, built or loaded). */
    private volatile long bytesAtSnapshot;
    /**
     * The last entry applied that ended a batch (where a snapshot may be taken), and {@link #appliedBytes} then;
     * written by the updater, bytes first.
     */
    private volatile long boundaryIndex = -1;
    private volatile long boundaryBytes;
    /** Snapshots the active member built from its log, since it started. */
    private final AtomicLong built = new AtomicLong();
    private volatile RaftServer server;
    private volatile RaftGroupId groupId;

    LogSnapshots(long everyBytes, ReplicaSink sink, SimpleStateMachineStorage storage, Supplier<ChunkJoiner> joiners) {
        this.everyBytes = everyBytes;
        this.sink = sink;
        this.storage = storage;
        this.joiners = joiners;
    }

    /** The member's Ratis server, once it initializes the state machine. */
    void initialize(RaftServer server, RaftGroupId groupId) {
        this.server = server;
        this.groupId = groupId;
    }

    /**
     * Entry {@code index} of {@code bytes} was applied ({@code endsBatch}: not inside a batch in pieces): a snapshot is
     * taken once the entries since the latest hold {@link #everyBytes}.
     */
    void applied(long index, long bytes, boolean endsBatch) {
        appliedBytes += bytes;
        if (!endsBatch) {
            return;
        }
        boundaryBytes = appliedBytes;
        boundaryIndex = index;
        if (appliedBytes - bytesAtSnapshot >= everyBytes && running.compareAndSet(false, true)) {
            worker.execute(this::snapshots);
        }
    }

    /** The state machine wrote a snapshot of its sink at the last entry applied. */
    void taken() {
        bytesAtSnapshot = appliedBytes;
    }

    /** The sink's state was replaced by a snapshot's. */
    void loaded() {
        bytesAtSnapshot = appliedBytes;
    }

    /** Snapshots the active member built from its log since it started. */
    long built() {
        return built.get();
    }

    /**
     * Takes snapshots while one is due at the last entry that ended a batch: the traffic applied while one is taken
     * may make the next due, and no later entry may come to ask for it.
     */
    private void snapshots() {
        long done = -1;
        while (true) {
            long index = boundaryIndex;
            if (index != done && boundaryBytes - bytesAtSnapshot >= everyBytes) {
                snapshot(index, boundaryBytes);
                done = index;
                continue;
            }
            running.set(false);
            // an entry applied since the check found the builder running and left it to this thread
            if (boundaryIndex == index || boundaryBytes - bytesAtSnapshot < everyBytes
                    || !running.compareAndSet(false, true)) {
                return;
            }
        }
    }

    /**
     * A snapshot at entry {@code index}, the entries up to it holding {@code bytes} (read apart from the index: at
     * most a batch's bytes off, which moves the next snapshot by as much).
     */
    private void snapshot(long index, long bytes) {
        try {
            ReplicaSink.Scratch scratch = sink.scratch();
            if (scratch == null) {
                request(); // a replica's state machine writes its snapshot, and Ratis purges the log up to it
                return;
            }
            RaftLog log = server.getDivision(groupId).getRaftLog();
            TermIndex at = log.getTermIndex(index);
            if (at == null) {
                throw new IOException("log entry " + index + " is not in the log (it starts at " + log.getStartIndex()
                        + ")");
            }
            boolean made;
            try (scratch) {
                made = build(scratch, log, at);
            }
            bytesAtSnapshot = bytes;
            if (made) {
                built.incrementAndGet();
            }
            storage.cleanupOldSnapshots(KEPT);
            log.purge(index);
        } catch (Exception e) {
            bytesAtSnapshot = bytes; // tried again once as many bytes more are applied
            if (!worker.isShutdown()) {
                LOG.log(System.Logger.Level.WARNING, "Replication member " + server.getId() + " could not take a "
                        + "snapshot at log index " + index + " (its log is purged at the next): " + e, e);
            }
        }
    }

    /** The snapshots a member keeps: Ratis deletes older ones after each it takes, the builder after each it builds. */
    static final SnapshotRetentionPolicy KEPT = new SnapshotRetentionPolicy() {
        @Override
        public int getNumSnapshotsRetained() {
            return ReplicationConfiguration.SNAPSHOTS_KEPT;
        }
    };

    /** Asks Ratis to take a snapshot (the state machine's {@code takeSnapshot}) and waits for it. */
    private void request() throws Exception {
        RaftServer raft = server;
        // a creation gap of one entry: Ratis's default (1024 entries since the latest snapshot) would skip it
        SnapshotManagementRequest request = SnapshotManagementRequest.newCreate(clientId, raft.getId(), groupId,
                callIds.incrementAndGet(), ReplicationConfiguration.SNAPSHOT_TIMEOUT.toMillis(), 1);
        RaftClientReply reply = raft.snapshotManagementAsync(request)
                .get(ReplicationConfiguration.SNAPSHOT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        if (!reply.isSuccess()) {
            throw reply.getException() != null ? reply.getException() : new IOException("snapshot refused");
        }
    }

    /**
     * The active member's snapshot at {@code at}: its latest snapshot loaded into {@code scratch}, the log after it
     * applied up to {@code at}, the scratch's state written as the snapshot at {@code at}. False when the latest
     * snapshot is there already.
     */
    private boolean build(ReplicaSink.Scratch scratch, RaftLog log, TermIndex at) throws IOException {
        SingleFileSnapshotInfo base = storage.getLatestSnapshot();
        if (base != null && base.getIndex() >= at.getIndex()) {
            return false;
        }
        LogApplier replay = new LogApplier(scratch, joiners.get());
        long from;
        if (base != null) {
            read(base, scratch);
            replay.loaded(base.getTerm());
            from = base.getIndex() + 1;
        } else {
            from = log.getStartIndex();
        }
        for (long index = from; index <= at.getIndex(); index++) {
            if (Thread.currentThread().isInterrupted()) {
                throw new java.io.InterruptedIOException("the member stops");
            }
            LogEntryProto entry = log.get(index);
            if (entry == null) {
                throw new IOException("log entry " + index + " is not in the log (it starts at " + log.getStartIndex()
                        + ", the latest snapshot is at " + (base == null ? "none" : base.getIndex()) + ")");
            }
            replay.replay(entry);
        }
        if (replay.insideBatch() || !write(storage, at, scratch)) {
            throw new IOException("the log at index " + at.getIndex() + " is inside a batch in pieces");
        }
        LOG.log(System.Logger.Level.DEBUG, () -> "Replication member " + server.getId() + " built a snapshot at log "
                + "index " + at.getIndex() + " from " + (base == null ? "its log" : "its snapshot at "
                + base.getIndex() + " and its log"));
        return true;
    }

    /**
     * Writes {@code sink}'s state as the snapshot at {@code last}: into a temporary file, forced, then renamed, so a
     * crash never leaves a torn snapshot under a snapshot's name; then its MD5 beside it, checked when loaded.
     * Returns false, writing nothing, when the sink has no state to give.
     */
    static boolean write(SimpleStateMachineStorage storage, TermIndex last, ReplicaSink sink) throws IOException {
        File file = storage.getSnapshotFile(last.getTerm(), last.getIndex());
        Path tmp = file.toPath().resolveSibling(file.getName() + ".writing");
        boolean written;
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(tmp))) {
            written = sink.writeSnapshot(out);
        }
        if (!written) {
            Files.delete(tmp);
            return false;
        }
        try (FileChannel channel = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
            channel.force(true);
        }
        Files.move(tmp, file.toPath(), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        FileInfo info = new FileInfo(file.toPath(), MD5FileUtil.computeAndSaveMd5ForFile(file));
        storage.updateLatestSnapshot(new SingleFileSnapshotInfo(info, last));
        return true;
    }

    /** Replaces {@code sink}'s state with {@code snapshot}'s, its MD5 checked first. */
    static void read(SingleFileSnapshotInfo snapshot, ReplicaSink sink) throws IOException {
        Path file = snapshot.getFile().getPath();
        if (snapshot.getFile().getFileDigest() != null) {
            MD5FileUtil.verifySavedMD5(file.toFile(), snapshot.getFile().getFileDigest());
        }
        sink.reset();
        try (InputStream in = new BufferedInputStream(Files.newInputStream(file))) {
            sink.loadSnapshot(in);
        }
    }

    /** Stops the builder: a snapshot being built is left unfinished, its scratch sink deleted. */
    @Override
    public void close() {
        worker.shutdownNow();
        try {
            if (!worker.awaitTermination(ReplicationConfiguration.CHANGE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                LOG.log(System.Logger.Level.WARNING, "Replication member " + (server == null ? "" : server.getId())
                        + ": the snapshot builder did not stop within " + ReplicationConfiguration.CHANGE_TIMEOUT);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
