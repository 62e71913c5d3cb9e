package org.wharfmq.server.replication;

import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * One Raft log entry: one group-commit batch of journal records, with the id of the member that appended it, or
 * (format {@link #CHUNK}) a piece of a batch too large for one entry (a large message's record), or
 * (format {@link #FILE}) the whole new version of a file the queue manager keeps beside its journal (the definitions
 * made at run time, {@code queues.def}).
 *
 * <pre>
 * u8 format (1) | u8 n | n bytes: origin member id (UTF-8) | the batch's records, as the journal writer gives them
 *               (the records of consecutive batches merged into one entry read as one batch)
 * u8 format (2) | u8 n | n bytes: origin member id (UTF-8) | u8 m | m bytes: the file's name | the file's content
 * u8 format (3) | u8 n | n bytes: origin member id (UTF-8) | i32 the batch's length | i32 this piece's offset in it
 *               | the piece's bytes
 * u8 format (4) | u8 n | n bytes: origin member id (UTF-8) | the origin's {@link GroupSettings}, as it encodes them
 * </pre>
 *
 * Format 4 is the entry a member appends once elected ({@link ReplicatedLog}): the settings every member must share,
 * which each member compares with its own as it applies it ({@link JournalStateMachine}).
 *
 * The records and the file are opaque here; the sink reads them. A batch's pieces are consecutive entries of one term,
 * offsets from 0 up; {@link ChunkJoiner} puts them together again.
 */
final class BatchEntry {

    static final byte FORMAT = 1;
    /** An entry holding a file beside the journal. */
    static final byte FILE = 2;
    /** An entry holding a piece of a batch. */
    static final byte CHUNK = 3;
    /** An entry holding the settings of a member just elected. */
    static final byte SETTINGS = 4;

    private BatchEntry() {
    }

    /** The header for entries appended by {@code origin}; made once per member. */
    static ByteString header(String origin) {
        byte[] id = origin.getBytes(StandardCharsets.UTF_8);
        byte[] header = new byte[2 + id.length];
        header[0] = FORMAT;
        header[1] = (byte) id.length;
        System.arraycopy(id, 0, header, 2, id.length);
        return ByteString.copyFrom(header);
    }

    /**
     * {@code records} as part of an entry, not copied (they must not change until committed): an entry is its
     * {@link #header} followed by one or more batches' records, which read as one batch.
     */
    static ByteString wrap(ByteBuffer records) {
        return UnsafeByteOperations.unsafeWrap(records.slice());
    }

    /** A file entry: {@code name}'s new {@code content}, appended by {@code origin}. */
    static ByteString file(String origin, String name, byte[] content) {
        byte[] id = origin.getBytes(StandardCharsets.UTF_8);
        byte[] file = name.getBytes(StandardCharsets.UTF_8);
        byte[] header = new byte[3 + id.length + file.length];
        header[0] = FILE;
        header[1] = (byte) id.length;
        System.arraycopy(id, 0, header, 2, id.length);
        header[2 + id.length] = (byte) file.length;
        System.arraycopy(file, 0, header, 3 + id.length, file.length);
        return ByteString.copyFrom(header).concat(ByteString.copyFrom(content));
    }

    /**
     * A piece of a batch appended by {@code origin}: {@code piece}, at {@code offset} of the batch's {@code total}
     * bytes, without copying it (it must not change until committed).
     */
    static ByteString chunk(String origin, int total, int offset, ByteBuffer piece) {
        byte[] id = origin.getBytes(StandardCharsets.UTF_8);
        ByteBuffer header = ByteBuffer.allocate(2 + id.length + 8);
        header.put(CHUNK).put((byte) id.length).put(id).putInt(total).putInt(offset);
        return ByteString.copyFrom(header.array()).concat(UnsafeByteOperations.unsafeWrap(piece.slice()));
    }

    /** A settings entry: the {@code settings} of {@code origin}, just elected. */
    static ByteString settings(String origin, GroupSettings settings) {
        byte[] id = origin.getBytes(StandardCharsets.UTF_8);
        byte[] header = new byte[2 + id.length];
        header[0] = SETTINGS;
        header[1] = (byte) id.length;
        System.arraycopy(id, 0, header, 2, id.length);
        return ByteString.copyFrom(header).concat(settings.encode());
    }

    /** Whether {@code entry} holds a member's settings. */
    static boolean isSettings(ByteString entry) {
        return entry.size() >= 2 && entry.byteAt(0) == SETTINGS;
    }

    /** The settings of a settings entry. */
    static GroupSettings settingsOf(ByteString entry) {
        return GroupSettings.decode(entry.substring(2 + (entry.byteAt(1) & 0xFF)));
    }

    /** Whether {@code entry} holds a piece of a batch. */
    static boolean isChunk(ByteString entry) {
        return entry.size() >= 2 && entry.byteAt(0) == CHUNK;
    }

    /** A piece's batch length. */
    static int chunkTotal(ByteString entry) {
        return intAt(entry, 2 + (entry.byteAt(1) & 0xFF));
    }

    /** A piece's offset in its batch. */
    static int chunkOffset(ByteString entry) {
        return intAt(entry, 6 + (entry.byteAt(1) & 0xFF));
    }

    /** A piece's bytes, read-only. */
    static ByteBuffer chunkBytes(ByteString entry) {
        return entry.substring(10 + (entry.byteAt(1) & 0xFF)).asReadOnlyByteBuffer();
    }

    private static int intAt(ByteString entry, int at) {
        return (entry.byteAt(at) & 0xFF) << 24 | (entry.byteAt(at + 1) & 0xFF) << 16
                | (entry.byteAt(at + 2) & 0xFF) << 8 | entry.byteAt(at + 3) & 0xFF;
    }

    /** Whether {@code entry} holds a file rather than journal records. */
    static boolean isFile(ByteString entry) {
        return entry.size() >= 2 && entry.byteAt(0) == FILE;
    }

    /** The name of a file entry's file. */
    static String fileName(ByteString entry) {
        int at = 2 + (entry.byteAt(1) & 0xFF);
        return entry.substring(at + 1, at + 1 + (entry.byteAt(at) & 0xFF)).toString(StandardCharsets.UTF_8);
    }

    /** The content of a file entry's file, read-only. */
    static ByteBuffer fileContent(ByteString entry) {
        int at = 2 + (entry.byteAt(1) & 0xFF);
        return entry.substring(at + 1 + (entry.byteAt(at) & 0xFF)).asReadOnlyByteBuffer();
    }

    /** The origin member id of an entry. */
    static String origin(ByteString entry) {
        if (isFile(entry) || isChunk(entry) || isSettings(entry)) {
            return entry.substring(2, 2 + (entry.byteAt(1) & 0xFF)).toString(StandardCharsets.UTF_8);
        }
        checkFormat(entry);
        int length = entry.byteAt(1) & 0xFF;
        return entry.substring(2, 2 + length).toString(StandardCharsets.UTF_8);
    }

    /** The records of an entry, read-only. */
    static ByteBuffer records(ByteString entry) {
        checkFormat(entry);
        int length = entry.byteAt(1) & 0xFF;
        return entry.substring(2 + length).asReadOnlyByteBuffer();
    }

    private static void checkFormat(ByteString entry) {
        if (entry.size() < 2 || entry.byteAt(0) != FORMAT) {
            throw new IllegalStateException("A replicated log entry of format "
                    + (entry.isEmpty() ? "(empty)" : Byte.toString(entry.byteAt(0))) + " is not one this version "
                    + "reads (format " + FORMAT + "): every member must run the same Wharf version.");
        }
    }
}
