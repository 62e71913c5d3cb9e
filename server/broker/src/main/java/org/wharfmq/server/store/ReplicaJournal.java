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
 * but the others never committed.
 *
 * <p>Space: after each batch the replica deletes its oldest segments (never the current one) once none of their
 * records is live any more and no open or prepared transaction has a record there ({@link #reclaim}): the same rule
 * as the active member's reclamation ({@link JournalSpace}), without its copies. A replica copies nothing forward:
 * the active member's copies (a live message, a definition, a prepared transaction moved out of its oldest file)
 * are records of the log like any other, and make the replica's older copies dead as they arrive. So a replica's
 * journal stays within the active member's, plus about one segment (the two cut their segments at different
 * records). Only the oldest segment is ever deleted, so a record that cancels another never goes before it.
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
    /** The journal's bytes and segments, for other threads (the member's status). */
    private volatile long journalBytes;
    private volatile int segments;
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
        checkApplier();
        ByteBuffer records = batch.duplicate().order(java.nio.ByteOrder.BIG_ENDIAN);
        while (records.hasRemaining()) {
            int length = records.getInt();
            if (length < JournalRecord.CRC_BYTES || length > records.remaining()) {
                throw new IllegalStateException("A replicated batch holds a record of " + length + " bytes with "
                        + records.remaining() + " left: the batch is damaged; this member stops.");
            }
            int end = records.position() + length;
            // copied: the batch's buffer is read-only, and Chronicle writes a buffer without an array through its
            // (refused) array
            scratch.clear().writeBytes(records.slice(records.position(), length - JournalRecord.CRC_BYTES));
            append(records.getInt(end - JournalRecord.CRC_BYTES));
            records.position(end);
        }
        reclaim();
    }

    /**
     * A new term began (a new active member, which rolled back every transaction still open when it took over, as
     * crash recovery does): writes a ROLLBACK record for each transaction open here, but the prepared ones (in doubt),
     * so that this journal, its state and its snapshots say what the active member's do, and the segments holding
     * their records can be reclaimed. Their clients lost their connections with the old active member.
     *
     * @return the transactions rolled back
     */
    public int rollBackOpenTransactions() {
        checkApplier();
        List<Long> open = live.state.openTransactions();
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        for (long tx : open) {
            scratch.clear();
            JournalRecord.marker(scratch, JournalRecord.ROLLBACK, tx);
            crc.reset();
            crc.update(scratch.nioBuffer());
            append((int) crc.getValue());
        }
        if (!open.isEmpty()) {
            reclaim();
        }
        return open.size();
    }

    private void checkApplier() {
        if (applier == null) {
            applier = Thread.currentThread();
        }
        assert applier == Thread.currentThread()
                : "the replica's recovered state is applied by " + applier + " and by " + Thread.currentThread();
    }

    /** Appends the record in {@link #scratch} (its fields) with {@code crc}, and applies it to the state. */
    private void append(int crc) {
        if (segmentBytes > config.journalFileBytes()) {
            roll();
        }
        int length = scratch.readableBytes() + JournalRecord.CRC_BYTES;
        long index = journal.append(scratch, null, crc);
        // the document holds the fields and the CRC; Chronicle's header before it counts as recovery counts it
        live.record(scratch, journal.currentSegment(), index, length + 4);
        segmentBytes += length + 4;
        records++;
    }

    /**
     * Deletes the oldest segments, but the current one, while nothing in them is needed any more: no live record (a
     * message, a queue or subscription definition) and no record of a transaction still open or prepared.
     */
    private void reclaim() {
        int current = journal.currentSegment();
        java.util.TreeMap<Integer, JournalState.Segment> all = live.state.segments();
        while (!all.isEmpty() && all.firstKey() < current) {
            JournalState.Segment oldest = all.firstEntry().getValue();
            if (oldest.liveBytes > 0 || oldest.pendingRecords > 0) {
                break;
            }
            int segment = all.pollFirstEntry().getKey();
            journal.delete(segment);
        }
        journalBytes = live.state.totalBytes();
        segments = all.size();
    }

    /** Bytes of records in the journal's segments (live and dead), after the last batch. Any thread. */
    public long journalBytes() {
        return journalBytes;
    }

    /** The journal's segments (its files' directories), the current one counting, after the last batch. Any thread. */
    public int segments() {
        return segments;
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
        journalBytes = 0;
        segments = 1;
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
        List<Path> files = new java.util.ArrayList<>();
        // the numbered segments only: one reclaimed is renamed away at once, and its files go on another thread
        for (int segment : journal.segments()) {
            if (segment == current) {
                continue;
            }
            try (Stream<Path> walk = Files.walk(root.resolve(String.format("%08d", segment)))) {
                walk.filter(Files::isRegularFile).sorted().forEach(files::add);
            }
        }
        for (Path file : files) {
            long length = Files.size(file);
            long used = usedLength(file, length);
            data.writeByte(TRIMMED_FILE);
            data.writeUTF(root.relativize(file).toString());
            data.writeLong(length);
            data.writeLong(used);
            try (java.io.InputStream in = Files.newInputStream(file)) {
                copy(in, data, used, file);
            }
        }
        data.writeByte(0);
        data.flush();
    }

    /**
     * A file in a snapshot, written up to its last byte that is not zero ({@link #usedLength}), with its length: the
     * journal's files are sparse, their length runs to the end of Chronicle's mapped block (up to four times
     * {@code maxMessageLength}, 640 MiB with the default, for a file holding 64 MiB of records), which a whole copy
     * would write out. Loaded, the file gets its length again (sparse). A snapshot of an earlier version marks each
     * file with 1 and holds it whole.
     */
    private static final int TRIMMED_FILE = 2;

    /** The offset after the last byte of {@code file} that is not zero (its holes read as zeros, without I/O). */
    private static long usedLength(Path file, long length) throws IOException {
        java.nio.ByteBuffer chunk = java.nio.ByteBuffer.allocate(1 << 20);
        try (java.nio.channels.FileChannel channel = java.nio.channels.FileChannel.open(file)) {
            long end = length;
            while (end > 0) {
                long start = Math.max(0, end - chunk.capacity());
                chunk.clear().limit((int) (end - start));
                while (chunk.hasRemaining() && channel.read(chunk, start + chunk.position()) > 0) {
                    // a short read is no error: go on from where it stopped
                }
                for (int i = chunk.position() - 1; i >= 0; i--) {
                    if (chunk.get(i) != 0) {
                        return start + i + 1;
                    }
                }
                end = start;
            }
            return 0;
        }
    }

    private static void copy(java.io.InputStream in, OutputStream out, long bytes, Path file) throws IOException {
        byte[] buffer = new byte[64 << 10];
        long left = bytes;
        while (left > 0) {
            int n = in.read(buffer, 0, (int) Math.min(buffer.length, left));
            if (n < 0) {
                throw new IOException("A journal snapshot ends inside " + file);
            }
            out.write(buffer, 0, n);
            left -= n;
        }
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
        for (byte kind = data.readByte(); kind != 0; kind = data.readByte()) {
            Path file = root.resolve(data.readUTF()).normalize();
            if (!file.startsWith(root)) {
                throw new IOException("A journal snapshot names a file outside the journal: " + file);
            }
            long length = data.readLong();
            long stored = kind == TRIMMED_FILE ? data.readLong() : length;
            Files.createDirectories(file.getParent());
            try (OutputStream out = Files.newOutputStream(file)) {
                copy(data, out, stored, file);
            }
            if (length > stored) {
                try (java.io.RandomAccessFile sparse = new java.io.RandomAccessFile(file.toFile(), "rw")) {
                    sparse.setLength(length); // the rest zeros, as it was: a hole, no disk
                }
            }
        }
        journal = Journal.open(root, true, Journal.blockSize(config));
        live = Recovery.read(journal); // not finished: the transactions open at the snapshot may end after it
        journal.startAfter(live.lastSegment);
        live.segmentStarted(journal.currentSegment());
        applier = null;
        segmentBytes = 0;
        reclaim();
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
