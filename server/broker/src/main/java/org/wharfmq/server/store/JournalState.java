package org.wharfmq.server.store;

import io.netty.buffer.ByteBuf;
import io.netty.util.collection.LongObjectHashMap;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What the journal holds, as far as reclamation cares: where every live record is (message, queue definition),
 * which records belong to transactions not yet committed, and how many bytes each journal segment holds and
 * how many of those are still live. Built by {@link Recovery} while it replays the journal, then kept up to date by
 * the {@link JournalWriter}, the only thread that touches it afterwards.
 */
final class JournalState {

    /** A message record that recovery must restore, or that must be rewritten before its file is deleted. */
    static final class Live {
        final String queue;
        final long sequence;
        int segment;
        long index;
        int bytes;
        int deliveryCount;
        /** Consumed by a prepared transaction: recovery hands it over with that transaction, not as a message. */
        boolean held;

        Live(String queue, long sequence, int segment, long index, int bytes, int deliveryCount) {
            this.queue = queue;
            this.sequence = sequence;
            this.segment = segment;
            this.index = index;
            this.bytes = bytes;
            this.deliveryCount = deliveryCount;
        }
    }

    /**
     * One journal segment: its bytes, how many of them are live, and records of transactions still open (their PUTs,
     * REMOVEs and PREPARE), for which it is not reclaimed: a transaction's records must all be there when its COMMIT
     * is read.
     */
    static final class Segment {
        long bytes;
        long liveBytes;
        int pendingRecords;
    }

    private static final class Pending {
        final List<Live> puts = new ArrayList<>(2);
        final List<String> removedQueues = new ArrayList<>(2);
        final List<Long> removedSequences = new ArrayList<>(2);
        /** The segments of its REMOVE and PREPARE records (its PUTs know their own), one entry per record. */
        int[] recordSegments;
        int records;
        /** The Xid of its PREPARE record: a prepared XA branch, in doubt until COMMIT or ROLLBACK; else null. */
        byte[] branch;
        /**
         * The later transaction that prepared the same branch again ({@link #supersede}), 0 when none: this one is
         * rolled back at recovery, not handed over.
         */
        long supersededBy;
    }

    private final Map<String, LongObjectHashMap<Live>> live = new HashMap<>();
    /** Live definitions of queues created at run time, by name, with the segment and size of their record. */
    private final Map<String, Placed> queueDefinitions = new HashMap<>();

    /** Where a live queue definition's record is. */
    record Placed(int segment, int bytes) {
    }
    /** Live durable subscription definitions by queue name, with the segment and size of their record. */
    private final Map<String, Definition> subscriptions = new java.util.LinkedHashMap<>();

    /** Where a live subscription definition's record is. */
    record Definition(SubscriptionRecord subscription, int segment, int bytes) {
    }
    private final LongObjectHashMap<Pending> pending = new LongObjectHashMap<>();
    private final TreeMap<Integer, Segment> segments = new TreeMap<>();

    Segment segment(int segment) {
        return segments.computeIfAbsent(segment, s -> new Segment());
    }

    TreeMap<Integer, Segment> segments() {
        return segments;
    }

    void written(int segment, int bytes) {
        segment(segment).bytes += bytes;
    }

    /** Total bytes of records in the journal. */
    long totalBytes() {
        long total = 0;
        for (Segment c : segments.values()) {
            total += c.bytes;
        }
        return total;
    }

    /** Bytes of records that are still needed. */
    long liveBytes() {
        long total = 0;
        for (Segment c : segments.values()) {
            total += c.liveBytes;
        }
        return total;
    }

    /**
     * The key under which a message's record is kept in its queue's map: the sequence number spread over all bits.
     *
     * <p>Why: a queue's sequence numbers are consecutive, and Netty's map puts a long key at slot {@code key & mask}
     * (after folding its high half in), so consecutive keys filled one unbroken run of slots. Removing a key makes
     * the map walk the run after it, to the next free slot, to close the gap; consumption removes the oldest
     * message, the first of the run, so every consume walked the whole queue: a transacted receive of a 400,000-deep
     * queue spent half a millisecond of the journal writer per message, and a deep queue drained in quadratic
     * time (issue 19, items 7 and 8; {@code docs/performance-log.md}). MurmurHash3's 64-bit finaliser is a bijection
     * on longs (no two sequences share a key) that scatters consecutive sequences over the whole table, so runs
     * stay as short as random keys make them, whatever the depth. (A multiply alone left runs of hundreds.)
     */
    static long key(long sequence) {
        long k = sequence;
        k ^= k >>> 33;
        k *= 0xff51afd7ed558ccdL;
        k ^= k >>> 33;
        k *= 0xc4ceb9fe1a85ec53L;
        return k ^ (k >>> 33);
    }

    /** A message is live from here (a PUT outside a transaction, or a rewrite). */
    void put(Live record) {
        Live previous = live.computeIfAbsent(record.queue, q -> new LongObjectHashMap<>()).put(key(record.sequence), record);
        if (previous != null) {
            unaccount(previous);
        }
        segment(record.segment).liveBytes += record.bytes;
    }

    /** A message is consumed: its record is dead. */
    void remove(String queue, long sequence) {
        LongObjectHashMap<Live> onQueue = live.get(queue);
        Live removed = onQueue == null ? null : onQueue.remove(key(sequence));
        if (removed != null) {
            unaccount(removed);
        }
    }

    private void unaccount(Live record) {
        Segment c = segments.get(record.segment);
        if (c != null) {
            c.liveBytes -= record.bytes;
        }
    }

    Live find(String queue, long sequence) {
        LongObjectHashMap<Live> onQueue = live.get(queue);
        return onQueue == null ? null : onQueue.get(key(sequence));
    }

    /** A message a PUT or PUT_COPIES recorded: live from here outside a transaction (tx 0), else at its commit. */
    void put(long tx, Live record) {
        if (tx == 0) {
            put(record);
        } else {
            txPut(tx, record);
        }
    }

    void txPut(long tx, Live record) {
        pending(tx).puts.add(record);
        segment(record.segment).pendingRecords++;
    }

    void txRemove(long tx, String queue, long sequence) {
        Pending p = pending(tx);
        p.removedQueues.add(queue);
        p.removedSequences.add(sequence);
    }

    /** A REMOVE or PREPARE record of {@code tx} is in {@code segment}, which waits for the transaction to end. */
    void txRecord(long tx, int segment) {
        Pending p = pending(tx);
        if (p.recordSegments == null) {
            p.recordSegments = new int[2];
        } else if (p.records == p.recordSegments.length) {
            p.recordSegments = java.util.Arrays.copyOf(p.recordSegments, p.records * 2);
        }
        p.recordSegments[p.records++] = segment;
        segment(segment).pendingRecords++;
    }

    /** Transaction {@code tx} is prepared (its PREPARE record, naming {@code branch}, is in {@code segment}). */
    void prepared(long tx, byte[] branch, int segment) {
        Pending p = pending(tx);
        if (p.branch != null) {
            copiedForward(tx, p, segment);
            return;
        }
        txRecord(tx, segment);
        p.branch = branch;
    }

    /**
     * A second PREPARE of a prepared transaction: the active member's reclamation copied it forward whole (its PUTs,
     * its REMOVEs as one record, then the PREPARE, {@link JournalWriter#rewritePrepared}), read here by a replica as
     * it applies them (or by recovery, if the originals were not deleted yet): the older copies are dead, so that the
     * segments holding them can go as on the active member.
     */
    private void copiedForward(long tx, Pending p, int segment) {
        dropCopies(p);
        int removes = p.removedQueues.isEmpty() || p.records == 0 ? -1 : p.recordSegments[p.records - 1];
        ended(p);
        p.records = 0;
        if (removes >= 0) {
            txRecord(tx, removes);
        }
        txRecord(tx, segment);
    }

    /** Whether {@code tx} is a prepared XA branch, in doubt. */
    boolean isPrepared(long tx) {
        Pending p = pending.get(tx);
        return p != null && p.branch != null;
    }

    boolean hasPending(long tx) {
        return pending.containsKey(tx);
    }

    /**
     * The prepared transactions with a record in {@code segment}, when those are all the records of transactions
     * still pending there; null when a transaction not prepared has one there (the segment waits for it to end: it is
     * short-lived, a prepared one may wait for its transaction manager for hours).
     */
    List<Long> preparedHolding(int segment) {
        List<Long> prepared = new ArrayList<>(1);
        int records = 0;
        for (LongObjectHashMap.PrimitiveEntry<Pending> entry : pending.entries()) {
            Pending p = entry.value();
            int here = 0;
            for (Live put : p.puts) {
                if (put.segment == segment) {
                    here++;
                }
            }
            for (int i = 0; i < p.records; i++) {
                if (p.recordSegments[i] == segment) {
                    here++;
                }
            }
            if (here > 0) {
                if (p.branch == null) {
                    return null;
                }
                prepared.add(entry.key());
                records += here;
            }
        }
        return records == segment(segment).pendingRecords ? prepared : null;
    }

    /** A prepared transaction's records, to be copied forward: its sends, what it consumed, its branch. */
    record PreparedRecords(List<Live> puts, String[] removedQueues, long[] removedSequences, byte[] branch) {
    }

    /** The records of prepared transaction {@code tx} ({@link #preparedHolding} named it). */
    PreparedRecords preparedRecords(long tx) {
        Pending p = pending.get(tx);
        long[] sequences = new long[p.removedSequences.size()];
        for (int i = 0; i < sequences.length; i++) {
            sequences[i] = p.removedSequences.get(i);
        }
        return new PreparedRecords(List.copyOf(p.puts), p.removedQueues.toArray(String[]::new), sequences, p.branch);
    }

    /** A prepared transaction's PUT was copied to {@code segment} at {@code index}; the old copy is dead. */
    void preparedPutMoved(Live put, int segment, long index, int bytes) {
        segment(put.segment).pendingRecords--;
        put.segment = segment;
        put.index = index;
        put.bytes = bytes;
        segment(segment).pendingRecords++;
    }

    /**
     * Prepared transaction {@code tx}'s REMOVEs (as one record, if it had any) and its PREPARE were copied to
     * {@code segment}: the old records are dead.
     */
    void preparedRecordsMoved(long tx, int segment, boolean removes) {
        Pending p = pending.get(tx);
        ended(p);
        p.records = 0;
        if (removes) {
            txRecord(tx, segment);
        }
        txRecord(tx, segment);
    }

    private void ended(Pending p) {
        for (int i = 0; i < p.records; i++) {
            segment(p.recordSegments[i]).pendingRecords--;
        }
    }

    /** The transaction's puts become live and its removes take effect. */
    void commit(long tx) {
        Pending p = pending.remove(tx);
        if (p == null) {
            return;
        }
        ended(p);
        for (Live record : p.puts) {
            segment(record.segment).pendingRecords--;
            put(record);
        }
        for (int i = 0; i < p.removedQueues.size(); i++) {
            remove(p.removedQueues.get(i), p.removedSequences.get(i));
        }
    }

    /** The transaction's records are dead. */
    void rollback(long tx) {
        Pending p = pending.remove(tx);
        if (p == null) {
            return;
        }
        ended(p);
        for (Live record : p.puts) {
            segment(record.segment).pendingRecords--;
        }
    }

    /**
     * Rolls back every transaction without a commit marker, but the prepared ones (in doubt: their transaction
     * manager decides); returns how many were rolled back.
     */
    int rollbackAllPending() {
        List<Long> open = openTransactions();
        for (long tx : open) {
            rollback(tx);
        }
        return open.size();
    }

    /** The transactions with records here and no commit or rollback yet, but the prepared ones. */
    List<Long> openTransactions() {
        List<Long> open = new ArrayList<>();
        for (LongObjectHashMap.PrimitiveEntry<Pending> p : pending.entries()) {
            if (p.value().branch == null) {
                open.add(p.key());
            }
        }
        return open;
    }

    private Pending pending(long tx) {
        Pending p = pending.get(tx);
        if (p == null) {
            p = new Pending();
            pending.put(tx, p);
        }
        return p;
    }

    void queueDefined(String name, int segment, int bytes) {
        unaccount(queueDefinitions.put(name, new Placed(segment, bytes)));
        segment(segment).liveBytes += bytes;
    }

    /** A queue created at run time is deleted: its definition, if live, is dead. */
    void queueDeleted(String name) {
        unaccount(queueDefinitions.remove(name));
    }

    private void unaccount(Placed definition) {
        Segment c = definition == null ? null : segments.get(definition.segment());
        if (c != null) {
            c.liveBytes -= definition.bytes();
        }
    }

    /** A durable subscription is (re)defined; its previous record, if any, is dead. */
    void subscriptionDefined(SubscriptionRecord subscription, int segment, int bytes) {
        Definition previous = subscriptions.put(subscription.queueName(), new Definition(subscription, segment, bytes));
        if (previous != null) {
            unaccountDefinition(previous);
        }
        segment(segment).liveBytes += bytes;
    }

    /** A durable subscription is deleted: its definition is dead. Returns whether it was defined. */
    boolean subscriptionDeleted(String queue) {
        Definition previous = subscriptions.remove(queue);
        if (previous != null) {
            unaccountDefinition(previous);
        }
        return previous != null;
    }

    private void unaccountDefinition(Definition d) {
        Segment c = segments.get(d.segment());
        if (c != null) {
            c.liveBytes -= d.bytes();
        }
    }

    /** The live durable subscription definitions, in the order they were defined. */
    Map<String, Definition> subscriptions() {
        return subscriptions;
    }

    Map<String, Placed> queueDefinitions() {
        return queueDefinitions;
    }

    /** The live message records in {@code segment}. */
    List<Live> liveIn(int segment) {
        List<Live> found = new ArrayList<>();
        for (LongObjectHashMap<Live> onQueue : live.values()) {
            for (Live record : onQueue.values()) {
                if (record.segment == segment) {
                    found.add(record);
                }
            }
        }
        return found;
    }

    /** A prepared transaction whose branch a later one prepared again: {@code tx} is rolled back, {@code by} not. */
    record Superseded(long tx, long by, byte[] branch) {
    }

    /**
     * Prepared transaction {@code tx}'s branch was prepared again by transaction {@code by}, a later one (recovery):
     * {@code tx} is left out of {@link #takePrepared}, to be rolled back. The queue manager refuses to start a branch
     * whose Xid is in use, prepared ones included, and records every outcome, so a journal it writes holds no such
     * pair; one written by a version that did not record the rollback of a branch restored after a restart (a
     * channel's batch backed out, then sent again under the same batch id) does: the older was rolled back then,
     * unrecorded, so it is rolled back now, and the messages it alone consumed are live again.
     */
    void supersede(long tx, long by) {
        pending.get(tx).supersededBy = by;
    }

    /** The prepared transactions {@link #supersede}d and still pending, oldest first; recovery. */
    List<Superseded> supersededPrepared() {
        List<Superseded> superseded = new ArrayList<>(0);
        for (LongObjectHashMap.PrimitiveEntry<Pending> entry : pending.entries()) {
            Pending p = entry.value();
            if (p.branch != null && p.supersededBy != 0) {
                superseded.add(new Superseded(entry.key(), p.supersededBy, p.branch));
            }
        }
        superseded.sort(java.util.Comparator.comparingLong(Superseded::tx));
        return superseded;
    }

    /**
     * Takes the prepared transactions out (recovery, before {@link #recovered}): each with the bytes of its sends
     * and of the live messages it consumed, which {@link #recovered} then leaves out (held, not delivered again).
     * Afterwards the state holds only their locations; the transactions stay pending until their COMMIT or ROLLBACK.
     *
     * @param idOffset added to each journal transaction id to give the id the store's users know it by
     * @param reader    reads the messages' bytes from the journal
     */
    List<PreparedTransaction> takePrepared(long idOffset, JournalReader reader) {
        List<PreparedTransaction> prepared = new ArrayList<>();
        for (LongObjectHashMap.PrimitiveEntry<Pending> entry : pending.entries()) {
            Pending p = entry.value();
            if (p.branch == null || p.supersededBy != 0) {
                continue;
            }
            dropCopies(p);
            List<PreparedTransaction.Message> sends = new ArrayList<>(p.puts.size());
            for (Live put : p.puts) {
                sends.add(new PreparedTransaction.Message(put.queue, put.sequence, content(reader, put), 1));
            }
            List<PreparedTransaction.Message> consumed = new ArrayList<>(p.removedQueues.size());
            for (int i = 0; i < p.removedQueues.size(); i++) {
                Live held = find(p.removedQueues.get(i), p.removedSequences.get(i));
                if (held != null) { // else consumed before (a REMOVE outside it came first)
                    consumed.add(new PreparedTransaction.Message(held.queue, held.sequence, content(reader, held),
                            Math.max(1, held.deliveryCount)));
                    held.held = true;
                }
            }
            prepared.add(new PreparedTransaction(entry.key() + idOffset, p.branch, sends, consumed));
        }
        return prepared;
    }

    private static ByteBuf content(JournalReader reader, Live record) {
        return reader.message(record.segment, record.index, record.queue, record.sequence);
    }

    /**
     * Reclamation copies a prepared transaction forward whole (docs/persistence.md) before it deletes the oldest of its
     * segments, so a crash before the deletion, or records of it left in later segments, show recovery its PUTs and
     * REMOVEs twice: the last copy of each PUT is kept (the older ones' segments go first), each REMOVE once.
     */
    private void dropCopies(Pending p) {
        Map<String, Live> puts = new java.util.LinkedHashMap<>();
        for (Live put : p.puts) {
            Live older = puts.put(put.queue + '\u0000' + put.sequence, put);
            if (older != null) {
                segment(older.segment).pendingRecords--;
            }
        }
        if (puts.size() < p.puts.size()) {
            p.puts.clear();
            p.puts.addAll(puts.values());
        }
        java.util.Set<String> seen = new java.util.HashSet<>();
        for (int i = p.removedQueues.size() - 1; i >= 0; i--) {
            if (!seen.add(p.removedQueues.get(i) + '\u0000' + p.removedSequences.get(i))) {
                p.removedQueues.remove(i);
                p.removedSequences.remove(i);
            }
        }
    }

    /**
     * Where the recovered messages are, each queue's in sequence order, but those a prepared transaction holds
     * ({@link #takePrepared}): their bytes are read back one by one as their queues take them
     * ({@link JournalReader}), so that recovery never holds more of them than the queues keep in memory.
     */
    RecoveredMessages recovered() {
        RecoveredMessages recovered = new RecoveredMessages();
        for (LongObjectHashMap<Live> onQueue : live.values()) {
            List<Live> sorted = new ArrayList<>(onQueue.values());
            sorted.sort(java.util.Comparator.comparingLong(l -> l.sequence));
            for (Live record : sorted) {
                if (!record.held) { // else handed over with its prepared transaction
                    recovered.add(record.queue, record.sequence, record.segment, record.index, record.deliveryCount);
                }
            }
        }
        return recovered;
    }
}
