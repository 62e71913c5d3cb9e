package org.wharfmq.server.replication;

import org.wharfmq.server.config.ServerConfig;
import org.wharfmq.server.store.ReplicaJournal;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * The active member's scratch sink ({@link ReplicaSink#scratch}): a replica's journal and files of its own, in
 * {@link ReplicationConfiguration#SNAPSHOT_SCRATCH_DIRECTORY} inside the member's data directory, into which
 * {@link LogSnapshots} loads the latest snapshot and applies the log after it, to write the next snapshot from.
 * It applies everything as a replica does (the active member's own batches too) and is deleted when closed.
 *
 * <p>Owned by the snapshot builder's thread.
 */
final class ScratchJournal implements ReplicaSink.Scratch {

    private final Path directory;
    private final ReplicaJournal journal;
    private final ReplicatedFiles files;

    private ScratchJournal(Path directory, ReplicaJournal journal) {
        this.directory = directory;
        this.journal = journal;
        this.files = new ReplicatedFiles(directory);
    }

    /** An empty scratch journal for the member whose queue manager's configuration is {@code config}. */
    static ScratchJournal open(ServerConfig config) throws IOException {
        Path directory = directory(config);
        ReplicaJournal.deleteTree(directory); // a build the process did not finish (it stopped meanwhile)
        ReplicaJournal journal = ReplicaJournal.open(config.toBuilder().dataDirectory(directory).build());
        return new ScratchJournal(directory, journal);
    }

    /** Where the member of {@code config} builds its snapshots. */
    static Path directory(ServerConfig config) {
        return config.dataDirectory().toAbsolutePath().resolve(ReplicationConfiguration.SNAPSHOT_SCRATCH_DIRECTORY);
    }

    @Override
    public void apply(long index, String origin, ByteBuffer records) {
        journal.apply(records);
    }

    @Override
    public void newTerm(long term) {
        journal.rollBackOpenTransactions();
    }

    @Override
    public void applyFile(long index, String origin, String name, ByteBuffer content) throws IOException {
        files.write(name, content);
    }

    @Override
    public boolean writeSnapshot(OutputStream out) throws IOException {
        files.writeSnapshot(new DataOutputStream(out));
        journal.writeSnapshot(out);
        return true;
    }

    @Override
    public void loadSnapshot(InputStream in) throws IOException {
        files.loadSnapshot(new DataInputStream(in));
        journal.loadSnapshot(in);
    }

    @Override
    public void reset() throws IOException {
        files.reset();
        journal.reset();
    }

    @Override
    public void close() throws IOException {
        try {
            journal.close();
        } finally {
            ReplicaJournal.deleteTree(directory);
        }
    }
}
