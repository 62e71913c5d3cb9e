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
 * Reads message records back by their position (segment and index), with Chronicle queues and a tailer of its own:
 * for recovery, which hands the recovered messages to the queues one at a time on the starting thread while the
 * journal writer already runs on its own (and reads old segments for reclamation through the {@link Journal}, which
 * is not thread-safe).
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
    private final ByteBuf record = Unpooled.buffer(4096);
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
     * @throws IllegalStateException when the record is missing or damaged: recovery read it intact moments before,
     *                               so something else wrote into the journal meanwhile
     */
    ByteBuf message(int segment, long index, String queue, long sequence) {
        if (tailer == null || tailerSegment != segment) {
            closeTailer();
            tailer = open.computeIfAbsent(segment, opener::apply).createTailer();
            tailerSegment = segment;
        }
        boolean found = false;
        if (tailer.moveToIndex(index)) {
            try (DocumentContext dc = tailer.readingDocument()) {
                if (dc.isPresent()) {
                    Journal.copy(dc.wire().bytes(), record);
                    found = true;
                }
            }
        }
        String where = "journal record " + segment + ":" + Long.toHexString(index) + " of message " + queue + " #"
                + sequence;
        if (!found) {
            throw new IllegalStateException(where + " is missing: it was there when recovery read the journal");
        }
        if (!JournalRecord.verify(record)) {
            throw new IllegalStateException(where + " is damaged: it was intact when recovery read the journal");
        }
        int length = JournalRecord.skipPutHeader(record);
        ByteBuf content = PooledByteBufAllocator.DEFAULT.directBuffer(length);
        content.writeBytes(record, length);
        return content;
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
    }
}
