package org.wharfmq.server.queue;

import io.netty.buffer.ByteBuf;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.List;

/**
 * One queue's paged messages on disk, in the order they were paged: append-only segment files of records, read back
 * from the oldest and deleted once read (docs/resilience.md, "Paging").
 *
 * <h2>Record</h2>
 * {@code [int length][long sequence][int deliveryCount][int correlationHash][message bytes]}: {@code length} counts
 * everything after itself; {@code correlationHash} is {@link #correlationHash} of the message's JMSCorrelationID, 0
 * without one. Headers are read again from the message bytes when a record is read back. Nothing is synced: a page
 * file is not the durable copy of anything (a persistent message's is in the journal), and the paging directory is
 * emptied when the server starts.
 *
 * <h2>Correlation ids</h2>
 * Each segment keeps, in memory, the hashes of the correlation ids of its records ({@link IntHashSet}, about 8 bytes
 * per record that has one) and which records were taken out of order ({@link #take}); a consumer waiting for a reply
 * reads only the segments whose set holds its id's hash. A consumer with any other selector {@link #scan}s the records
 * from where it has got to ({@link Position}), taking the first it accepts the same way.
 *
 * <p>Not thread-safe: owned by the {@link Pager}'s thread, the only one that does disk I/O for paging.
 */
final class PageStore {

    /** Bytes before the message in a record: length, sequence, delivery count, correlation hash. */
    static final int RECORD_HEADER_BYTES = 4 + 8 + 4 + 4;
    /** A segment file takes records until it holds this many bytes: {@value} (64 MiB). */
    static final long SEGMENT_BYTES = 64L * 1024 * 1024;
    /** Records are written in batches of about this many bytes: {@value} (1 MiB). */
    static final int WRITE_BATCH_BYTES = 1024 * 1024;
    /**
     * A {@link #scan} reads in pieces of about this many bytes, {@value} (64 KiB, the paging thread's read buffer at
     * first), so that a match found early in a piece wastes little of the read.
     */
    static final int SCAN_READ_BYTES = 64 * 1024;

    private final Path directory;
    private final ArrayDeque<Segment> segments = new ArrayDeque<>();
    private long nextSegment;
    /** Records written and neither read back nor taken. */
    private long unread;

    /** A store whose segments go into {@code directory} (created with the first record). */
    PageStore(Path directory) {
        this.directory = directory;
    }

    /** The bytes a record for {@code m} takes on disk: what the queue's and the server's disk budgets count. */
    static long recordBytes(QueuedMessage m) {
        return RECORD_HEADER_BYTES + m.content().readableBytes();
    }

    /** The hash the correlation index on disk keeps for a correlation id; never 0 (0 means none). */
    static int correlationHash(String correlationId) {
        if (correlationId == null) {
            return 0;
        }
        int h = correlationId.hashCode();
        return h == 0 ? 1 : h;
    }

    /** Whether every record written has been read back or taken. */
    boolean isEmpty() {
        return unread == 0;
    }

    /**
     * Appends a record for each of {@code messages}, in order, through {@code scratch} (the caller's buffer, cleared
     * here): one write per segment and up to {@value #WRITE_BATCH_BYTES} bytes. A record counts as written only once
     * its write has returned, so a failed write leaves the store as it was before that write (a later write goes to
     * the same place).
     *
     * @throws WriteFailed when a write fails (a full disk, an I/O error), saying how many of {@code messages}, from
     *                     the first, were written before it
     */
    void append(List<QueuedMessage> messages, ByteBuf scratch) {
        int written = 0;
        try {
            scratch.clear();
            Segment s = segments.peekLast();
            int pending = 0;
            for (int i = 0; i < messages.size(); i++) {
                QueuedMessage m = messages.get(i);
                long length = recordBytes(m);
                long end = s == null ? 0 : s.writePosition + scratch.readableBytes();
                if (s == null || (end > 0 && end + length > SEGMENT_BYTES)) {
                    written += flush(s, scratch, pending);
                    pending = 0;
                    s = newSegment();
                } else if (scratch.readableBytes() >= WRITE_BATCH_BYTES) {
                    written += flush(s, scratch, pending);
                    pending = 0;
                }
                int hash = correlationHash(m.correlationId());
                ByteBuf content = m.content();
                scratch.writeInt((int) length - 4).writeLong(m.sequence).writeInt(m.deliveryCount()).writeInt(hash);
                scratch.writeBytes(content, content.readerIndex(), content.readableBytes());
                if (hash != 0) {
                    s.correlationHashes.add(hash); // a hash left by a failed write only costs a look, never a miss
                }
                pending++;
            }
            flush(s, scratch, pending);
        } catch (IOException e) {
            scratch.clear();
            throw new WriteFailed("Cannot write the paging file of " + directory + ": " + e, e, written);
        }
    }

    /**
     * Writes what {@code scratch} holds, {@code records} records, at the end of {@code s}, counts them as written
     * and clears it.
     *
     * @return {@code records}
     */
    private int flush(Segment s, ByteBuf scratch, int records) throws IOException {
        if (s != null && scratch.isReadable()) {
            s.writePosition += writeFully(s.channel, scratch, s.writePosition);
            s.written += records;
            unread += records;
        }
        scratch.clear();
        return records;
    }

    /** An {@link #append} that failed part way: how many of its messages, from the first, are in the store. */
    static final class WriteFailed extends UncheckedIOException {
        final int written;

        WriteFailed(String message, IOException cause, int written) {
            super(message, cause);
            this.written = written;
        }
    }

    /**
     * Reads the next records in order into {@code into} (cleared here), whole records only, about {@code maxBytes}
     * (at least one record) in few reads, skipping those already {@link #take taken}; deletes the segments it has
     * read to the end.
     *
     * @return how many records {@code into} holds now (0: the store is empty)
     */
    int read(ByteBuf into, int maxBytes) {
        into.clear();
        int records = 0;
        int whole = 0; // the end of the whole records read so far: what a failed read gives back
        try {
            while (records == 0 || into.readableBytes() < maxBytes) {
                Segment s = segments.peekFirst();
                if (s == null) {
                    return records;
                }
                if (s.readPosition == s.writePosition) {
                    deleteFirst();
                    continue;
                }
                int start = into.writerIndex();
                long available = s.writePosition - s.readPosition;
                int first = readInt(s.channel, s.readPosition, into) + 4;
                int want = (int) Math.min(available, Math.max(first, maxBytes - into.readableBytes()));
                readFully(s.channel, s.readPosition, want, into);
                int end = start + want;
                int at = start;
                while (at + 4 <= end) {
                    int length = into.getInt(at) + 4;
                    if (at + length > end) {
                        break;
                    }
                    if (s.isTaken(s.read)) { // cut off here; the next round reads on after it
                        s.read++;
                        s.readPosition += length;
                        break;
                    }
                    at += length;
                    s.read++;
                    s.readPosition += length;
                    unread--;
                    records++;
                }
                into.writerIndex(at);
                whole = at;
            }
            return records;
        } catch (IOException | UncheckedIOException e) {
            if (records > 0) { // counted as read: hand them over; the next read meets the failure again
                into.writerIndex(whole);
                return records;
            }
            throw new UncheckedIOException("Cannot read the paging file of " + directory + ": " + e,
                    e instanceof IOException io ? io : new IOException(e));
        }
    }

    /**
     * Copies the unread records after {@code at} into {@code into} (cleared here), in order, whole records only, about
     * {@code maxBytes} (at least one record), skipping taken ones, without reading them back: a browse. Moves
     * {@code at} past them; a position whose records were read back since resumes at the oldest unread record.
     *
     * @return how many records {@code into} holds now (0: none after {@code at})
     */
    int browse(Position at, ByteBuf into, int maxBytes) {
        into.clear();
        int records = 0;
        try {
            for (Segment s : segments) {
                if (!resumeIn(s, at)) {
                    continue;
                }
                while (at.position < s.writePosition) {
                    int length = readInt(s.channel, at.position, into) + 4;
                    if (records > 0 && into.readableBytes() + length > maxBytes) {
                        return records;
                    }
                    if (!s.isTaken(at.index)) {
                        readFully(s.channel, at.position, length, into);
                        records++;
                    }
                    at.position += length;
                    at.index++;
                }
            }
            return records;
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read the paging file of " + directory + ": " + e.getMessage(), e);
        }
    }

    /**
     * Whether a walk from {@code at} looks at records of {@code s}: not when it is past them; when {@code at} is
     * before the segment, or before its first unread record (the ones before were read back since), it is moved to
     * that record.
     */
    private static boolean resumeIn(Segment s, Position at) {
        if (s.number < at.segment) {
            return false;
        }
        if (s.number > at.segment || at.position < s.readPosition) {
            at.segment = s.number;
            at.position = s.readPosition;
            at.index = s.read;
        }
        return true;
    }

    /**
     * Where a walk of a store (a browse, a selector's {@link #scan}) has got to: the next record to look at, as a
     * segment's number, a byte position and a record index in it. A new one starts at the oldest unread record.
     */
    static final class Position {
        long segment;
        long position;
        int index;
    }

    /**
     * Looks at the unread records from {@code at} on, in order, for the first that {@code accepts} (taken ones are
     * skipped, not shown to it), reading about {@code maxBytes} at most (at least one piece of
     * {@value #SCAN_READ_BYTES}); marks the one found taken, as {@link #take} does, and leaves it as the readable bytes
     * of {@code into}, which is empty when none was found ({@link #atEnd} then says whether every record has been
     * looked at). Moves {@code at} past every record looked at, the one found included, so that a scan resumed from
     * there never looks at a record twice.
     *
     * @return how many bytes it read
     */
    long scan(Position at, ByteBuf into, int maxBytes, RecordFilter accepts) {
        long read = 0;
        try {
            for (Segment s : segments) {
                if (!resumeIn(s, at)) {
                    continue;
                }
                while (at.position < s.writePosition) {
                    if (read >= maxBytes) {
                        into.clear();
                        return read;
                    }
                    into.clear();
                    int first = readInt(s.channel, at.position, into) + 4;
                    int piece = (int) Math.max(first, Math.min(s.writePosition - at.position, SCAN_READ_BYTES));
                    readFully(s.channel, at.position, piece, into);
                    read += piece;
                    for (int offset = 0; offset + 4 <= piece; ) {
                        int length = into.getInt(offset) + 4;
                        if (offset + length > piece) {
                            break; // the next piece starts with it
                        }
                        boolean found = false;
                        if (!s.isTaken(at.index)) {
                            into.setIndex(offset, offset + length);
                            found = accepts.accepts(into);
                        }
                        at.position += length;
                        at.index++;
                        if (found) {
                            takeOutOfOrder(s, at.index - 1);
                            return read;
                        }
                        offset += length;
                    }
                }
            }
            into.clear();
            return read;
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read the paging file of " + directory + ": " + e.getMessage(), e);
        }
    }

    /** Whether a walk at {@code at} has looked at every record written so far. */
    boolean atEnd(Position at) {
        Segment last = segments.peekLast();
        return last == null || at.segment > last.number
                || at.segment == last.number && at.position >= last.writePosition;
    }

    /** Moves {@code at} past every record written so far: a scan that has looked at them all otherwise. */
    void toEnd(Position at) {
        Segment last = segments.peekLast();
        if (last != null) {
            at.segment = last.number;
            at.position = last.writePosition;
            at.index = last.written;
        }
    }

    /**
     * Finds the oldest unread record whose JMSCorrelationID hashes to {@code hash} and that {@code accepts}, reading
     * only segments whose set holds the hash; copies it into {@code into} (cleared here) and marks it taken, so
     * {@link #read} skips it.
     *
     * @return whether one was found
     */
    boolean take(int hash, ByteBuf into, RecordFilter accepts) {
        into.clear();
        try {
            for (Segment s : segments) {
                if (!s.correlationHashes.contains(hash)) {
                    continue;
                }
                long position = s.readPosition;
                for (int index = s.read; index < s.written; index++) {
                    into.clear();
                    int length = readInt(s.channel, position, into) + 4;
                    if (!s.isTaken(index)) {
                        into.clear();
                        readFully(s.channel, position, RECORD_HEADER_BYTES, into);
                        if (into.getInt(16) == hash) {
                            into.clear();
                            into.ensureWritable(length);
                            readFully(s.channel, position, length, into);
                            if (accepts.accepts(into)) {
                                takeOutOfOrder(s, index);
                                return true;
                            }
                        }
                    }
                    position += length;
                }
            }
            into.clear();
            return false;
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read the paging file of " + directory + ": " + e.getMessage(), e);
        }
    }

    /** Record {@code index} of {@code s} is taken before its turn: {@link #read} skips it when it gets there. */
    private void takeOutOfOrder(Segment s, int index) {
        s.markTaken(index);
        unread--;
    }

    /** Decides whether a record found by {@link #take} or {@link #scan} is the one wanted. */
    @FunctionalInterface
    interface RecordFilter {
        /** {@code record} holds one whole record from its first byte. */
        boolean accepts(ByteBuf record);
    }

    /** Deletes every segment: the queue is deleted or the server stops. */
    void delete() {
        while (!segments.isEmpty()) {
            deleteFirst();
        }
        unread = 0;
        try {
            Files.deleteIfExists(directory);
        } catch (IOException ignored) {
            // not empty (a file the operating system still shows) or gone: the next start empties the directory
        }
    }

    private Segment newSegment() throws IOException {
        Files.createDirectories(directory);
        Path file = directory.resolve(String.format("%08d.page", nextSegment++));
        Segment s = new Segment(nextSegment - 1, file, FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                StandardOpenOption.WRITE));
        segments.addLast(s);
        return s;
    }

    private void deleteFirst() {
        Segment s = segments.pollFirst();
        try {
            s.channel.close();
            Files.deleteIfExists(s.file);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot delete the paging file " + s.file + ": " + e.getMessage(), e);
        }
    }

    private static int writeFully(FileChannel channel, ByteBuf bytes, long position) throws IOException {
        int length = bytes.readableBytes();
        int written = 0;
        while (written < length) {
            written += bytes.getBytes(bytes.readerIndex() + written, channel, position + written, length - written);
        }
        return length;
    }

    private static int readInt(FileChannel channel, long position, ByteBuf scratch) throws IOException {
        int at = scratch.writerIndex();
        readFully(channel, position, 4, scratch);
        int value = scratch.getInt(at);
        scratch.writerIndex(at);
        return value;
    }

    private static void readFully(FileChannel channel, long position, int length, ByteBuf into) throws IOException {
        into.ensureWritable(length);
        int done = 0;
        while (done < length) {
            int n = into.writeBytes(channel, position + done, length - done);
            if (n < 0) {
                throw new IOException("the file ends before its record (" + length + " bytes at " + position + ")");
            }
            done += n;
        }
    }

    /** One segment file and what is known of it in memory. */
    private static final class Segment {
        /** Segments are numbered in the order written. */
        final long number;
        final Path file;
        final FileChannel channel;
        long writePosition;
        long readPosition;
        /** Records written into it, and read back (or skipped as taken) from its start. */
        int written;
        int read;
        final IntHashSet correlationHashes = new IntHashSet();
        /** Records taken out of order, by index in the segment; null until the first. */
        java.util.BitSet taken;

        Segment(long number, Path file, FileChannel channel) {
            this.number = number;
            this.file = file;
            this.channel = channel;
        }

        boolean isTaken(int index) {
            return taken != null && taken.get(index);
        }

        void markTaken(int index) {
            if (taken == null) {
                taken = new java.util.BitSet();
            }
            taken.set(index);
        }
    }
}
