package org.wharfmq.server.store;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.wharfmq.server.Configuration;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32C;

/**
 * The journal's single writer thread and its group-commit duty cycle:
 *
 * <ol>
 *   <li>take every entry waiting in the inbox (network threads add to it at any time, without waiting; only an
 *       entry somebody waits for wakes this thread, the others come along with it: {@link JournalInbox});</li>
 *   <li>append them all to the journal, in arrival order;</li>
 *   <li>with durability {@code fsync}, hand them to the {@link JournalSyncer}, which forces the file once for
 *       everything appended since its last sync (if anyone waits: a persistent send, a commit, an acknowledgement)
 *       and then completes them, while this thread goes on appending the next batch; with {@code os}, complete them
 *       at once, the pages being in the page cache already, or, on a replicated queue manager, as soon as the
 *       replicated log has them ({@link ReplicationWaiters});</li>
 *   <li>look after space (new file, reclamation).</li>
 * </ol>
 *
 * Entries that arrive while a sync is in flight are appended meanwhile and go into the next sync, so one sync
 * serves everyone who committed during the previous one. No lock is held across a write or a sync: the inbox and
 * the syncer's hand-over list are the only things shared.
 */
final class JournalWriter implements Runnable {

    private static final System.Logger LOG = System.getLogger(JournalWriter.class.getName());
    private static final int MAX_BATCH = Configuration.JOURNAL_MAX_BATCH;
    /** A batch's replication buffer starts at this size and grows as its records need. */
    private static final int OUTGOING_INITIAL_BYTES = 64 << 10;
    /**
     * A batch's records up to this size are handed to the replication as an exact copy, and the buffer is used again;
     * a larger one (a large message) is handed over without a copy, in a buffer at most twice its size.
     */
    static final int COPIED_UP_TO_BYTES = 1 << 20;
    /** How long an entry nobody waits for may wait in the inbox for one that wakes the writer. */
    private static final long QUIET_ENTRY_NANOS =
            TimeUnit.MICROSECONDS.toNanos(Configuration.JOURNAL_QUIET_ENTRY_MICROS);
    private static final long DISK_CHECK_INTERVAL_NANOS =
            TimeUnit.MILLISECONDS.toNanos(Configuration.JOURNAL_DISK_CHECK_MILLIS);

    private final Journal journal;
    private final JournalState state;
    private final JournalSpace space;
    /** The sync stage with durability fsync; null with os. */
    private final JournalSyncer syncer;
    /** With durability os and a replication: the batches' waiters finished as the replication completes; else null. */
    private final ReplicationWaiters replicationWaiters;
    private final Thread syncerThread;
    private long lastDiskCheck = System.nanoTime() - DISK_CHECK_INTERVAL_NANOS;
    private final JournalInbox inbox = new JournalInbox(QUIET_ENTRY_NANOS);
    private final ArrayList<JournalEntry> batch = new ArrayList<>();
    private final ByteBuf fields = Unpooled.buffer(256);
    /** Reads live records back for reclamation's copies; this thread only. */
    private final JournalReader reader;
    private final CRC32C crc = new CRC32C();
    /** Transactions whose records could not be written; their commit fails with this cause. */
    private final io.netty.util.collection.LongObjectHashMap<Throwable> failedTransactions =
            new io.netty.util.collection.LongObjectHashMap<>();
    /** Batches completed without a sync (durability os). */
    private final AtomicLong unsyncedBatches = new AtomicLong();
    private final AtomicLong written = new AtomicLong();
    private volatile boolean stopped;
    /** Why the writer stopped, when it failed rather than being stopped (written before {@link #stopped}). */
    private volatile Throwable failedWith;
    /** Where each batch's records go besides the disk; null for a queue manager of its own. */
    private final JournalReplication replication;
    /**
     * The records appended since the last batch was handed to {@link #replication}, framed as it reads them; a new
     * buffer per batch, since the replication holds the last one until a majority has it. Null without replication.
     */
    private ByteBuf outgoing;

    /**
     * @param replication where batches go besides the disk, or null; with one and durability fsync, the sync stage
     *                    waits for both; with os, the replication's completion finishes the waiters
     *                    ({@link ReplicationWaiters})
     * @param lazySyncMillis the most time a record nobody waits for stays unforced (setting journalLazySyncMillis)
     */
    JournalWriter(Journal journal, JournalState state, boolean fsync, JournalSpace space,
                  JournalReplication replication, long lazySyncMillis) {
        this.journal = journal;
        this.reader = journal.reader();
        this.state = state;
        this.space = space;
        this.replication = replication;
        this.outgoing = replication == null ? null : Unpooled.buffer(OUTGOING_INITIAL_BYTES);
        this.syncer = fsync ? new JournalSyncer(lazySyncMillis) : null;
        this.syncerThread = fsync ? new Thread(syncer, "wharf-journal-sync") : null;
        this.replicationWaiters = !fsync && replication != null ? new ReplicationWaiters() : null;
        if (syncerThread != null) {
            syncerThread.setDaemon(true);
        }
    }

    /** Hands an entry to the writer; never blocks. After {@link #stop}, the entry fails at once. */
    void submit(JournalEntry entry) {
        if (stopped) {
            entry.failure = closed();
            entry.finish();
            return;
        }
        inbox.add(entry);
    }

    /** Asks the writer to finish what it has, write the CLOSED marker and stop. */
    void stop() {
        stopped = true;
        inbox.add(JournalEntry.stop());
    }

    /** Syncs done so far (with durability os: batches written), each serving everything appended before it. */
    long syncs() {
        return syncer != null ? syncer.syncs() : unsyncedBatches.get();
    }

    /** Time spent in syncs so far (0 with durability os). */
    long syncNanos() {
        return syncer != null ? syncer.syncNanos() : 0;
    }

    /** Entries made durable by syncs so far (0 with durability os). */
    long syncedEntries() {
        return syncer != null ? syncer.syncedEntries() : 0;
    }

    /** Tells {@code observer} of every later sync (never called with durability os). Any thread. */
    void observeSyncs(JournalSyncObserver observer) {
        if (syncer != null) {
            syncer.observe(observer);
        }
    }

    /** Records appended so far. */
    long records() {
        return written.get();
    }

    @Override
    public void run() {
        boolean running = true;
        if (syncerThread != null) {
            syncerThread.start();
        }
        try {
            while (running) {
                inbox.takeInto(batch, MAX_BATCH);
                running = writeBatch();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException | Error e) {
            LOG.log(System.Logger.Level.ERROR, "The journal writer failed; persistent messages can no longer be "
                    + "stored", e);
            failedWith = e;
            stopped = true;
            failAll(e);
        } finally {
            stopSyncer();
            failAll(closed());
            fields.release();
            reader.close();
        }
    }

    /** Why an entry arriving after the writer stopped fails: the queue manager stopping, or the writer's failure. */
    private IllegalStateException closed() {
        Throwable failed = failedWith;
        return failed == null
                ? new IllegalStateException("The journal is closed (the queue manager is stopping).")
                : new IllegalStateException("The journal failed (" + failed + ") and stores no persistent message "
                + "until the queue manager is restarted; see its log.");
    }

    private void failAll(Throwable cause) {
        List<JournalEntry> left = new ArrayList<>(batch);
        batch.clear();
        inbox.drainTo(left);
        for (JournalEntry e : left) {
            if (e.failure == null) {
                e.failure = cause;
            }
            e.finish();
        }
    }

    /** Writes one batch and passes it on to be synced and completed; returns false once STOP was seen. */
    private boolean writeBatch() {
        boolean stop = false;
        long now = System.nanoTime();
        if (now - lastDiskCheck >= DISK_CHECK_INTERVAL_NANOS) {
            space.checkDisk();
            lastDiskCheck = now;
        }
        for (int i = 0; i < batch.size(); i++) {
            JournalEntry e = batch.get(i);
            if (e.type == JournalEntry.STOP) {
                stop = true;
                continue;
            }
            try {
                boolean wrote = write(e);
                e.needsSync = wrote && e.awaited();
                e.unwaited = wrote && !e.awaited();
            } catch (JournalFullException full) {
                e.failure = full;
            } catch (RuntimeException failure) {
                LOG.log(System.Logger.Level.ERROR, "Could not write a journal record", failure);
                e.failure = failure;
            }
        }
        java.util.concurrent.CompletableFuture<?> replicated = replicate();
        if (stop) {
            try {
                append(() -> JournalRecord.closed(fields), null);
            } catch (JournalFullException full) {
                LOG.log(System.Logger.Level.WARNING, "The journal's closing record was not written (" + full
                        + "); the next start recovers it as after a crash.");
            }
            JournalEntry closed = JournalEntry.stop();
            closed.needsSync = true;
            batch.add(closed);
        }
        if (syncer != null) {
            syncer.handOver(batch, journal.syncChannel(), replicated);
        } else if (replicationWaiters != null) {
            replicationWaiters.handOver(batch, replicated);
            unsyncedBatches.incrementAndGet();
        } else {
            for (int i = 0; i < batch.size(); i++) {
                batch.get(i).finish();
            }
            unsyncedBatches.incrementAndGet();
        }
        batch.clear();
        if (!stop) {
            space.afterBatch(this);
        }
        return !stop;
    }

    /**
     * Hands the records appended since the last batch to the replication, or returns null when there is none or
     * nothing was appended. A stop's closing record, appended after this, stays in {@link #outgoing} unsent.
     */
    private java.util.concurrent.CompletableFuture<?> replicate() {
        if (replication == null || !outgoing.isReadable()) {
            return null;
        }
        java.nio.ByteBuffer records;
        if (outgoing.readableBytes() <= COPIED_UP_TO_BYTES) {
            // the log keeps what it is handed until its entry leaves the log's cache: an exact copy, not a view of
            // this buffer (a 64 KiB array held for a batch of a few KiB), which is used again for the next batch
            byte[] copy = new byte[outgoing.readableBytes()];
            outgoing.readBytes(copy);
            outgoing.clear();
            records = java.nio.ByteBuffer.wrap(copy);
        } else { // a large message's batch: handed over as it is, not copied
            records = outgoing.nioBuffer();
            outgoing = Unpooled.buffer(OUTGOING_INITIAL_BYTES);
        }
        try {
            return replication.replicate(records).toCompletableFuture();
        } catch (RuntimeException e) {
            return java.util.concurrent.CompletableFuture.failedFuture(e);
        }
    }

    /** Waits until everything appended is synced and completed: before the current file is closed. */
    void awaitSynced() {
        if (syncer != null) {
            syncer.awaitIdle();
        } else if (replicationWaiters != null) {
            replicationWaiters.awaitIdle();
        }
    }

    private void stopSyncer() {
        if (replicationWaiters != null) {
            replicationWaiters.awaitIdle(); // as the syncer finishes what it was handed before it stops
        }
        if (syncer == null) {
            return;
        }
        syncer.stop();
        try {
            syncerThread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Writes one entry's record, if it needs one.
     *
     * @return whether its waiter must wait for a sync: not when nothing was written (a commit of a transaction
     * without persistent records) or when losing the record changes nothing (a rollback: no marker means rolled
     * back)
     */
    private boolean write(JournalEntry e) {
        switch (e.type) {
            case JournalRecord.PUT, JournalRecord.PUT_COPIES:
                return writePut(e);
            case JournalRecord.REMOVE:
                try {
                    append(() -> JournalRecord.remove(fields, e.tx, e.queues, e.sequences), null);
                } catch (JournalFullException full) {
                    if (e.tx == 0) {
                        throw full;
                    }
                    failedTransactions.put(e.tx, full);
                    return false;
                }
                for (int i = 0; i < e.queues.length; i++) {
                    if (e.tx == 0) {
                        state.remove(e.queues[i], e.sequences[i]);
                    } else {
                        state.txRemove(e.tx, e.queues[i], e.sequences[i]);
                    }
                }
                if (e.tx != 0) {
                    state.txRecord(e.tx, journal.currentSegment());
                }
                return true;
            case JournalRecord.COMMIT:
                return writeCommit(e);
            case JournalRecord.ROLLBACK: {
                failedTransactions.remove(e.tx);
                if (state.isPrepared(e.tx)) {
                    // an XA branch's rollback is an outcome its transaction manager was told: it must survive a crash
                    append(() -> JournalRecord.marker(fields, JournalRecord.ROLLBACK, e.tx), null);
                    state.rollback(e.tx);
                    return true;
                }
                if (state.hasPending(e.tx)) {
                    appendRollbackMarker(e.tx);
                    state.rollback(e.tx);
                }
                return false;
            }
            case JournalRecord.PREPARE:
                return writePrepare(e);
            case JournalEntry.SYNC:
                return true; // no record: its sync covers every record appended before it
            case JournalRecord.QUEUE: {
                int bytes = append(() -> JournalRecord.queue(fields, e.queue), null);
                state.queueDefined(e.queue, journal.currentSegment(), bytes);
                return false;
            }
            case JournalRecord.QUEUE_DELETED:
                // written whether or not a QUEUE record is live: older message records of the queue would bring it
                // back at recovery too. It is dead at once: only the oldest file is ever deleted, so the records it
                // cancels go before it does.
                append(() -> JournalRecord.queueDeleted(fields, e.queue), null);
                state.queueDeleted(e.queue);
                return false;
            case JournalRecord.SUBSCRIPTION:
                rewriteSubscription(e.subscription);
                return false;
            case JournalRecord.UNSUBSCRIBED:
                if (state.subscriptionDeleted(e.queue)) {
                    append(() -> JournalRecord.unsubscribed(fields, e.queue), null);
                }
                return false;
            case JournalRecord.DELIVERED: {
                JournalState.Live live = state.find(e.queue, e.sequence);
                if (live != null && e.deliveryCount > live.deliveryCount) {
                    append(() -> JournalRecord.delivered(fields, e.queue, e.sequence, e.deliveryCount), null);
                    live.deliveryCount = e.deliveryCount;
                }
                return false;
            }
            default:
                throw new IllegalArgumentException("unknown journal entry type " + e.type);
        }
    }

    /** A PUT, or a PUT_COPIES: one record whatever the copies, their bytes once. */
    private boolean writePut(JournalEntry e) {
        int length = e.content.readableBytes();
        JournalFullException full = space.refusal(length);
        int bytes = 0;
        if (full == null) {
            try {
                Runnable header = e.type == JournalRecord.PUT_COPIES
                        ? () -> JournalRecord.putCopiesHeader(fields, e.tx, e.queues, e.sequences, length)
                        : () -> JournalRecord.putHeader(fields, e.tx, e.queue, e.sequence, 0, length);
                bytes = append(header, e.content);
            } catch (JournalFullException noRoom) {
                full = noRoom;
            }
        }
        if (full != null) {
            if (e.tx != 0) {
                failedTransactions.put(e.tx, full); // its commit fails: a transaction is stored whole or not at all
                return false;
            }
            throw full;
        }
        int segment = journal.currentSegment();
        if (e.type == JournalRecord.PUT_COPIES) {
            for (int i = 0; i < e.queues.length; i++) {
                state.put(e.tx, new JournalState.Live(e.queues[i], e.sequences[i], segment, lastIndex,
                        JournalRecord.share(bytes, e.queues.length, i), 0));
            }
        } else {
            state.put(e.tx, new JournalState.Live(e.queue, e.sequence, segment, lastIndex, bytes, 0));
        }
        return true;
    }

    /** A rollback marker only speeds recovery up (no commit marker means rolled back), so a full disk skips it. */
    private void appendRollbackMarker(long tx) {
        try {
            append(() -> JournalRecord.marker(fields, JournalRecord.ROLLBACK, tx), null);
        } catch (JournalFullException full) {
            LOG.log(System.Logger.Level.DEBUG, () -> "Journal: no rollback marker for transaction " + tx + ": " + full);
        }
    }

    /**
     * Whether a record of {@code e}'s transaction could not be written: then the entry (its commit or prepare) fails with
     * that cause and the transaction is rolled back, since a transaction is stored whole or not at all.
     */
    private boolean failedTransaction(JournalEntry e) {
        Throwable failure = failedTransactions.remove(e.tx);
        if (failure == null) {
            return false;
        }
        e.failure = failure;
        if (state.hasPending(e.tx)) {
            appendRollbackMarker(e.tx);
            state.rollback(e.tx);
        }
        return true;
    }

    private boolean writeCommit(JournalEntry e) {
        if (failedTransaction(e)) {
            return false;
        }
        if (!state.hasPending(e.tx)) {
            return false; // nothing of this transaction is in the journal: nothing to commit
        }
        try {
            append(() -> JournalRecord.marker(fields, JournalRecord.COMMIT, e.tx), null);
        } catch (JournalFullException full) {
            state.rollback(e.tx); // without its marker the transaction is rolled back, here as at recovery
            throw full;
        }
        state.commit(e.tx);
        return true;
    }

    /**
     * An XA branch's prepare: its PUTs and REMOVEs are written; the PREPARE record makes them survive a restart in
     * doubt. Synced before its waiter hears of it, as a commit is. A branch with nothing in the journal (only
     * non-persistent work) needs no record.
     */
    private boolean writePrepare(JournalEntry e) {
        if (failedTransaction(e) || !state.hasPending(e.tx)) {
            return false;
        }
        byte[] branch = io.netty.buffer.ByteBufUtil.getBytes(e.content);
        append(() -> JournalRecord.prepareHeader(fields, e.tx, branch.length), e.content);
        state.prepared(e.tx, branch, journal.currentSegment());
        return true;
    }

    /**
     * Copies a live message record into the current file (reclamation), keeping its delivery count; the old copy
     * becomes dead.
     */
    void rewrite(JournalState.Live live) {
        ByteBuf content = reread(live);
        int bytes = append(() -> JournalRecord.putHeader(fields, 0, live.queue, live.sequence, live.deliveryCount,
                content.readableBytes()), content);
        state.put(new JournalState.Live(live.queue, live.sequence, journal.currentSegment(), lastIndex, bytes,
                live.deliveryCount));
    }

    /**
     * Copies prepared transaction {@code tx} whole into the current file (reclamation): its PUTs, its REMOVEs as one
     * record, its PREPARE, so that the file holding its oldest record can go while it waits for its transaction
     * manager; its older records become dead (recovery keeps one of each, {@link JournalState}).
     *
     * @return the records written
     */
    int rewritePrepared(long tx) {
        JournalState.PreparedRecords records = state.preparedRecords(tx);
        for (JournalState.Live put : records.puts()) {
            ByteBuf content = reread(put);
            int bytes = append(() -> JournalRecord.putHeader(fields, tx, put.queue, put.sequence, 0,
                    content.readableBytes()), content);
            state.preparedPutMoved(put, journal.currentSegment(), lastIndex, bytes);
        }
        boolean removes = records.removedQueues().length > 0;
        if (removes) {
            append(() -> JournalRecord.remove(fields, tx, records.removedQueues(), records.removedSequences()), null);
        }
        ByteBuf branch = io.netty.buffer.Unpooled.wrappedBuffer(records.branch());
        append(() -> JournalRecord.prepareHeader(fields, tx, records.branch().length), branch);
        state.preparedRecordsMoved(tx, journal.currentSegment(), removes);
        return records.puts().size() + (removes ? 2 : 1);
    }

    /** The message bytes of {@code put}'s PUT record, valid until the next reread. */
    private ByteBuf reread(JournalState.Live put) {
        return reader.messageInPlace(put.segment, put.index, put.queue, put.sequence);
    }

    /** Reclamation deletes {@code segment}: the reader lets go of its file first. */
    void segmentDeleted(int segment) {
        reader.forget(segment);
    }

    /**
     * Forces the current file on this thread: reclamation's copies before the file they come from is deleted, and
     * a file's records nobody waited for before it is closed.
     */
    void syncFile() {
        journal.sync();
    }

    /** Copies a queue definition into the current file (reclamation). */
    void rewriteQueue(String name) {
        int bytes = append(() -> JournalRecord.queue(fields, name), null);
        state.queueDefined(name, journal.currentSegment(), bytes);
    }

    /** Writes a durable subscription's definition (new, or copied forward by reclamation). */
    void rewriteSubscription(SubscriptionRecord subscription) {
        int bytes = append(() -> JournalRecord.subscription(fields, subscription), null);
        state.subscriptionDefined(subscription, journal.currentSegment(), bytes);
    }

    private long lastIndex;

    /** Encodes with {@code encoder} into {@link #fields}, appends fields + body + CRC; returns the record's bytes. */
    private int append(Runnable encoder, ByteBuf body) {
        fields.clear();
        encoder.run();
        crc.reset();
        crc.update(fields.nioBuffer());
        if (body != null) {
            for (java.nio.ByteBuffer part : body.nioBuffers()) {
                crc.update(part);
            }
        }
        lastIndex = journal.append(fields, body, (int) crc.getValue());
        int bytes = fields.readableBytes() + (body == null ? 0 : body.readableBytes()) + JournalRecord.CRC_BYTES + 4;
        if (outgoing != null) {
            outgoing.writeInt(bytes - 4);
            outgoing.writeBytes(fields, fields.readerIndex(), fields.readableBytes());
            if (body != null) {
                outgoing.writeBytes(body, body.readerIndex(), body.readableBytes());
            }
            outgoing.writeInt((int) crc.getValue());
        }
        state.written(journal.currentSegment(), bytes);
        written.incrementAndGet();
        return bytes;
    }
}
