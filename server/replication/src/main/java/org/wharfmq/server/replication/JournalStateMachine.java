package org.wharfmq.server.replication;

import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftGroupMemberId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.statemachine.impl.SimpleStateMachineStorage;
import org.apache.ratis.statemachine.impl.SingleFileSnapshotInfo;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.util.LifeCycle;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * The replicated log's Ratis state machine: each committed entry is applied to the member's {@link ReplicaSink} in
 * log order ({@link LogApplier}). A snapshot is the sink's state, in one file named by the term and index of the last
 * entry applied (Ratis's {@link SimpleStateMachineStorage}), taken once the entries since the latest hold
 * {@link ReplicationConfiguration#SNAPSHOT_LOG_BYTES} ({@link LogSnapshots}: the active member builds its own
 * from the log); Ratis then purges the log before it. The leader sends the latest snapshot to a member whose log is
 * too far behind (a new or wiped member), which loads it in place of its state and applies the log from there. A
 * snapshot is never taken inside a batch of several entries.
 *
 * <p>The settings every member must share are compared at each election: the member elected appends its own as an
 * entry of its term, and every other member compares them with its own as it applies that entry
 * ({@link #compareSettings}).
 *
 * <p>Ratis calls {@link #applyTransaction}, {@link #takeSnapshot} and {@link #reinitialize} on one thread, its
 * state machine updater, so the sink is never applied to while a snapshot is written.
 */
final class JournalStateMachine extends BaseStateMachine {

    private static final System.Logger LOG = System.getLogger(JournalStateMachine.class.getName());

    private final SimpleStateMachineStorage storage = new SimpleStateMachineStorage();
    private final ReplicaSink sink;
    private final ActiveListener listener;
    private final AtomicLong batchesApplied = new AtomicLong();
    private final ChunkJoiner joiner;
    private final LogApplier applier;
    private final LogSnapshots snapshots;
    /** This member's settings that every member must share, answered to a member that asks ({@link #query}). */
    private final GroupSettings settings;
    /** The group's name, for a refusal. */
    private final String group;
    /** Run when this member is elected, before its listener hears it: appends its settings ({@link ReplicatedLog}). */
    private final Runnable elected;
    /** Ratis's state machine updater once an entry failed on it: Ratis closes the division there. */
    private volatile Thread failStopped;
    /** Why an entry could not be applied (the member then stops), or null. */
    private volatile RuntimeException applyFailure;
    /** Snapshots the active member sent this one and it installed since it started; written on Ratis's updater. */
    private final AtomicLong snapshotsInstalled = new AtomicLong();
    /** The log's cache-eviction thread, stopped before Ratis closes the log ({@link LogCacheEviction}); null at first. */
    private volatile LogCacheEviction logCacheEviction;

    /**
     * {@code joiners} makes each joiner of batches in pieces (this member's, and one per snapshot the active member
     * builds); a snapshot is due every {@code snapshotEveryLogBytes} of entries applied.
     */
    JournalStateMachine(String group, ReplicaSink sink, ActiveListener listener, Supplier<ChunkJoiner> joiners,
                        GroupSettings settings, long snapshotEveryLogBytes, Runnable elected) {
        this.group = group;
        this.elected = elected;
        this.sink = sink;
        this.listener = listener;
        this.joiner = joiners.get();
        this.applier = new LogApplier(sink, joiner);
        this.settings = settings;
        this.snapshots = new LogSnapshots(snapshotEveryLogBytes, sink, storage, joiners);
    }

    /** Another member asks for this one's settings (at its start): they must be the same. */
    @Override
    public CompletableFuture<Message> query(Message request) {
        return CompletableFuture.completedFuture(Message.valueOf(settings.encode()));
    }

    /** The settings do not depend on what was applied: answered at once, also before anything was. */
    @Override
    public CompletableFuture<Message> queryStale(Message request, long minIndex) {
        return query(request);
    }

    /**
     * Ratis: an entry that is not a batch was applied (each leader's first entry, a change of members): a batch of
     * an earlier term still being joined was left unfinished by its appender.
     */
    @Override
    public void notifyTermIndexUpdated(long term, long index) {
        try {
            applier.otherEntry(term);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        super.notifyTermIndexUpdated(term, index);
    }

    /** Ratis: this member leads and has applied its term's first entry. */
    @Override
    public void notifyLeaderReady() {
        elected.run();
        listener.active();
    }

    /** Ratis: this member's leadership ended; its pending appends were answered "not leader". */
    @Override
    public void notifyNotLeader(Collection<TransactionContext> pendingEntries) {
        listener.inactive();
    }

    /**
     * Ratis: this member heard of a new leader. Another member leading means this one does not, whatever it was told
     * before: a second way to the same {@link ActiveListener#inactive} (Ratis tells {@link #notifyNotLeader} only when
     * its leader state stops in order), so that a member that stood still (a long pause) and was replaced learns it
     * from the first call of its successor.
     */
    @Override
    public void notifyLeaderChanged(RaftGroupMemberId member, RaftPeerId leader) {
        if (leader != null && !leader.equals(member.getPeerId())) {
            listener.inactive();
        }
    }

    @Override
    public void initialize(RaftServer server, RaftGroupId groupId, RaftStorage raftStorage) throws IOException {
        getLifeCycle().startAndTransition(() -> {
            super.initialize(server, groupId, raftStorage);
            storage.init(raftStorage);
            snapshots.initialize(server, groupId);
            load(storage.getLatestSnapshot());
        });
    }

    /**
     * Before the leader installs a snapshot here: Ratis checks that the state machine is PAUSED. Called again for
     * each further part of a snapshot larger than one install request (16 MiB): paused already, it stays so.
     */
    @Override
    public void pause() {
        if (getLifeCycleState() == LifeCycle.State.PAUSED) {
            return;
        }
        getLifeCycle().transition(LifeCycle.State.PAUSING);
        getLifeCycle().transition(LifeCycle.State.PAUSED);
    }

    /** After the leader installed a snapshot here: the sink's state becomes the snapshot's. */
    @Override
    public void reinitialize() throws IOException {
        SingleFileSnapshotInfo installed = storage.loadLatestSnapshot();
        load(installed);
        if (installed != null) {
            snapshotsInstalled.incrementAndGet();
            LOG.log(System.Logger.Level.INFO, () -> getId() + ": installed the snapshot at index "
                    + installed.getIndex() + " the active member sent (this member's next entry was no longer in "
                    + "that member's log)");
        }
        if (getLifeCycleState() == LifeCycle.State.PAUSED) {
            getLifeCycle().transition(LifeCycle.State.STARTING);
            getLifeCycle().transition(LifeCycle.State.RUNNING);
        }
    }

    private void load(SingleFileSnapshotInfo snapshot) throws IOException {
        if (snapshot == null) {
            return;
        }
        LogSnapshots.read(snapshot, sink);
        applier.loaded(snapshot.getTerm());
        snapshots.loaded();
        setLastAppliedTermIndex(snapshot.getTermIndex());
        LOG.log(System.Logger.Level.INFO, () -> getId() + ": replicated journal state loaded from snapshot at index "
                + snapshot.getIndex() + " (" + snapshot.getFile().getPath() + ")");
    }

    @Override
    public SimpleStateMachineStorage getStateMachineStorage() {
        return storage;
    }

    /**
     * Applies a committed entry. A failure is thrown (fail-stop, below), the thread remembered first; a refusal of
     * this member's settings is told to the listener once that thread has closed the member.
     *
     * <p>Why then: Ratis 3.2.1's updater, once an entry failed, closes the member itself, and a close begun by
     * anyone else before its own waits for the updater to apply up to the commit index, which it never will: the
     * updater spins and the close never returns (seen as SettingsCheckTest hanging). So the member's owner, who
     * closes it on hearing of the refusal, hears only after Ratis's own close, and {@link ReplicatedLog#close} waits
     * for that close too ({@link #awaitFailStop}).
     */
    @Override
    public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
        try {
            return apply(trx.getLogEntry());
        } catch (RuntimeException e) {
            Thread updater = Thread.currentThread();
            applyFailure = e;
            failStopped = updater;
            if (e instanceof SettingsRefused) {
                Thread tell = new Thread(() -> {
                    try {
                        updater.join(ReplicationConfiguration.FAIL_STOP_CLOSE_WAIT.toMillis());
                    } catch (InterruptedException interrupted) {
                        Thread.currentThread().interrupt();
                    }
                    listener.refused(e.getMessage());
                }, "wharf-replication-refused");
                tell.setDaemon(true);
                tell.start();
            }
            throw e;
        }
    }

    /**
     * Waits, at most {@code max}, until Ratis's own close of this member, run on the updater whose entry failed
     * (fail-stop), is done (nothing when no entry failed): its log and storage directory are then released, and a
     * close of the member begun after it does not race it ({@link #applyTransaction}).
     */
    void awaitFailStop(java.time.Duration max) throws InterruptedException {
        Thread updater = failStopped;
        if (updater != null && updater != Thread.currentThread()) {
            updater.join(max.toMillis());
            if (updater.isAlive()) {
                LOG.log(System.Logger.Level.WARNING, () -> getId() + ": Ratis's close after a failed entry did not "
                        + "end within " + max + "; its log directory may still be locked");
            }
        }
    }

    private CompletableFuture<Message> apply(LogEntryProto entry) {
        ByteString data = entry.getStateMachineLogEntry().getLogData();
        if (BatchEntry.isSettings(data)) {
            compareSettings(entry.getTerm(), BatchEntry.origin(data), BatchEntry.settingsOf(data));
        }
        boolean batch;
        try {
            batch = applier.apply(entry);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        // A failure is thrown, not returned as a failed future: Ratis logs a failed future and applies the next entry,
        // which would leave a gap in this member's journal; a throw stops its state machine updater and closes the
        // member (fail-stop), and the other two go on. Restarted, it applies the log again from its latest snapshot.
        updateLastAppliedTermIndex(entry.getTerm(), entry.getIndex());
        if (batch) {
            batchesApplied.incrementAndGet();
        }
        snapshots.applied(entry.getIndex(), entry.getSerializedSize(), !applier.insideBatch());
        return CompletableFuture.completedFuture(Message.EMPTY);
    }

    /**
     * Compares the settings the current term's leader appended when it was elected with this member's. On a difference
     * this member is refused (its listener hears why) and stops, fail-stop, as for any entry it cannot apply; the
     * others go on. So members started at the same moment, which could not compare their settings at their start
     * ({@link SettingsCheck}), compare them at the first election: the elected member's are the group's. The entries
     * of earlier terms, or of a member not known as the leader (applied again at a restart, or caught up with), are
     * not compared: the members may all have changed a setting together since.
     */
    private void compareSettings(long term, String origin, GroupSettings theirs) {
        String self = getId().toString();
        if (origin.equals(self)) {
            return;
        }
        DivisionInfo info;
        try {
            info = getServer().join().getDivision(getGroupId()).getInfo();
        } catch (IOException e) {
            return; // closing
        }
        if (term != info.getCurrentTerm() || info.getLeaderId() == null
                || !info.getLeaderId().toString().equals(origin)) {
            return;
        }
        List<String> differ = settings.differences(theirs);
        if (differ.isEmpty()) {
            return;
        }
        String reason = String.join(" ", differ.stream()
                .map(setting -> SettingsCheck.refusal(group, self, settings, origin, theirs, setting)).toList());
        LOG.log(System.Logger.Level.ERROR, reason);
        throw new SettingsRefused(reason);
    }

    /** This member's settings differ from the elected member's: it stops. */
    private static final class SettingsRefused extends IllegalStateException {
        SettingsRefused(String reason) {
            super(reason);
        }
    }

    /**
     * Writes the sink's state as the snapshot at the last entry applied ({@link LogSnapshots#write}); on the active
     * member, whose sink has none to give, answers the latest snapshot it built from its log ({@link LogSnapshots}).
     * Ratis purges the log up to the index answered.
     */
    @Override
    public long takeSnapshot() throws IOException {
        TermIndex last = getLastAppliedTermIndex();
        if (last == null || last.getIndex() < 0) {
            return -1;
        }
        if (applier.insideBatch()) {
            // never inside a batch of several entries: a member loading the snapshot would get its later pieces only
            return latestSnapshotIndex();
        }
        if (!LogSnapshots.write(storage, last, sink)) {
            return latestSnapshotIndex();
        }
        snapshots.taken();
        return last.getIndex();
    }

    private long latestSnapshotIndex() {
        SingleFileSnapshotInfo latest = storage.getLatestSnapshot();
        return latest == null ? -1 : latest.getIndex();
    }

    /** Once this member's Raft server started: its log's cache-eviction thread, for {@link #close} to stop. */
    void stopOnClose(LogCacheEviction eviction) {
        this.logCacheEviction = eviction;
    }

    /**
     * Stops the log's cache-eviction thread (Ratis closes the log right after this: {@link LogCacheEviction}) and the
     * snapshot builder; then the listener hears that the log stopped ({@link ActiveListener#stopped}), unless
     * it hears of a refusal instead. Ratis closes the state machine whenever this member's Raft server stops: its
     * owner's close, an entry it could not apply (fail-stop), or its removal from the group.
     */
    @Override
    public void close() throws IOException {
        try {
            LogCacheEviction eviction = logCacheEviction;
            if (eviction != null) {
                eviction.stop();
            }
            snapshots.close();
            super.close();
        } finally {
            RuntimeException failure = applyFailure;
            if (!(failure instanceof SettingsRefused)) {
                listener.stopped(failure == null ? "its Raft server stopped" : "it could not apply a log entry ("
                        + failure.getMessage() + ")");
            }
        }
    }

    /** The joiner of batches in pieces. */
    ChunkJoiner joiner() {
        return joiner;
    }

    /** Batches applied to the sink since this state machine was made. */
    long batchesApplied() {
        return batchesApplied.get();
    }

    /** Snapshots the active member sent this member and it installed, since it started. */
    long snapshotsInstalled() {
        return snapshotsInstalled.get();
    }

    /** The index of this member's latest snapshot (taken, built or installed), or -1 when it has none. */
    long snapshotIndex() {
        return latestSnapshotIndex();
    }

    /** Snapshots this member built from its log while active, since it started. */
    long snapshotsBuilt() {
        return snapshots.built();
    }
}
