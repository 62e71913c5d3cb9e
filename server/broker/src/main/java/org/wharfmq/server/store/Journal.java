package org.wharfmq.server.store;

import io.netty.buffer.ByteBuf;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.bytes.MappedBytes;
import net.openhft.chronicle.bytes.MappedBytesStore;
import net.openhft.chronicle.bytes.SyncMode;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.queue.RollCycles;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import net.openhft.chronicle.core.OS;
import net.openhft.chronicle.wire.DocumentContext;
import net.openhft.posix.PosixAPI;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * The journal's files: a sequence of <em>segments</em>, each a Chronicle Queue of its own in a numbered directory
 * ({@code journal/00000001/}, {@code journal/00000002/}...). Records are appended to the newest segment only; the
 * journal moves on to a new segment when the current one is full, and every start of the server begins a new one.
 *
 * <p>Why one Chronicle queue per segment rather than Chronicle's own roll cycles: a segment left with a torn tail
 * by a crash is never opened for appending again, so Chronicle never waits on (or discards) a half-written
 * header of a dead process; and a segment is deleted as a unit once reclamation has emptied it.
 *
 * <p>Not thread-safe: recovery uses it first, then the journal writer thread alone. (The files of a deleted segment
 * are removed by {@link SegmentDeleter}'s thread, which touches nothing but directories already renamed away.)
 */
final class Journal implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(Journal.class.getName());

    /** JNR's switch between generated and reflective bindings of native functions (default: generated). */
    static final String JNR_ASM = "jnr.ffi.asm.enabled";

    /** Chronicle reports routine events (a file mapped, a sync took N ms) at INFO: only its warnings matter here. */
    private static final java.util.logging.Logger CHRONICLE_LOG = java.util.logging.Logger.getLogger("net.openhft");

    static {
        // Chronicle would otherwise report usage to its vendor and print banners on the console
        System.setProperty("chronicle.analytics.disable", "true");
        System.setProperty("chronicle.announcer.disable", "true");
        // Chronicle binds its POSIX calls (net.openhft.posix, through JNR) as it starts; JNR's default generates a class
        // and a machine-code stub per function, a third of the journal's first open in CPU. Bound by reflection, the
        // calls the journal makes (fallocate every MiB, madvise every mapped chunk) take microseconds more each.
        if (System.getProperty(JNR_ASM) == null) {
            System.setProperty(JNR_ASM, "false");
        }
        if (CHRONICLE_LOG.getLevel() == null) {
            CHRONICLE_LOG.setLevel(java.util.logging.Level.WARNING);
        }
    }

    /**
     * Kept claimed past the end of the next record: Chronicle writes its headers and, now and then, an index array
     * of its own at the write position along with the records.
     */
    static final long CLAIM_SLACK_BYTES = 256 << 10;

    /** The journal's directory in the data directory. */
    static final String DIRECTORY = "journal";

    /**
     * A part of a record (a message's body) of at least this many bytes in direct memory is written into the file
     * with positional writes rather than copied through the map, its whole pages at least ({@link #writeBeside}).
     */
    static final int WRITTEN_BESIDE_THE_MAP_BYTES = 64 << 10;

    /** The memory page: the unit of a page fault, and what {@link #writeBeside} aligns its writes to. */
    private static final long PAGE_BYTES = OS.pageSize();

    /** Linux madvise(2) advice: no read-ahead on faults, so the page cache holds the mapping in single pages. */
    private static final int MADV_RANDOM = 1;
    /** Cleared when madvise is not available here (not Linux, no native access): the journal works without it. */
    private static volatile boolean madviseAvailable = true;

    private final Path root;
    private final boolean fsync;
    private final long blockSize;
    private final Map<Integer, SingleChronicleQueue> open = new HashMap<>();
    private int activeSegment;
    private SingleChronicleQueue active;
    private ExcerptAppender appender;
    /** The mapped chunk last given {@link #MADV_RANDOM}: Chronicle maps a segment's file in large chunks. */
    private Object advisedChunk;
    /**
     * The current segment's file, opened for the positional writes of large records and for {@link #sync()} (an
     * fdatasync of it forces the pages written through the map too).
     */
    private FileChannel fileChannel;
    /** Claims the disk blocks of the current file ahead of its records (see {@link #claimRoomUpTo}). */
    private final DiskBlockClaims claims;
    /** The file offset up to which the current file's disk blocks are claimed. */
    private long claimedUpTo;
    private final SegmentDeleter deleter = new SegmentDeleter();

    private Journal(Path root, boolean fsync, long blockSize, DiskBlockClaims claims) {
        this.root = root;
        this.fsync = fsync;
        this.blockSize = blockSize;
        this.claims = claims;
    }

    /** Chronicle's mapped block for {@code config}'s largest message: a record must fit in a quarter of it. */
    static long blockSize(org.wharfmq.server.config.ServerConfig config) {
        // the file is sparse: unused blocks cost nothing
        return Math.max(16L << 20, Long.highestOneBit(4L * (config.maxMessageLength() + 65536L)) << 1);
    }

    /**
     * Opens the journal in {@code root}, creating the directory if needed.
     *
     * @param fsync whether {@link #sync()} forces the written pages to the disk
     */
    static Journal open(Path root, boolean fsync, long blockSize) throws IOException {
        return open(root, fsync, blockSize, new DiskBlockClaims());
    }

    /** {@link #open(Path, boolean, long)} with disk blocks claimed by {@code claims}: tests run out of disk so. */
    static Journal open(Path root, boolean fsync, long blockSize, DiskBlockClaims claims) throws IOException {
        Files.createDirectories(root);
        Journal journal = new Journal(root, fsync, blockSize, claims);
        journal.deleter.deleteLeftovers(root);
        return journal;
    }

    private SingleChronicleQueue queue(int segment) {
        if (segment == activeSegment && active != null) {
            return active;
        }
        return open.computeIfAbsent(segment, s -> build(directory(s)));
    }

    private SingleChronicleQueue build(Path directory) {
        try {
            return SingleChronicleQueueBuilder.binary(directory)
                    .rollCycle(RollCycles.FAST_HOURLY)
                    .timeProvider(() -> 0L) // one cycle per segment: segments, not clocks, split the journal
                    .syncMode(SyncMode.NONE) // the journal syncs the file itself, see sync()
                    .blockSize(blockSize)
                    .build();
        } catch (IllegalAccessError | ExceptionInInitializerError | NoClassDefFoundError e) {
            throw jvmFlagsMissing(e);
        } catch (RuntimeException | AssertionError e) {
            if (String.valueOf(e.getMessage()).contains("IllegalAccess") || e.getCause() instanceof IllegalAccessException) {
                throw jvmFlagsMissing(e);
            }
            throw e;
        }
    }

    private static IllegalStateException jvmFlagsMissing(Throwable e) {
        return new IllegalStateException("The journal (Chronicle Queue) cannot access JDK internals: start Java with "
                + "the options in bin/jvm.options, e.g. java @bin/jvm.options ... (bin/wharf passes them; docs/persistence.md).", e);
    }

    private Path directory(int segment) {
        return root.resolve(String.format("%08d", segment));
    }

    Path directory() {
        return root;
    }

    /** The segments present, oldest first. */
    TreeSet<Integer> segments() throws IOException {
        TreeSet<Integer> segments = new TreeSet<>();
        try (Stream<Path> list = Files.list(root)) {
            list.filter(Files::isDirectory).map(p -> p.getFileName().toString())
                    .filter(name -> name.length() == 8 && name.chars().allMatch(Character::isDigit))
                    .forEach(name -> segments.add(Integer.parseInt(name)));
        }
        return segments;
    }

    /**
     * The data file of {@code segment} that has no complete header, or null when every file has one. A run stopped
     * while Chronicle was creating a file leaves it so; the file then holds no record. Asked to read it, Chronicle
     * would wait 10-20 s for another process to finish the header, and then write one itself.
     */
    Path fileWithoutHeader(int segment) throws IOException {
        try (Stream<Path> files = Files.list(directory(segment))) {
            for (Path file : (Iterable<Path>) files.filter(p -> p.toString().endsWith(".cq4"))::iterator) {
                ByteBuffer header = ByteBuffer.allocate(4).order(java.nio.ByteOrder.LITTLE_ENDIAN);
                try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
                    while (header.hasRemaining() && channel.read(header, header.position()) > 0) {
                        // a header of four bytes is read in one go, but a short read is no error
                    }
                }
                // Chronicle's header word: 0 before it is written, the NOT_COMPLETE bit while it is being written
                if (header.hasRemaining() || header.getInt(0) == 0 || (header.getInt(0) & 0x80000000) != 0) {
                    return file;
                }
            }
        }
        return null;
    }

    /** A tailer at the start of {@code segment}, for recovery; the caller closes it. */
    ExcerptTailer tailer(int segment) {
        return queue(segment).createTailer().toStart();
    }

    /**
     * A reader of records by position with queues of its own ({@link JournalReader}: recovery's second step, the
     * writer's reclamation); the caller closes it.
     */
    JournalReader reader() {
        return new JournalReader(segment -> build(directory(segment)));
    }

    /** Closes the queues recovery's first pass opened (reclamation reads through a {@link JournalReader} of its own). */
    void closeReaders() {
        open.values().forEach(SingleChronicleQueue::close);
        open.clear();
    }

    /**
     * Opens a new segment after {@code lastSegment} for appending. The appender itself is created by the first
     * append, on the writer thread (Chronicle appenders belong to one thread).
     */
    void startAfter(int lastSegment) {
        activeSegment = Math.max(lastSegment, 0) + 1;
        active = build(directory(activeSegment));
    }

    /** The segment new records go to. */
    int currentSegment() {
        return activeSegment;
    }

    /** Makes later records go to a new segment. */
    void roll() {
        closeFileChannel();
        closeClaims();
        if (appender != null) {
            appender.close();
            appender = null;
        }
        active.close();
        startAfter(activeSegment);
    }

    /**
     * Appends one document: {@code fields}, then {@code body} (may be null), then {@code crc} (big-endian).
     *
     * @return the document's index in the current segment
     */
    long append(ByteBuf fields, ByteBuf body, int crc) {
        if (appender == null) {
            appender = active.createAppender();
        }
        try (DocumentContext dc = appender.writingDocument()) {
            Bytes<?> bytes = dc.wire().bytes();
            long end = bytes.writePosition() + fields.readableBytes() + (body == null ? 0 : body.readableBytes()) + 4;
            if (end + CLAIM_SLACK_BYTES > claimedUpTo) {
                try {
                    claimRoomUpTo(end + CLAIM_SLACK_BYTES);
                } catch (JournalFullException full) {
                    dc.rollbackOnClose(); // the document's header is written: it must not be committed empty
                    throw full;
                }
            }
            if (bytes.bytesStore() != advisedChunk) {
                adviseRandomAccess(bytes.bytesStore());
            }
            try {
                write(bytes, fields.nioBuffer());
                if (body != null && body.isReadable()) {
                    for (ByteBuffer part : body.nioBuffers()) {
                        write(bytes, part);
                    }
                }
            } catch (IOException e) { // a positional write failed: the record, written in part, must not be committed
                dc.rollbackOnClose();
                throw new UncheckedIOException("Could not write a record into the journal file "
                        + appender.currentFile() + ": " + e.getMessage(), e);
            }
            bytes.writeByte((byte) (crc >>> 24)).writeByte((byte) (crc >>> 16))
                    .writeByte((byte) (crc >>> 8)).writeByte((byte) crc);
        }
        return appender.lastIndexAppended();
    }

    /**
     * Makes sure the disk blocks of the current file up to offset {@code needed} are allocated to it, claiming
     * them {@link DiskBlockClaims#STEP_BYTES} further at a time with fallocate(2).
     *
     * <p>Why: Chronicle's file is sparse and written through a memory map. A write to a page whose block is not yet
     * allocated, on a disk that another program has just filled, cannot fail with an error: the kernel kills the
     * writing thread's access with SIGBUS, which the JVM turns into an {@link InternalError}, and the journal stops
     * until a restart. The writer keeps a reserve of free disk for consumes and commits ({@link JournalSpace}), but
     * reads the free space only every few milliseconds. With the blocks claimed first, a full disk is reported
     * here, by fallocate, as a {@link JournalFullException} for this record only, and consumes and commits go on
     * in the room already claimed ({@link DiskBlockClaims}).
     *
     * @throws JournalFullException when the disk has no room for the record
     */
    private void claimRoomUpTo(long needed) {
        long upTo = needed + claims.stepBytes();
        if (claims.claim(appender.currentFile(), claimedUpTo, upTo - claimedUpTo)) {
            claimedUpTo = upTo;
        } // else claims are not possible here: the journal works without (DiskBlockClaims said so once)
    }

    private void closeClaims() {
        claims.close();
        claimedUpTo = 0;
    }

    /**
     * Advises the kernel that the mapped chunk is accessed at random, before the writer faults in most of its pages.
     *
     * <p>Why: a page fault on a file mapping normally reads ahead, and on recent Linux kernels read-ahead fills the
     * page cache with large folios (up to megabytes). A write through the mapping then dirties the whole folio, and
     * every sync writes it all back again: measured here, a sync of one 2 KiB record wrote 118 KiB to the disk, and
     * of 64 records (130 KiB) 890 KiB. With {@code MADV_RANDOM} faults take single pages, a sync writes only the
     * pages the batch touched, and the disk writes 4-5 times less (docs/performance-log.md). Recovery and reclamation
     * read other mappings, which keep their read-ahead.
     */
    private void adviseRandomAccess(Object chunk) {
        advisedChunk = chunk;
        if (!madviseAvailable || !(chunk instanceof MappedBytesStore)) {
            return;
        }
        MappedBytesStore mapped = (MappedBytesStore) chunk;
        try {
            int result = PosixAPI.posix().madvise(mapped.addressForRead(mapped.start()),
                    mapped.safeLimit() - mapped.start(), MADV_RANDOM);
            if (result != 0) {
                LOG.log(System.Logger.Level.DEBUG, "madvise(MADV_RANDOM) of a journal chunk returned " + result);
            }
        } catch (RuntimeException | LinkageError e) {
            madviseAvailable = false;
            LOG.log(System.Logger.Level.INFO, "The journal cannot give the kernel access advice (" + e + "); "
                    + "it works without, but syncs may write back more than the records they cover.");
        }
    }

    /** Writes {@code part} at the document's write position: through the map, or beside it when it is large. */
    private void write(Bytes<?> bytes, ByteBuffer part) throws IOException {
        if (part.remaining() >= WRITTEN_BESIDE_THE_MAP_BYTES && part.isDirect() && bytes instanceof MappedBytes) {
            writeBeside(bytes, part);
        } else {
            writeThroughMap(bytes, part);
        }
    }

    /**
     * Writes a large part of a record into the file with positional writes, but for the pieces before its first
     * and after its last page boundary, which go through the map as small records do; the document's write position
     * then skips what was written (a position in Chronicle's mapped bytes is the offset in the file).
     *
     * <p>Why: written through the map, every 4 KiB page of a large record is a page fault on the writer's thread
     * (with the filesystem's work for a page made writable), and every page synced is write-protected again in the
     * writer's page tables, a TLB shoot-down to the other cores; a 2 MB message is 512 of each. A positional write
     * copies the bytes into the same page cache, which the map shares, in one system call, and the pages it fills
     * are never mapped. Whole pages only: a page shared with the next records is written through the map, so that
     * large page-cache folios made by the positional write never hold a small record's page (a write through the map
     * dirties its whole folio, which each later sync would write back again: {@link #adviseRandomAccess}).
     *
     * <p>The file holds the same bytes either way: recovery and every reader are unchanged. What a sync forces is
     * the file, so it covers these pages as it covers the mapped ones.
     */
    private void writeBeside(Bytes<?> bytes, ByteBuffer part) throws IOException {
        long position = bytes.writePosition();
        int start = part.position();
        int head = (int) Math.min(part.remaining(), -position & (PAGE_BYTES - 1));
        int pages = (int) ((part.remaining() - head) & -PAGE_BYTES);
        writeThroughMap(bytes, part.slice(start, head));
        ByteBuffer whole = part.slice(start + head, pages);
        FileChannel file = fileChannel();
        for (long at = position + head; whole.hasRemaining(); ) {
            at += file.write(whole, at);
        }
        bytes.writeSkip(pages);
        part.position(start + head + pages);
        writeThroughMap(bytes, part);
    }

    /** Chronicle copies a heap buffer from its array ignoring the array offset, so arrays are passed explicitly. */
    private static void writeThroughMap(Bytes<?> bytes, ByteBuffer part) {
        if (part.hasArray()) {
            bytes.write(part.array(), part.arrayOffset() + part.position(), part.remaining());
        } else {
            while (part.hasRemaining()) {
                bytes.writeSome(part);
            }
        }
    }

    /**
     * The current segment's file, for forcing what was appended to the disk; null before the segment's first
     * append, or when the journal was opened without fsync. Only the writer thread calls this; the channel may be
     * forced from any thread until the next {@link #roll} or {@link #close}.
     *
     * <p>Why an {@code fdatasync} of the file rather than Chronicle's {@code msync} of the mapped range: the page
     * cache is one, so forcing the file writes back every page dirtied through the mapping (the records, and
     * Chronicle's header and index pages too, which an {@code msync} of the record range leaves out) and every page
     * written beside it ({@link #writeBeside}), and a file channel can be forced from another thread while the
     * writer goes on appending ({@link JournalSyncer}).
     */
    FileChannel syncChannel() {
        if (!fsync || appender == null) {
            return null;
        }
        return fileChannel();
    }

    /** The current segment's file, opened for writing on first use (again if an interrupt closed it). */
    private FileChannel fileChannel() {
        if (fileChannel == null || !fileChannel.isOpen()) {
            try {
                fileChannel = FileChannel.open(appender.currentFile().toPath(), StandardOpenOption.WRITE);
            } catch (IOException e) {
                throw new UncheckedIOException("Could not open the journal file " + appender.currentFile(), e);
            }
        }
        return fileChannel;
    }

    /** Forces everything appended so far to the disk, on the calling thread (a no-op without fsync). */
    void sync() {
        FileChannel channel = syncChannel();
        if (channel != null) {
            try {
                channel.force(false);
            } catch (IOException e) {
                throw new UncheckedIOException("Could not sync the journal file " + appender.currentFile(), e);
            }
        }
    }

    private void closeFileChannel() {
        if (fileChannel != null) {
            try {
                fileChannel.close();
            } catch (IOException e) {
                LOG.log(System.Logger.Level.WARNING, "Could not close journal file: " + e);
            }
            fileChannel = null;
        }
    }

    /** The pieces {@link #copy} copies a record in. */
    static final int COPY_PIECE_BYTES = 64 * 1024;

    /**
     * Copies the readable part of a Chronicle document into a direct Netty buffer (cleared first), through
     * {@code piece} (Chronicle reads into a direct buffer a byte at a time; into an array at once): a record, a
     * message of up to maxMessageLength, is never whole on the heap, so a server's heap need not hold its largest
     * message (LargeMessageProcessTest recovers a 100 MB message with a 64 MiB heap).
     */
    static void copy(Bytes<?> bytes, ByteBuf into, byte[] piece) {
        int length = (int) bytes.readRemaining();
        into.clear().ensureWritable(length);
        for (int left = length; left > 0; ) {
            int n = Math.min(left, piece.length);
            bytes.read(piece, 0, n);
            into.writeBytes(piece, 0, n);
            left -= n;
        }
    }

    /**
     * Deletes an old segment (never the current one): closed and renamed here, its files deleted by the
     * {@link SegmentDeleter}'s thread, since unlinking them took the writer a tenth of a second and more.
     */
    void delete(int segment) {
        SingleChronicleQueue queue = open.remove(segment);
        if (queue != null) {
            queue.close();
        }
        deleter.delete(directory(segment));
    }

    @Override
    public void close() {
        deleter.close();
        closeReaders();
        closeFileChannel();
        closeClaims();
        if (appender != null) {
            appender.close();
        }
        if (active != null) {
            active.close();
        }
    }
}
