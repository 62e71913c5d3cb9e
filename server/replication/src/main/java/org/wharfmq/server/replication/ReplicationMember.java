package org.wharfmq.server.replication;

import org.wharfmq.server.config.ServerConfig;
import org.wharfmq.server.store.Durability;
import org.wharfmq.server.management.ReplicationState;
import org.wharfmq.server.store.JournalMessageStore;
import org.wharfmq.server.store.ReplicaJournal;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One instance of a replicated queue manager, the broker's side of its {@link ReplicatedLog}: while a replica, it
 * applies what the log commits to its own journal ({@link ReplicaJournal}); once elected, it {@link #takeOver takes
 * over} as a standby does when it gets the data directory's lock: its journal closed, the queue manager's store
 * opened on it (recovery, as after a crash), with every later batch handed to the log before it is confirmed.
 *
 * <p>Fencing: once it has taken over, losing the leadership (cut off from both others, or a batch not committed)
 * {@link #onFenced fences} it: the caller stops serving clients and ends the process; restarted, it rejoins as a
 * replica, its journal rebuilt from the log (so nothing it wrote without a majority survives).
 *
 * <p>Threads: the log applies batches on Ratis's applier thread; {@link #takeOver} runs on the caller's;
 * {@link #lock} orders the two around the replica journal, which is closed at the takeover.
 */
public final class ReplicationMember implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(ReplicationMember.class.getName());

    private enum State { REPLICA, ACTIVE, FENCED, CLOSED }

    private final ServerConfig config;
    private final Object lock = new Object();
    /** Guarded by {@link #lock}. */
    private State state = State.REPLICA;
    /** This member's journal while a replica; closed at the takeover. Guarded by {@link #lock}. */
    private final ReplicaJournal replica;
    private final CompletableFuture<Void> elected = new CompletableFuture<>();
    private final CompletableFuture<String> fenced = new CompletableFuture<>();
    private ReplicatedLog log;
    private final String group;
    /** Bytes appended and not yet committed (or failed): the active member's backlog. */
    private final AtomicLong backlogBytes = new AtomicLong();

    private ReplicationMember(ServerConfig config, String group, ReplicaJournal replica) {
        this.config = config;
        this.group = group;
        this.replica = replica;
    }

    /**
     * Starts member {@code selfId} of {@code membership} on {@code config}, whose data directory must be the
     * member's: its journal emptied and the replicated log applied to it again from its latest snapshot.
     *
     * @throws IllegalArgumentException when the data directory is not the member's, messages may be larger than one
     *                                  log entry carries, or the directory holds the journal of a queue manager
     *                                  that ran there on its own
     */
    public static ReplicationMember start(ServerConfig config, Membership membership, String selfId, MemberTls tls,
                                          ReplicationConfiguration.Timings timings) throws IOException {
        Member self = membership.member(selfId);
        Path data = config.dataDirectory().toAbsolutePath().normalize();
        if (!data.equals(self.dataDirectory().toAbsolutePath().normalize())) {
            throw new IllegalArgumentException("Replication member '" + selfId + "' has data directory "
                    + self.dataDirectory() + " but the queue manager is given " + config.dataDirectory()
                    + ": they must be one (leave dataDirectory out, or make it the member's).");
        }
        if (config.maxMessageLength() > ReplicationConfiguration.MAX_MESSAGE_LENGTH) {
            throw new IllegalArgumentException("maxMessageLength is " + config.maxMessageLength() + " bytes, but a "
                    + "replicated queue manager carries a message in one log entry of at most "
                    + ReplicationConfiguration.MAX_BATCH_BYTES + " bytes: set maxMessageLength to "
                    + ReplicationConfiguration.MAX_MESSAGE_LENGTH + " or less.");
        }
        if (!Files.isDirectory(self.replicationDirectory()) && ReplicaJournal.holdsJournal(data)) {
            throw new IllegalArgumentException("Data directory " + data + " holds the journal of a queue manager that "
                    + "ran there on its own, and member '" + selfId + "' has no replicated log yet: a member starts "
                    + "from an empty data directory (a member rebuilds its journal from the log). Give it an empty "
                    + "directory, or move the old journal away.");
        }
        ReplicaJournal replica = ReplicaJournal.open(config);
        ReplicationMember member = new ReplicationMember(config, membership.group(), replica);
        try {
            member.log = ReplicatedLog.start(membership, selfId, tls, member.new Sink(), member.new Listener(),
                    timings);
        } catch (IOException | RuntimeException e) {
            replica.close();
            throw e;
        }
        return member;
    }

    /** Completes once this member is elected and has applied everything committed before: it may {@link #takeOver}. */
    public CompletableFuture<Void> elected() {
        return elected;
    }

    /**
     * Completes, with the reason, when this member stopped being the active instance after it took over: the caller
     * stops serving clients at once (the others elect a new active instance) and ends the process.
     */
    public CompletableFuture<String> fenced() {
        return fenced;
    }

    /**
     * Becomes the active instance, once {@link #elected}: closes the replica journal and opens the queue manager's
     * store on it (recovery), every later batch replicated before it is confirmed. The caller starts the queue
     * manager with the store.
     */
    public JournalMessageStore takeOver() throws IOException {
        elected.join();
        synchronized (lock) {
            if (state != State.REPLICA) {
                throw new IllegalStateException("Replication member " + log.id() + " cannot take over: it is "
                        + state + ".");
            }
            replica.close();
            state = State.ACTIVE;
        }
        LOG.log(System.Logger.Level.INFO, () -> "Replication member " + log.id() + " is the active instance: its "
                + "journal recovers and the queue manager starts on it");
        try {
            // the journal is not forced: the Raft log (forced on a majority before a batch is confirmed) is the durable
            // copy, and every member rebuilds its journal from it when it starts; a force here would only add a sync
            return JournalMessageStore.openReplicated(config.toBuilder().durability(Durability.OS).build(),
                    this::replicate);
        } catch (IOException | RuntimeException e) {
            fence("its journal could not be opened: " + e);
            throw e;
        }
    }

    /**
     * The store's {@link org.wharfmq.server.store.JournalReplication}: the batch in log entries of at most
     * {@link ReplicationConfiguration#MAX_BATCH_BYTES}, cut between records; done when the last is committed (the log
     * commits in order). Any failure fences this member: its journal holds the batch, the others may not.
     */
    private CompletionStage<?> replicate(ByteBuffer records) {
        CompletableFuture<Long> last = null;
        int start = records.position();
        int end = start;
        while (end < records.limit()) {
            int next = end + 4 + records.getInt(end);
            if (next - start > ReplicationConfiguration.MAX_BATCH_BYTES && end > start) {
                last = append(records.slice(start, end - start));
                start = end;
            }
            end = next;
        }
        last = append(records.slice(start, end - start));
        return last;
    }

    private CompletableFuture<Long> append(ByteBuffer entry) {
        int bytes = entry.remaining();
        backlogBytes.addAndGet(bytes);
        CompletableFuture<Long> appended = log.append(entry);
        appended.whenComplete((index, failure) -> {
            backlogBytes.addAndGet(-bytes);
            if (failure != null) {
                fence("a batch was not committed: " + failure.getMessage());
            }
        });
        return appended;
    }

    private void fence(String why) {
        synchronized (lock) {
            if (state != State.ACTIVE) {
                return;
            }
            state = State.FENCED;
        }
        String reason = "Replication member " + log.id() + " stopped being the active instance (" + why + "): it "
                + "stops serving clients; restart it to rejoin as a replica.";
        LOG.log(System.Logger.Level.ERROR, reason);
        fenced.complete(reason);
    }

    /** This member's replicated log, for its status. */
    public ReplicatedLog log() {
        return log;
    }

    /** This member's place in the group, for {@code display server} and the metrics. */
    public ReplicationState state() {
        ReplicationStatus status = log.status();
        Map<String, Long> behind = new TreeMap<>();
        // on the active member, how far each other member's log is (its match index: in step as soon as it has
        // written an entry, where the commit index it reports lags a heartbeat); elsewhere, as the status says
        Map<String, Long> logs = log.followerLogIndexes();
        for (String id : status.committed().keySet()) {
            if (id.equals(status.member()) && id.equals(status.active())) {
                behind.put(id, 0L); // the active member has what it committed (its own figure lags a heartbeat)
                continue;
            }
            Long logged = logs.get(id);
            behind.put(id, logged == null ? status.behind(id) : Math.max(0, status.committedIndex() - logged));
        }
        logs.forEach((id, logged) -> behind.putIfAbsent(id, Math.max(0, status.committedIndex() - logged)));
        int inSync = (int) behind.values().stream().filter(entries -> entries == 0).count();
        return new ReplicationState(group, status.member(), status.role(), status.active(), status.term(),
                status.committedIndex(), status.appliedIndex(), inSync, backlogBytes.get(), behind);
    }

    /** Stops the replicated log (and the replica journal, while a replica); the store is the caller's to close. */
    @Override
    public void close() throws IOException {
        boolean replicaOpen;
        synchronized (lock) {
            replicaOpen = state == State.REPLICA;
            state = State.CLOSED;
        }
        try {
            log.close();
        } finally {
            if (replicaOpen) {
                synchronized (lock) {
                    replica.close();
                }
            }
        }
    }

    /** Applies committed batches to the replica journal until the takeover; the active one's are its own. */
    private final class Sink implements ReplicaSink {

        @Override
        public void apply(long index, String origin, ByteBuffer records) throws IOException {
            synchronized (lock) {
                if (state == State.REPLICA) {
                    replica.apply(records);
                } else if (state != State.CLOSED && !origin.equals(log.id())) {
                    throw new IllegalStateException("Replication member " + log.id() + " took over but was given "
                            + "batch " + index + " appended by " + origin + ": it stops.");
                }
            }
        }

        @Override
        public boolean writeSnapshot(OutputStream out) throws IOException {
            synchronized (lock) {
                if (state != State.REPLICA) {
                    return false; // the active instance's journal is the queue manager's: replicas take snapshots
                }
                replica.writeSnapshot(out);
                return true;
            }
        }

        @Override
        public void loadSnapshot(InputStream in) throws IOException {
            synchronized (lock) {
                requireReplica("load a snapshot");
                replica.loadSnapshot(in);
            }
        }

        @Override
        public void reset() throws IOException {
            synchronized (lock) {
                requireReplica("empty its journal");
                replica.reset();
            }
        }

        private void requireReplica(String what) throws IOException {
            if (state != State.REPLICA) {
                throw new IOException("Replication member " + (log == null ? "" : log.id()) + " cannot " + what
                        + " once it has taken over (" + state + ").");
            }
        }
    }

    /** Hears the elections: the first leadership is the signal to take over; losing it afterwards fences. */
    private final class Listener implements ActiveListener {

        @Override
        public void active() {
            elected.complete(null);
        }

        @Override
        public void inactive() {
            fence("it lost the leadership of the replicated log");
        }
    }
}
