package org.wharfmq.server.store;

import io.netty.buffer.ByteBuf;

import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32C;

/**
 * The journal's record formats. Every record is one Chronicle Queue document:
 *
 * <pre>
 *   u8 type | fields of the type | u32 CRC-32C of everything before it
 *
 *   PUT       i64 tx (0 = none) | str queue | i64 sequence | i32 deliveryCount | i32 length | message bytes
 *   REMOVE    i64 tx (0 = none) | i32 n | n x (str queue | i64 sequence)
 *   COMMIT    i64 tx
 *   ROLLBACK  i64 tx
 *   QUEUE     str name
 *   DELIVERED str queue | i64 sequence | i32 deliveryCount
 *   CLOSED    (nothing: the journal was closed in order)
 *
 *   str = u16 length | UTF-8 bytes;  integers big-endian
 * </pre>
 *
 * Chronicle frames each document with a length and a "complete" bit, so a write cut short by a crash is never
 * read as a record; the CRC catches what the framing cannot (a torn page, garbage written over the tail).
 */
final class JournalRecord {

    static final byte PUT = 1;
    static final byte REMOVE = 2;
    static final byte COMMIT = 3;
    static final byte ROLLBACK = 4;
    static final byte QUEUE = 5;
    static final byte DELIVERED = 6;
    static final byte CLOSED = 7;

    /** Bytes of the CRC that ends every record. */
    static final int CRC_BYTES = 4;

    private JournalRecord() {
    }

    /** Writes the fields of a PUT up to, not including, the message bytes. */
    static void putHeader(ByteBuf out, long tx, String queue, long sequence, int deliveryCount, int length) {
        out.writeByte(PUT).writeLong(tx);
        writeString(out, queue);
        out.writeLong(sequence).writeInt(deliveryCount).writeInt(length);
    }

    static void remove(ByteBuf out, long tx, String[] queues, long[] sequences) {
        out.writeByte(REMOVE).writeLong(tx).writeInt(queues.length);
        for (int i = 0; i < queues.length; i++) {
            writeString(out, queues[i]);
            out.writeLong(sequences[i]);
        }
    }

    static void marker(ByteBuf out, byte type, long tx) {
        out.writeByte(type).writeLong(tx);
    }

    static void queue(ByteBuf out, String name) {
        out.writeByte(QUEUE);
        writeString(out, name);
    }

    static void delivered(ByteBuf out, String queue, long sequence, int deliveryCount) {
        out.writeByte(DELIVERED);
        writeString(out, queue);
        out.writeLong(sequence).writeInt(deliveryCount);
    }

    static void closed(ByteBuf out) {
        out.writeByte(CLOSED);
    }

    static void writeString(ByteBuf out, String s) {
        byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
        out.writeShort(bytes.length).writeBytes(bytes);
    }

    static String readString(ByteBuf in) {
        int length = in.readUnsignedShort();
        String s = in.toString(in.readerIndex(), length, StandardCharsets.UTF_8);
        in.skipBytes(length);
        return s;
    }

    /**
     * Whether a whole record (as read from the journal, CRC included) is intact; on success the buffer's writer
     * index is moved before the CRC so that only the fields remain readable.
     */
    static boolean verify(ByteBuf record) {
        int length = record.readableBytes();
        if (length < 1 + CRC_BYTES) {
            return false;
        }
        CRC32C crc = new CRC32C();
        crc.update(record.nioBuffer(record.readerIndex(), length - CRC_BYTES));
        if ((int) crc.getValue() != record.getInt(record.readerIndex() + length - CRC_BYTES)) {
            return false;
        }
        record.writerIndex(record.writerIndex() - CRC_BYTES);
        return true;
    }
}
