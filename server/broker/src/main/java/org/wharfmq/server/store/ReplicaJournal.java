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
 * own data directory). Nothing reads them while it is a replica; when it takes over, the journal is closed and the
 * queue manager starts on it as after a crash ({@link JournalMessageStore#open}: recovery).
 *
 * <p>Every start begins with an empty journal ({@link #open} wipes it) and the replicated log applies its entries
 * again from its latest snapshot: so a member that was active and lost its leadership never keeps records it wrote
 * but the others never committed. A replica reclaims nothing: its journal grows until it takes over (or restarts
 * from a snapshot).
 *
 * <p>Holds the data directory's lock ({@link DataDirectoryLock}) while open. Not thread-safe: one thread at a time
 * (the replicated log's applier).
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

    /** Appends a batch of records, framed as {@link JournalReplication#replicate} gives them. */
    public void apply(ByteBuffer batch) {
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
                journal.roll();
                segmentBytes = 0;
            }
            // copied: the batch's buffer is read-only, and Chronicle writes a buffer without an array through its
            // (refused) array
            scratch.clear().writeBytes(fields);
            journal.append(scratch, null, crc);
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

    /** Deletes the journal and opens an empty one. */
    public void reset() throws IOException {
        if (journal != null) {
            journal.close();
            journal = null;
        }
        deleteTree(root);
        journal = Journal.open(root, true, Journal.blockSize(config));
        journal.startAfter(0);
        segmentBytes = 0;
        records = 0;
    }

    /**
     * Writes the journal's files: the current segment is closed first (later records go to a new one), so only
     * segments no longer written are copied.
     */
    public void writeSnapshot(OutputStream out) throws IOException {
        journal.sync();
        journal.roll();
        segmentBytes = 0;
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

    /** Replaces the journal with one {@link #writeSnapshot} wrote (here or on another member). */
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
        journal.startAfter(journal.segments().isEmpty() ? 0 : journal.segments().last());
        segmentBytes = 0;
    }

    private static void deleteTree(Path root) throws IOException {
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
