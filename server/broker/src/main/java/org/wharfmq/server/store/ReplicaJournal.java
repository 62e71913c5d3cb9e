package org.wharfmq.server.store;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.wharfmq.server.config.ServerConfig;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * A replica's journal: the records the active instance of a replicated queue manager handed to its
 * {@link JournalReplication}, appended as they arrive, in the order committed, to this member's own journal (its
 * own data directory), and applied as they are appended to the state recovery would read back from that journal
 * (a {@link Recovery} fed one record at a time: the live messages per queue as positions in the journal, their
 * delivery counts, the transactions open and prepared, the queues and subscriptions defined). When it takes over,
 * the journal is closed and the queue manager's store opens on it with that state
 * ({@link JournalMessageStore#openReplicated(ServerConfig, JournalReplication, ReplicaJournal)}): it reads the
 * journal back no more than a replica's snapshot makes it (below), and a takeover takes as long as the live messages
 * do, not the journal.
 *
 * <p>The state holds what an active instance's journal writer holds (about 70 bytes a live message: its queue, sequence, delivery count and place in the journal), not the
 * messages' bodies: those stay in the journal, read back one by one as their queues take them at the takeover, as
 * after a crash, within the queues' memory budgets.
 *
 * <p>Every start begins with an empty journal ({@link #open} wipes it) and the replicated log applies its entries
 * again from its latest snapshot: so a member that was active and lost its leadership never keeps records it wrote
 * but the others never committed. A replica reclaims nothing: its journal grows until it takes over (or restarts
 * from a snapshot).
 *
 * <p>Holds the data directory's lock ({@link DataDirectoryLock}) while open. Not thread-safe: the state has one
 * owner, the thread that applies the records (the replicated log's applier: asserted), until {@link #close} and
 * the store's open take it over; the caller orders those (the member's lock).
 */
public final class ReplicaJournal implements AutoCloseable {

    private final ServerConfig config;
    private final Path root;
    private final DataDirectoryLock lock;
    private Journal journal;
    /** Bytes appended to the current segment: a new one is started past {@link ServerConfig#journalFileBytes}. */
    private long segmentBytes;
    private long records;
    /** The record being appended, copied from the batch. */
    private final ByteBuf scratch = Unpooled.buffer(64 << 10);
    /** What recovery would read back from the journal, kept current record by record; null once handed over. */
    private Recovery live;
    /** The one thread that applies records to {@link #live} (bound by the first after the state was made). */
    private Thread applier;

    private ReplicaJournal(ServerConfig config, Path root, DataDirectoryLock lock) {
        this.config = config;
        this.root = root;
        this.lock = lock;
    }

    /**
     * Whether {@code dataDirectory} holds a journal with records in it (a queue manager that ran there): a replica
     * must not start on one unless its replicated log holds the same (it wipes the journal at its start).
     */
    public static boolean holdsJournal(Path dataDirectory) throws IOException {
        Path root = dataDirectory.resolve(Journal.DIRECTORY);
        if (!Files.isDirectory(root)) {
            return false;
        }
        try (Stream<Path> files = Files.walk(root)) {
            return files.anyMatch(p -> p.toString().endsWith(".cq4"));
        }
    }

    /**
     * Takes the data directory of {@code config}, deletes its journal and opens an empty one.
     *
     * @throws IllegalStateException when another queue manager uses the data directory
     */
    public static ReplicaJournal open(ServerConfig config) throws IOException {
        Path data = config.dataDirectory().toAbsolutePath();
        Files.createDirectories(data);
        DataDirectoryLock lock = DataDirectoryLock.acquire(data, config.name(), false);
        ReplicaJournal replica = new ReplicaJournal(config, data.resolve(Journal.DIRECTORY), lock);
        try {
            replica.reset();
        } catch (IOException | RuntimeException e) {
            lock.close();
            throw e;
        }
        return replica;
    }

    /**
     * Appends a batch of records, framed as {@link JournalReplication#replicate} gives them, and applies each to the
     * recovered state.
     */
    public void apply(ByteBuffer batch) {
        if (applier == null) {
            applier = Thread.currentThread();
        }
        assert applier == Thread.currentThread()
                : "the replica's recovered state is applied by " + applier + " and by " + Thread.currentThread();
        ByteBuffer records = batch.duplicate().order(java.nio.ByteOrder.BIG_ENDIAN);
        while (records.hasRemaining()) {
            int length = records.getInt();
            if (length < JournalRecord.CRC_BYTES || length > records.remaining()) {
                throw new IllegalStateException("A replicated batch holds a record of " + length + " bytes with "
                        + records.remaining() + " left: the batch is damaged; this member stops.");
            }
            int end = records.position() + length;
            ByteBuffer fields = records.slice(records.position(), length - JournalRecord.CRC_BYTES);
            int crc = records.getInt(end - JournalRecord.CRC_BYTES);
            if (segmentBytes > config.journalFileBytes()) {
                roll();
            }
            // copied: the batch's buffer is read-only, and Chronicle writes a buffer without an array through its
            // (refused) array
            scratch.clear().writeBytes(fields);
            long index = journal.append(scratch, null, crc);
            // the document holds the fields and the CRC; Chronicle's header before it counts as recovery counts it
            live.record(scratch, journal.currentSegment(), index, length + 4);
            segmentBytes += length + 4;
            records.position(end);
            this.records++;
        }
    }

    /** Records appended since the journal was last emptied. */
    public long records() {
        return records;
    }

    /** Forces what was appended to the disk. */
    public void force() {
        journal.sync();
    }

    /**
     * Records read back from the journal's files to build the state since the journal was last emptied: none when it
     * was built as the records came, the snapshot's when one was loaded.
     */
    public long recordsReadBack() {
        return live == null ? 0 : live.recordsRead;
    }

    private void roll() {
        journal.roll();
        segmentBytes = 0;
        live.segmentStarted(journal.currentSegment());
    }

    /** Deletes the journal and opens an empty one, with an empty state. */
    public void reset() throws IOException {
        if (journal != null) {
            journal.close();
            journal = null;
        }
        deleteTree(root);
        journal = Journal.open(root, true, Journal.blockSize(config));
        journal.startAfter(0);
        live = new Recovery();
        live.segmentStarted(journal.currentSegment());
        applier = null;
        segmentBytes = 0;
        records = 0;
    }

    /**
     * Writes the journal's files: the current segment is closed first (later records go to a new one), so only
     * segments no longer written are copied.
     */
    public void writeSnapshot(OutputStream out) throws IOException {
        journal.sync();
        roll();
        int current = journal.currentSegment();
        DataOutputStream data = new DataOutputStream(out);
        List<Path> files;
        try (Stream<Path> walk = Files.walk(root)) {
            files = walk.filter(Files::isRegularFile)
                    .filter(p -> !root.relativize(p).getName(0).toString().equals(String.format("%08d", current)))
                    .sorted().toList();
        }
        for (Path file : files) {
            data.writeBoolean(true);
            data.writeUTF(root.relativize(file).toString());
            data.writeLong(Files.size(file));
            Files.copy(file, data);
        }
        data.writeBoolean(false);
        data.flush();
    }

    /**
     * Replaces the journal with one {@link #writeSnapshot} wrote (here or on another member), and the state with the
     * one read back from it: the one time a replica reads its journal back (a member that was too far behind, or
     * restarts with a snapshot).
     */
    public void loadSnapshot(InputStream in) throws IOException {
        journal.close();
        journal = null;
        deleteTree(root);
        DataInputStream data = new DataInputStream(in);
        while (data.readBoolean()) {
            Path file = root.resolve(data.readUTF()).normalize();
            if (!file.startsWith(root)) {
                throw new IOException("A journal snapshot names a file outside the journal: " + file);
            }
            long length = data.readLong();
            Files.createDirectories(file.getParent());
            try (OutputStream out = Files.newOutputStream(file)) {
                byte[] buffer = new byte[64 << 10];
                long left = length;
                while (left > 0) {
                    int n = data.read(buffer, 0, (int) Math.min(buffer.length, left));
                    if (n < 0) {
                        throw new IOException("A journal snapshot ends inside " + file);
                    }
                    out.write(buffer, 0, n);
                    left -= n;
                }
            }
        }
        journal = Journal.open(root, true, Journal.blockSize(config));
        live = Recovery.read(journal); // not finished: the transactions open at the snapshot may end after it
        journal.startAfter(live.lastSegment);
        live.segmentStarted(journal.currentSegment());
        applier = null;
        segmentBytes = 0;
    }

    /**
     * Hands the recovered state to the store that opens on this journal once it is {@link #close closed} (the
     * takeover): finished as crash recovery finishes it (the transactions still open rolled back, not the prepared
     * ones). Once.
     */
    Recovery handOver() {
        if (journal != null || live == null) {
            throw new IllegalStateException("A replica journal hands its recovered state over once, after it was "
                    + "closed (" + (live == null ? "handed over already" : "still open") + ")");
        }
        Recovery recovered = live;
        live = null;
        recovered.finish();
        return recovered;
    }

    static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path p : (Iterable<Path>) walk.sorted(Comparator.reverseOrder())::iterator) {
                Files.delete(p);
            }
        }
    }

    /** Forces and closes the journal and lets go of the data directory: before the queue manager opens it. */
    @Override
    public void close() throws IOException {
        if (journal != null) {
            journal.sync();
            journal.close();
            journal = null;
        }
        lock.close();
    }
}
