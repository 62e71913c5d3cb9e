package org.wharfmq.server.store;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.collection.LongObjectHashMap;
import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.wire.DocumentContext;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Replays the journal into a {@link JournalState}: committed, unconsumed messages with their delivery counts, queues
 * defined at run time, the highest sequence seen per queue and the highest transaction id.
 *
 * <p>Two ways in, one model: {@link #run} reads a whole journal at startup (crash recovery); a replica of a
 * replicated queue manager feeds the same model one record at a time as it appends them to its journal
 * ({@link ReplicaJournal}, {@link #record}), so that a takeover starts from it without reading the journal back.
 * Either way {@link #finish} ends it once, before the store takes it.
 *
 * <p>Files are read one by one, oldest first. A record whose CRC does not match (a torn write, garbage over the
 * tail) ends the reading of its file: it and whatever follows in that file are ignored and reported, never fatal.
 * A record cut short by a crash is never complete in Chronicle's framing, so it is not even seen. Transactions
 * without a commit marker are rolled back, but prepared ones (a PREPARE record and no COMMIT or ROLLBACK): those are in
 * doubt, for their transaction manager to decide; but one whose branch a later transaction prepared again, which only
 * a journal of an older version holds ({@link #preparedAgain}): it is rolled back.
 *
 * <p>Not thread-safe: one thread builds it (the startup, or the replica's applier), then hands it to the store.
 */
final class Recovery {

    private static final System.Logger LOG = System.getLogger(Recovery.class.getName());
    /** Chronicle's own header before each document. */
    private static final int DOCUMENT_HEADER_BYTES = 4;

    final JournalState state = new JournalState();
    /** Every queue that must exist, with the highest sequence number seen on it. */
    final Map<String, Long> lastSequences = new LinkedHashMap<>();
    final List<String> damage = new ArrayList<>();
    long highestTransaction;
    /** Records applied to the model. */
    long records;
    /** Records read back from the journal's files ({@link #read}): none when a replica built the model live. */
    long recordsRead;
    int lastSegment;
    boolean closedCleanly = true;
    int rolledBackTransactions;

    private boolean finished;
    /** The branch of each prepared transaction still pending, and the transaction by branch: {@link #preparedAgain}. */
    private final LongObjectHashMap<ByteBuffer> preparedBranchOf = new LongObjectHashMap<>();
    private final Map<ByteBuffer, Long> preparedByBranch = new HashMap<>();

    /** An empty model, to be fed {@link #record records} as they are appended. */
    Recovery() {
    }

    /** Reads the whole journal and {@link #finish finishes}: crash recovery. */
    static Recovery run(Journal journal) throws java.io.IOException {
        Recovery recovery = read(journal);
        recovery.finish();
        return recovery;
    }

    /** Reads the whole journal into a new model, not finished: more records may follow ({@link #record}). */
    static Recovery read(Journal journal) throws java.io.IOException {
        Recovery recovery = new Recovery();
        ByteBuf record = Unpooled.directBuffer(256); // grows to the largest record, in direct memory, until the end
        try {
            byte[] piece = new byte[Journal.COPY_PIECE_BYTES];
            for (int segment : journal.segments()) {
                recovery.readSegment(journal, segment, record, piece);
            }
        } finally {
            record.release();
            journal.closeReaders();
        }
        return recovery;
    }

    /** Records go to {@code segment} from now on (a new, empty segment). */
    void segmentStarted(int segment) {
        requireOpen();
        lastSegment = Math.max(lastSegment, segment);
        state.segment(segment);
    }

    /**
     * Applies one record just appended to the journal at {@code index} of {@code segment}, as {@link #run} would read
     * it back: {@code fields} are its bytes without the CRC (read, not changed: its reader index is restored), and
     * {@code bytes} is what it takes in the segment (its document, CRC and Chronicle's header included).
     *
     * @throws IllegalStateException when the record cannot be parsed
     */
    void record(ByteBuf fields, int segment, long index, int bytes) {
        requireOpen();
        int at = fields.readerIndex();
        state.written(segment, bytes);
        try {
            apply(fields, segment, index, bytes);
        } catch (IndexOutOfBoundsException e) {
            throw new IllegalStateException("A journal record at index " + Long.toHexString(index) + " of segment "
                    + segment + " cannot be parsed (" + e.getMessage() + ")", e);
        } finally {
            fields.readerIndex(at);
        }
        records++;
    }

    /**
     * Ends the replay: the transactions still open are rolled back (not the prepared ones), and every queue defined
     * at run time is one that must exist. Once; the model takes no record after.
     */
    void finish() {
        requireOpen();
        finished = true;
        rolledBackTransactions = state.rollbackAllPending();
        for (String queue : state.queueDefinitions().keySet()) {
            lastSequences.putIfAbsent(queue, 0L);
        }
    }

    private void requireOpen() {
        if (finished) {
            throw new IllegalStateException("The recovered journal state was finished and handed over already");
        }
    }

    private void readSegment(Journal journal, int segment, ByteBuf record, byte[] piece) throws java.io.IOException {
        segmentStarted(segment);
        java.nio.file.Path unfinished = journal.fileWithoutHeader(segment);
        if (unfinished != null) {
            // nothing to read, and nothing lost: a record is only ever written after the header
            String report = "journal segment " + segment + " has a file with no header (" + unfinished.getFileName()
                    + "): the run that created it was stopped before it wrote a record there; the segment was skipped";
            damage.add(report);
            closedCleanly = false;
            LOG.log(System.Logger.Level.WARNING, "Recovery: " + report);
            return;
        }
        byte lastType = 0;
        try (ExcerptTailer tailer = journal.tailer(segment)) {
            while (true) {
                long index;
                try (DocumentContext dc = tailer.readingDocument()) {
                    if (!dc.isPresent()) {
                        break;
                    }
                    index = dc.index();
                    Journal.copy(dc.wire().bytes(), record, piece);
                } catch (RuntimeException e) {
                    damaged(segment, "an unreadable record (" + e + ")");
                    return;
                }
                int bytes = record.readableBytes() + DOCUMENT_HEADER_BYTES;
                state.written(segment, bytes);
                if (!JournalRecord.verify(record)) {
                    damaged(segment, "a record of " + record.readableBytes() + " bytes at index "
                            + Long.toHexString(index) + " whose checksum does not match (torn or overwritten)");
                    return;
                }
                try {
                    lastType = apply(record, segment, index, bytes);
                } catch (IndexOutOfBoundsException e) {
                    damaged(segment, "a record at index " + Long.toHexString(index) + " that cannot be parsed (" + e.getMessage() + ")");
                    return;
                }
                records++;
                recordsRead++;
            }
        }
        // only the newest segment tells whether the last run ended in order
        closedCleanly = lastType == JournalRecord.CLOSED || lastType == 0;
    }

    private void damaged(int segment, String what) {
        String report = "journal segment " + segment + " ends with " + what
                + "; it and anything after it in that segment were ignored";
        damage.add(report);
        closedCleanly = false;
        LOG.log(System.Logger.Level.WARNING, "Recovery: " + report);
    }

    private byte apply(ByteBuf in, int segment, long index, int bytes) {
        byte type = in.readByte();
        switch (type) {
            case JournalRecord.PUT: {
                long tx = in.readLong();
                String queue = JournalRecord.readString(in);
                long sequence = in.readLong();
                int deliveries = in.readInt();
                int length = in.readInt();
                if (length != in.readableBytes()) {
                    throw new IndexOutOfBoundsException("message length " + length);
                }
                // only where it is: its bytes are read back as its queue takes it (JournalReader)
                sequenceSeen(queue, sequence);
                transactionSeen(tx);
                state.put(tx, new JournalState.Live(queue, sequence, segment, index, bytes, deliveries));
                break;
            }
            case JournalRecord.PUT_COPIES: {
                long tx = in.readLong();
                int n = in.readInt();
                if (n < 1 || n > in.readableBytes()) {
                    throw new IndexOutOfBoundsException(n + " copies");
                }
                String[] queues = new String[n];
                long[] sequences = new long[n];
                for (int i = 0; i < n; i++) {
                    queues[i] = JournalRecord.readString(in);
                    sequences[i] = in.readLong();
                }
                int length = in.readInt();
                if (length != in.readableBytes()) {
                    throw new IndexOutOfBoundsException("message length " + length);
                }
                transactionSeen(tx);
                // one record for all the copies: each is live until its own REMOVE, the record until the last one's
                for (int i = 0; i < n; i++) {
                    sequenceSeen(queues[i], sequences[i]);
                    state.put(tx, new JournalState.Live(queues[i], sequences[i], segment, index,
                            JournalRecord.share(bytes, n, i), 0));
                }
                break;
            }
            case JournalRecord.REMOVE: {
                long tx = in.readLong();
                int n = in.readInt();
                for (int i = 0; i < n; i++) {
                    String queue = JournalRecord.readString(in);
                    long sequence = in.readLong();
                    sequenceSeen(queue, sequence);
                    if (tx == 0) {
                        state.remove(queue, sequence);
                    } else {
                        state.txRemove(tx, queue, sequence);
                    }
                }
                if (tx != 0) {
                    state.txRecord(tx, segment);
                }
                transactionSeen(tx);
                break;
            }
            case JournalRecord.PREPARE: {
                long tx = transactionSeen(in.readLong());
                int length = in.readInt();
                if (length != in.readableBytes()) {
                    throw new IndexOutOfBoundsException("branch length " + length);
                }
                byte[] branch = new byte[length];
                in.readBytes(branch);
                boolean copiedForward = state.isPrepared(tx); // reclamation wrote it again: seen already
                state.prepared(tx, branch, segment);
                if (!copiedForward) {
                    preparedAgain(tx, branch);
                }
                break;
            }
            case JournalRecord.COMMIT: {
                long tx = transactionSeen(in.readLong());
                state.commit(tx);
                ended(tx);
                break;
            }
            case JournalRecord.ROLLBACK: {
                long tx = transactionSeen(in.readLong());
                state.rollback(tx);
                ended(tx);
                break;
            }
            case JournalRecord.QUEUE:
                state.queueDefined(JournalRecord.readString(in), segment, bytes);
                break;
            case JournalRecord.QUEUE_DELETED: {
                // the queue no longer exists, whatever records of it came before; a live message (a crash between
                // its consumption and the record of it) still brings it back, and records after this one do too
                String queue = JournalRecord.readString(in);
                state.queueDeleted(queue);
                lastSequences.remove(queue);
                break;
            }
            case JournalRecord.DELIVERED: {
                JournalState.Live live = state.find(JournalRecord.readString(in), in.readLong());
                int deliveries = in.readInt();
                if (live != null && deliveries > live.deliveryCount) {
                    live.deliveryCount = deliveries;
                }
                break;
            }
            case JournalRecord.SUBSCRIPTION:
                state.subscriptionDefined(JournalRecord.readSubscription(in), segment, bytes);
                break;
            case JournalRecord.UNSUBSCRIBED:
                state.subscriptionDeleted(JournalRecord.readString(in));
                break;
            case JournalRecord.CLOSED:
                break;
            default:
                throw new IndexOutOfBoundsException("unknown record type " + type);
        }
        return type;
    }

    /**
     * Transaction {@code tx} prepared {@code branch}: when another pending transaction prepared the same branch (Xid
     * and owner), the older of the two by id is superseded ({@link JournalState#supersede}), rolled back at the open.
     * By id, not by the records' order: reclamation copies a prepared transaction's records forward, past later ones.
     */
    private void preparedAgain(long tx, byte[] branch) {
        ByteBuffer key = ByteBuffer.wrap(branch);
        preparedBranchOf.put(tx, key);
        Long other = preparedByBranch.put(key, tx);
        if (other != null && other != tx && state.isPrepared(other)) {
            long older = Math.min(other, tx);
            long newer = Math.max(other, tx);
            state.supersede(older, newer);
            preparedByBranch.put(key, newer);
        }
    }

    /** Transaction {@code tx} committed or rolled back: a branch it prepared is free again. */
    private void ended(long tx) {
        ByteBuffer key = preparedBranchOf.remove(tx);
        if (key != null) {
            preparedByBranch.remove(key, tx);
        }
    }

    private void sequenceSeen(String queue, long sequence) {
        lastSequences.merge(queue, sequence, Math::max);
    }

    private long transactionSeen(long tx) {
        highestTransaction = Math.max(highestTransaction, tx);
        return tx;
    }
}
