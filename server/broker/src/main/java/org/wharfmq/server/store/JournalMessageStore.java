package org.wharfmq.server.store;

import org.wharfmq.server.config.ServerConfig;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.ToLongFunction;

/**
 * The durable {@link MessageStore}: one journal per queue manager, in {@code <dataDirectory>/journal}, on Chronicle
 * Queue, written by one {@link JournalWriter} thread with group commit. See docs/persistence.md.
 *
 * <p>{@link #open} replays the journal ({@link Recovery}) and starts the writer; {@link #recover} then hands the
 * recovered queues and messages to the queue manager. Every other method only hands an entry to the writer and
 * returns; completions run on the writer thread after the batch's sync.
 *
 * <p>Transaction ids are the queue manager's own, which restart at 1 with every run; the journal adds the highest
 * id it recovered, so a transaction of this run is never mistaken for one left open by a crash.
 */
public final class JournalMessageStore implements MessageStore {

    private static final System.Logger LOG = System.getLogger(JournalMessageStore.class.getName());
    private static final long MIN_DISK_RESERVE = 64L * 1024 * 1024;

    private final Journal journal;
    private final JournalWriter writer;
    private final JournalSpace space;
    private final Thread writerThread;
    private final DataDirectoryLock lockFile;
    private final long transactionBase;
    /** Where the recovered messages are, until {@link #recover} hands them over. */
    private RecoveredMessages recovered;
    /** The prepared XA transactions recovery found in doubt, until {@link #recover} hands them over. */
    private List<PreparedTransaction> prepared;
    /**
     * The prepared transactions whose branch a later one prepared again ({@link JournalState#supersede}), rolled back
     * at the open; {@link #recover} names them.
     */
    private List<JournalState.Superseded> superseded;
    private final Map<String, Long> recoveredQueues;
    private final List<SubscriptionRecord> recoveredSubscriptions;
    private final List<String> recoveryDamage;
    /** Records recovery read back from the journal's files at the open. */
    private final long recordsReadAtOpen;
    private volatile boolean closed;

    private JournalMessageStore(Journal journal, Recovery recovery, ServerConfig config, DataDirectoryLock lockFile,
                                ToLongFunction<Path> freeSpace, JournalReplication replication) {
        this.journal = journal;
        this.lockFile = lockFile;
        this.transactionBase = recovery.highestTransaction;
        try (JournalReader reader = journal.reader()) {
            // ids relative to transactionBase; their few messages are read now, the others as their queues take them
            this.superseded = recovery.state.supersededPrepared();
            this.prepared = recovery.state.takePrepared(-recovery.highestTransaction, reader);
        }
        this.recovered = recovery.state.recovered();
        this.recoveredQueues = recovery.lastSequences;
        this.recoveredSubscriptions = recovery.state.subscriptions().values().stream()
                .map(JournalState.Definition::subscription).toList();
        this.recoveryDamage = List.copyOf(recovery.damage);
        this.recordsReadAtOpen = recovery.recordsRead;
        long reserve = Math.max(MIN_DISK_RESERVE, 2L * config.maxMessageLength());
        this.space = new JournalSpace(journal, recovery.state, config.journalFileBytes(), config.journalSlackBytes(),
                config.journalMaxBytes(), reserve, freeSpace);
        if (recovered.size() > 0) {
            space.recoveryReads(); // until recover() has read them
        }
        this.writer = new JournalWriter(journal, recovery.state, config.durability() == Durability.FSYNC, space,
                replication, config.journalLazySyncMillis());
        for (JournalState.Superseded s : superseded) {
            writer.submit(JournalEntry.marker(JournalRecord.ROLLBACK, s.tx(), StoreCompletion.NONE)); // its first work
        }
        this.writerThread = new Thread(writer, "wharf-journal");
        writerThread.setDaemon(true);
    }

    /**
     * Opens the journal of {@code config}'s data directory, replays it and starts the writer thread.
     *
     * @throws IOException           when the data directory cannot be created or read
     * @throws IllegalStateException when another queue manager uses the data directory (a standby waits for it instead:
     *                               {@link DataDirectoryLock}), or the JVM lacks the flags Chronicle Queue needs
     */
    public static JournalMessageStore open(ServerConfig config) throws IOException {
        return open(config, JournalSpace.diskFreeSpace());
    }

    /**
     * {@link #open(ServerConfig)} for the active instance of a replicated queue manager: each batch of records also
     * goes to {@code replication}, and a persistent send, a commit or an acknowledgement is confirmed once both the
     * local sync and the replication are done (docs/resilience.md, "Replicated queue manager").
     */
    public static JournalMessageStore openReplicated(ServerConfig config, JournalReplication replication)
            throws IOException {
        return open(config, JournalSpace.diskFreeSpace(), new DiskBlockClaims(), replication, null);
    }

    /**
     * {@link #openReplicated(ServerConfig, JournalReplication)} on the journal of a replica that takes over: the
     * state it kept as the records came ({@link ReplicaJournal}) is the recovered state, and the journal is not read
     * back (but for the bodies of the messages, as their queues take them, and of the prepared transactions).
     *
     * @param replica closed: its journal is in {@code config}'s data directory
     */
    public static JournalMessageStore openReplicated(ServerConfig config, JournalReplication replication,
                                                     ReplicaJournal replica) throws IOException {
        return open(config, JournalSpace.diskFreeSpace(), new DiskBlockClaims(), replication, replica.handOver());
    }

    /** {@link #open(ServerConfig)} with the disk's free space read by {@code freeSpace}: tests fill a disk so. */
    static JournalMessageStore open(ServerConfig config, ToLongFunction<Path> freeSpace) throws IOException {
        return open(config, freeSpace, new DiskBlockClaims());
    }

    /** {@link #open(ServerConfig)} with the disk's free space and block claims given: tests run out of disk so. */
    static JournalMessageStore open(ServerConfig config, ToLongFunction<Path> freeSpace, DiskBlockClaims claims)
            throws IOException {
        return open(config, freeSpace, claims, null, null);
    }

    /** @param recovered the state a replica kept, finished; null: read it back from the journal (crash recovery) */
    private static JournalMessageStore open(ServerConfig config, ToLongFunction<Path> freeSpace, DiskBlockClaims claims,
                                            JournalReplication replication, Recovery recovered) throws IOException {
        Path data = config.dataDirectory().toAbsolutePath();
        Files.createDirectories(data);
        DataDirectoryLock lockFile = DataDirectoryLock.acquire(data, config.name(), config.standby());
        long start = System.nanoTime();
        Journal journal = null;
        try {
            journal = Journal.open(data.resolve(Journal.DIRECTORY), config.durability() == Durability.FSYNC,
                    Journal.blockSize(config), claims);
            Recovery recovery = recovered != null ? recovered : Recovery.run(journal);
            journal.startAfter(recovery.lastSegment); // here rather than on the writer: a failure stops the start
            recovery.state.segment(journal.currentSegment());
            JournalMessageStore store = new JournalMessageStore(journal, recovery, config, lockFile, freeSpace,
                    replication);
            double seconds = (System.nanoTime() - start) / 1e9;
            LOG.log(System.Logger.Level.INFO, String.format(java.util.Locale.ROOT,
                    "Journal %s recovered in %.3f s: %d messages restored on %d queues, %d records %s, %d open "
                            + "transactions rolled back, %d prepared XA transactions in doubt%s; durability %s; "
                            + "journal format %d",
                    journal.directory(), seconds, store.recovered.size(), recovery.lastSequences.size(),
                    recovery.records, recovered != null ? "applied as the replica received them" : "read",
                    recovery.rolledBackTransactions, store.prepared.size(),
                    recovery.damage.isEmpty() ? (recovery.closedCleanly ? "" : "; the last run did not stop in order")
                            : "; DAMAGE IGNORED: " + String.join("; ", recovery.damage),
                    config.durability(), JournalRecord.FORMAT));
            store.writerThread.start();
            return store;
        } catch (IOException | RuntimeException | Error e) {
            if (journal != null) {
                journal.close();
            }
            lockFile.close();
            throw e;
        }
    }

    @Override
    public void recover(RecoveryTarget target) {
        RecoveredMessages messages;
        List<PreparedTransaction> inDoubt;
        List<JournalState.Superseded> rolledBack;
        synchronized (this) {
            messages = recovered;
            inDoubt = prepared;
            rolledBack = superseded;
            recovered = null;
            prepared = null;
            superseded = null;
        }
        if (messages == null) {
            return;
        }
        recoveredSubscriptions.forEach(target::subscriptionRecovered);
        recoveredQueues.forEach(target::queueRecovered);
        // one message at a time, read from the journal as its queue takes it: a queue over its memory budget pages
        // what it takes, so a journal holding more than the budgets recovers within them (docs/resilience.md)
        try (JournalReader reader = journal.reader()) {
            for (int i = 0; i < messages.size(); i++) {
                String queue = messages.queue(i);
                long sequence = messages.sequence(i);
                target.messageRecovered(queue, sequence, reader.message(messages.segment(i), messages.index(i), queue,
                        sequence), messages.deliveryCount(i) + 1);
            }
        } finally {
            space.recoveryRead();
        }
        for (JournalState.Superseded s : rolledBack) {
            target.transactionSuperseded(s.branch(), s.tx() - transactionBase, s.by() - transactionBase);
        }
        inDoubt.forEach(target::transactionPrepared);
    }

    @Override
    public void put(StoredMessage message, StoreCompletion completion) {
        writer.submit(JournalEntry.put(0, message, completion));
    }

    /** One PUT_COPIES record (one PUT for one copy): the message's bytes once, one entry for the writer, one sync. */
    @Override
    public void putCopies(List<? extends StoredMessage> copies, StoreCompletion completion) {
        writer.submit(copies(0, copies, completion));
    }

    private static JournalEntry copies(long tx, List<? extends StoredMessage> copies, StoreCompletion completion) {
        return copies.size() == 1 ? JournalEntry.put(tx, copies.get(0), completion)
                : JournalEntry.putCopies(tx, copies, completion);
    }

    @Override
    public void remove(Iterable<? extends StoredMessage> messages, StoreCompletion completion) {
        writer.submit(JournalEntry.remove(0, messages, completion));
    }

    @Override
    public void putInTransaction(long transactionId, StoredMessage message) {
        writer.submit(JournalEntry.put(transactionBase + transactionId, message, StoreCompletion.NONE));
    }

    /** As {@link #putCopies}: one record, in the transaction. */
    @Override
    public void putCopiesInTransaction(long transactionId, List<? extends StoredMessage> copies) {
        writer.submit(copies(transactionBase + transactionId, copies, StoreCompletion.NONE));
    }

    @Override
    public void removeInTransaction(long transactionId, StoredMessage message) {
        writer.submit(JournalEntry.remove(transactionBase + transactionId, List.of(message), StoreCompletion.NONE));
    }

    @Override
    public void commit(long transactionId, StoreCompletion completion) {
        writer.submit(JournalEntry.marker(JournalRecord.COMMIT, transactionBase + transactionId, completion));
    }

    @Override
    public void rollback(long transactionId, StoreCompletion completion) {
        writer.submit(JournalEntry.marker(JournalRecord.ROLLBACK, transactionBase + transactionId, completion));
    }

    @Override
    public void prepare(long transactionId, byte[] branch, StoreCompletion completion) {
        writer.submit(JournalEntry.prepare(transactionBase + transactionId, branch, completion));
    }

    @Override
    public void sync(StoreCompletion completion) {
        writer.submit(JournalEntry.sync(completion));
    }

    @Override
    public void delivered(StoredMessage message, int deliveryCount) {
        writer.submit(JournalEntry.delivered(message, deliveryCount));
    }

    @Override
    public void queueCreated(String queueName) {
        writer.submit(JournalEntry.queue(queueName));
    }

    @Override
    public void queueDeleted(String queueName) {
        writer.submit(JournalEntry.queueDeleted(queueName));
    }

    @Override
    public void subscriptionCreated(SubscriptionRecord subscription) {
        writer.submit(JournalEntry.subscription(subscription));
    }

    @Override
    public void subscriptionDeleted(String queueName) {
        writer.submit(JournalEntry.unsubscribed(queueName));
    }

    /** Batches synced so far: with many concurrent committers, far fewer than the records they wrote. */
    public long syncs() {
        return writer.syncs();
    }

    /** Time spent in syncs so far, in nanoseconds (0 with durability os): with {@link #syncs}, the mean sync. */
    public long syncNanos() {
        return writer.syncNanos();
    }

    /** Entries made durable by syncs so far (0 with durability os): with {@link #syncs}, the mean batch. */
    public long syncedEntries() {
        return writer.syncedEntries();
    }

    /** Tells {@code observer} of every later sync (none with durability os). Any thread; replaces the one before. */
    public void observeSyncs(JournalSyncObserver observer) {
        writer.observeSyncs(observer);
    }

    /** Records appended so far. */
    public long records() {
        return writer.records();
    }

    /**
     * Records recovery read back from the journal's files when the store opened: all of them after a crash or a
     * restart; none on a replica that took over (it kept the state as the records came).
     */
    public long recordsReadAtOpen() {
        return recordsReadAtOpen;
    }

    /** What recovery found damaged and ignored (a torn or overwritten tail), one line per segment; empty if none. */
    public List<String> recoveryDamage() {
        return recoveryDamage;
    }

    /** Bytes of records in the journal after the last batch, live and dead: what the limit and the slack apply to. */
    public long journalBytes() {
        return space.journalBytes();
    }

    /** Journal files deleted by reclamation since the start. */
    public long reclaimedFiles() {
        return space.reclaimedFiles();
    }

    /** Finishes the records already handed over (they are written and synced), then stops. Idempotent. */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            if (recovered != null) {
                recovered = null;
                space.recoveryRead();
                prepared.forEach(PreparedTransaction::release);
                prepared = null;
            }
        }
        writer.stop();
        try {
            writerThread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        journal.close();
        try {
            lockFile.close();
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "Could not release the data directory lock: " + e);
        }
    }
}
