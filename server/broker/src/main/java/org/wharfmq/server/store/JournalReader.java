package org.wharfmq.server.store;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.wire.DocumentContext;

import java.util.HashMap;
import java.util.Map;
import java.util.function.IntFunction;

/**
 * Reads message records back by their position (segment and index), with Chronicle queues and a tailer of its own,
 * so that two threads can each have one while the {@link Journal}, which is not thread-safe, belongs to the writer:
 * recovery, which hands the recovered messages to the queues one at a time on the starting thread while the journal
 * writer already runs, and the writer itself, which copies live records forward for reclamation.
 *
 * <p>Why messages are read back rather than kept from the first pass: a journal holding more messages than the
 * server's memory budget must still recover, its queues paging what does not fit (docs/resilience.md, "Paging").
 * The first pass ({@link Recovery}) keeps only where each live message is; this reader fetches each one's bytes as
 * its queue takes it. Reclamation, which moves records, waits until this reader is done ({@link JournalSpace}).
 *
 * <p>Not thread-safe: one thread, then {@link #close}.
 */
final class JournalReader implements AutoCloseable {

    private final IntFunction<SingleChronicleQueue> opener;
    private final Map<Integer, SingleChronicleQueue> open = new HashMap<>();
    /** The largest buffer kept from one read to the next: a larger record's (a large message's) is let go. */
    private static final int KEPT_CAPACITY = 1 << 20;

    private final byte[] piece = new byte[Journal.COPY_PIECE_BYTES];
    /** The record last read, in direct memory (a message's bytes are never whole on the heap: {@link Journal#copy}). */
    private ByteBuf record = Unpooled.directBuffer(4096);
    private ExcerptTailer tailer;
    private int tailerSegment;

    /** @param opener opens the Chronicle queue of a segment for reading (a new instance, closed here) */
    JournalReader(IntFunction<SingleChronicleQueue> opener) {
        this.opener = opener;
    }

    /**
     * The message bytes of the PUT record at {@code index} of {@code segment}, in a buffer of their own (the caller
     * owns it), checked against the record's CRC.
     *
     * @throws IllegalStateException when the record is missing or damaged ({@link #messageInPlace})
     */
    ByteBuf message(int segment, long index, String queue, long sequence) {
        ByteBuf bytes = messageInPlace(segment, index, queue, sequence);
        ByteBuf content = PooledByteBufAllocator.DEFAULT.directBuffer(bytes.readableBytes());
        content.writeBytes(bytes);
        letGoOfALargeBuffer();
        return content;
    }

    /** After the read of a large record, a small buffer in place of the one it grew: the reader lives as long as the store. */
    private void letGoOfALargeBuffer() {
        if (record.capacity() > KEPT_CAPACITY) {
            record.release();
            record = Unpooled.directBuffer(4096);
        }
    }

    /**
     * As {@link #message}, the bytes left readable in this reader's own buffer, valid until its next read.
     *
     * @throws IllegalStateException when the record is missing or damaged: it was read intact before (by recovery,
     *                               or when it was written), so something else wrote into the journal meanwhile
     */
    ByteBuf messageInPlace(int segment, long index, String queue, long sequence) {
        letGoOfALargeBuffer(); // the bytes of the last read in place are no longer the caller's
        boolean found = document(segment, index, record);
        String where = "journal record " + segment + ":" + Long.toHexString(index) + " of message " + queue + " #"
                + sequence;
        if (!found) {
            throw new IllegalStateException(where + " is missing from the journal");
        }
        if (!JournalRecord.verify(record)) {
            throw new IllegalStateException(where + " is damaged (its checksum does not match)");
        }
        JournalRecord.skipPutHeader(record); // the message's bytes are what is left
        return record;
    }

    /**
     * Reads the document at {@code index} of {@code segment}, whole, into {@code into} (cleared first).
     *
     * @return false when there is no such document
     */
    boolean document(int segment, long index, ByteBuf into) {
        if (tailer == null || tailerSegment != segment) {
            closeTailer();
            tailer = open.computeIfAbsent(segment, opener::apply).createTailer();
            tailerSegment = segment;
        }
        if (!tailer.moveToIndex(index)) {
            return false;
        }
        try (DocumentContext dc = tailer.readingDocument()) {
            if (!dc.isPresent()) {
                return false;
            }
            Journal.copy(dc.wire().bytes(), into, piece);
            return true;
        }
    }

    /** {@code segment} is about to be deleted: its queue (and the tailer, if on it) are closed. */
    void forget(int segment) {
        if (tailer != null && tailerSegment == segment) {
            closeTailer();
        }
        SingleChronicleQueue queue = open.remove(segment);
        if (queue != null) {
            queue.close();
        }
    }

    private void closeTailer() {
        if (tailer != null) {
            tailer.close();
            tailer = null;
        }
    }

    @Override
    public void close() {
        closeTailer();
        open.values().forEach(SingleChronicleQueue::close);
        open.clear();
        record.release();
    }
}
