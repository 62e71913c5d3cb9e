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
 *   SUBSCRIPTION  str queue | str name | u8 flags (1 noLocal, 2 shared, 4 client ID, 8 selector, 16 owner)
 *                 | [str clientId] | str topic | [i32 length | UTF-8 selector] | [str owner]
 *   UNSUBSCRIBED  str queue
 *   QUEUE_DELETED str name   (a queue created at run time, deleted as unused: its QUEUE record is dead)
 *   PREPARE   i64 tx | i32 length | branch bytes   (an XA branch's Xid and owner, XaBranch.storeKey: the
 *                                                   transaction is in doubt until its COMMIT or ROLLBACK)
 *   PUT_COPIES  i64 tx (0 = none) | i32 n | n x (str queue | i64 sequence) | i32 length | message bytes
 *                                 (one message's copies on n queues, a publication's: its bytes once; since journal
 *                                 format 2)
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
    static final byte SUBSCRIPTION = 8;
    static final byte UNSUBSCRIBED = 9;
    static final byte QUEUE_DELETED = 10;
    static final byte PREPARE = 11;
    /** Since journal format 2 ({@link #FORMAT}): a journal of format 1 has none, and recovers as it always did. */
    static final byte PUT_COPIES = 12;

    /**
     * The journal's format: 2 since {@link #PUT_COPIES}. A server reads every format up to its own; one of an earlier
     * format stops reading a segment at its first record of a later type (docs/persistence.md, "Record formats").
     */
    static final int FORMAT = 2;

    private static final int SUB_NO_LOCAL = 1;
    private static final int SUB_SHARED = 2;
    private static final int SUB_CLIENT_ID = 4;
    private static final int SUB_SELECTOR = 8;
    /** Since issue 21: the creating user; journals written before have no such records and recover unowned. */
    private static final int SUB_OWNER = 16;

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

    /** Writes the fields of a PUT_COPIES up to, not including, the message bytes. */
    static void putCopiesHeader(ByteBuf out, long tx, String[] queues, long[] sequences, int length) {
        out.writeByte(PUT_COPIES).writeLong(tx).writeInt(queues.length);
        for (int i = 0; i < queues.length; i++) {
            writeString(out, queues[i]);
            out.writeLong(sequences[i]);
        }
        out.writeInt(length);
    }

    /**
     * Reads a verified PUT or PUT_COPIES record's fields up to the message bytes, leaving {@code record} at them.
     *
     * @return the message's length
     */
    static int skipPutHeader(ByteBuf record) {
        byte type = record.readByte();
        record.readLong();
        if (type == PUT_COPIES) {
            int n = record.readInt();
            for (int i = 0; i < n; i++) {
                record.skipBytes(record.readUnsignedShort());
                record.readLong();
            }
        } else {
            readString(record);
            record.readLong();
            record.readInt();
        }
        return record.readInt();
    }

    /**
     * The bytes of a PUT_COPIES record of {@code bytes} that its {@code copy}-th of {@code copies} copies counts as
     * live: an even share, the rest of the division on the first, so that the record's bytes are live while any copy
     * is and dead once none is.
     */
    static int share(int bytes, int copies, int copy) {
        return bytes / copies + (copy == 0 ? bytes % copies : 0);
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

    /** Writes the fields of a PREPARE up to, not including, the branch bytes. */
    static void prepareHeader(ByteBuf out, long tx, int length) {
        out.writeByte(PREPARE).writeLong(tx).writeInt(length);
    }

    static void queue(ByteBuf out, String name) {
        out.writeByte(QUEUE);
        writeString(out, name);
    }

    static void queueDeleted(ByteBuf out, String name) {
        out.writeByte(QUEUE_DELETED);
        writeString(out, name);
    }

    static void delivered(ByteBuf out, String queue, long sequence, int deliveryCount) {
        out.writeByte(DELIVERED);
        writeString(out, queue);
        out.writeLong(sequence).writeInt(deliveryCount);
    }

    static void subscription(ByteBuf out, SubscriptionRecord r) {
        out.writeByte(SUBSCRIPTION);
        writeString(out, r.queueName());
        writeString(out, r.name());
        out.writeByte((r.noLocal() ? SUB_NO_LOCAL : 0) | (r.shared() ? SUB_SHARED : 0)
                | (r.clientId() != null ? SUB_CLIENT_ID : 0) | (r.selector() != null ? SUB_SELECTOR : 0)
                | (r.owner() != null ? SUB_OWNER : 0));
        if (r.clientId() != null) {
            writeString(out, r.clientId());
        }
        writeString(out, r.topic());
        if (r.selector() != null) { // a selector may be longer than a u16 string allows
            byte[] bytes = r.selector().getBytes(StandardCharsets.UTF_8);
            out.writeInt(bytes.length).writeBytes(bytes);
        }
        if (r.owner() != null) {
            writeString(out, r.owner());
        }
    }

    /** Reads the fields of a SUBSCRIPTION record after its type byte. */
    static SubscriptionRecord readSubscription(ByteBuf in) {
        String queue = readString(in);
        String name = readString(in);
        int flags = in.readUnsignedByte();
        String clientId = (flags & SUB_CLIENT_ID) != 0 ? readString(in) : null;
        String topic = readString(in);
        String selector = null;
        if ((flags & SUB_SELECTOR) != 0) {
            int length = in.readInt();
            selector = in.toString(in.readerIndex(), length, StandardCharsets.UTF_8);
            in.skipBytes(length);
        }
        String owner = (flags & SUB_OWNER) != 0 ? readString(in) : null;
        return new SubscriptionRecord(queue, name, clientId, topic, selector, (flags & SUB_NO_LOCAL) != 0,
                (flags & SUB_SHARED) != 0, owner);
    }

    static void unsubscribed(ByteBuf out, String queue) {
        out.writeByte(UNSUBSCRIBED);
        writeString(out, queue);
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
