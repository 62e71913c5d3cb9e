package org.wharfmq.server.replication;

import org.wharfmq.server.config.ServerConfig;
import org.wharfmq.server.store.Durability;
import org.wharfmq.server.management.ReplicationState;
import org.wharfmq.server.store.JournalMessageStore;
import org.wharfmq.server.store.QueueDefinitionFile;
import org.wharfmq.server.store.ReplicaJournal;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One instance of a replicated queue manager, the broker's side of its {@link ReplicatedLog}: while a replica, it
 * applies what the log commits to its own journal and to the state recovery would read back from it
 * ({@link ReplicaJournal}); once elected, it {@link #takeOver takes over} as a standby does when it gets the data
 * directory's lock: its journal closed, the queue manager's store opened on it from that state (the journal is not
 * read back), with every later batch handed to the log before it is confirmed.
 *
 * <p>The definitions made at run time ({@code queues.def}, {@link #definitions}) travel through the same log, each
 * version whole, and a replica writes them into its own data directory ({@link ReplicatedFiles}).
 *
 * <p>Fencing: once it is elected, losing the leadership (cut off from both others, a batch not committed, a
 * {@link #switchover}, or an election lost before it took over) {@link #fenced fences} it: the caller stops serving
 * clients ({@link #stoppedServing}, before which no failed batch fails its waiters), closes this member and starts it
 * again, in its process, to rejoin as a replica, its journal rebuilt from the log (so nothing it wrote without a
 * majority survives).
 *
 * <p>Threads: the log applies batches on Ratis's applier thread, the one owner of the replica's state until the
 * takeover; {@link #takeOver} runs on the caller's; {@link #lock} orders the two around the replica journal, which
 * is closed at the takeover and its state handed to the store.
 */
public final class ReplicationMember implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(ReplicationMember.class.getName());
    /** How long a switchover waits before it starts, so that the admin command's answer leaves first. */
    private static final long SWITCHOVER_ANSWER_MILLIS = 500;

    private enum State { REPLICA, ACTIVE, FENCED, CLOSED }

    private final ServerConfig config;
    private final Object lock = new Object();
    /** Written under {@link #lock}; read without it for the status (which must not wait for a batch's apply). */
    private volatile State state = State.REPLICA;
    /** This member's journal while a replica; closed at the takeover. Guarded by {@link #lock}. */
    private final ReplicaJournal replica;
    /** The files beside the journal the log carries; written here while a replica. Guarded by {@link #lock}. */
    private final ReplicatedFiles files;
    /** The member a switchover hands the leadership to, while one is under way; else null. */
    private volatile String switchingTo;
    private final CompletableFuture<Void> elected = new CompletableFuture<>();
    private final CompletableFuture<String> fenced = new CompletableFuture<>();
    private final CompletableFuture<String> refused = new CompletableFuture<>();
    /** Completed, with the reason, when its log stopped while it was a replica and nobody closed it. */
    private final CompletableFuture<String> logStopped = new CompletableFuture<>();
    /**
     * Completed by the caller once it stopped serving clients after the fence ({@link #stoppedServing}), at
     * {@link #close}, or {@link ReplicationConfiguration#STOP_SERVING_WAIT} after the fence: the batches failed by the
     * fence fail their waiters only then.
     */
    private final CompletableFuture<Void> stoppedServing = new CompletableFuture<>();
    /** Failed batches whose waiters wait for {@link #stoppedServing}. */
    private final AtomicInteger failuresHeld = new AtomicInteger();
    /** Why it lost the leadership after it was elected and before it took over; else null. Guarded by {@link #lock}. */
    private String lostBeforeTakeOver;
    private ReplicatedLog log;
    /** When {@link #takeOver} opened the queue manager's store ({@link System#nanoTime}); 0 before. */
    private volatile long storeOpenedAt;
    /** When this member heard it was elected ({@link #elected} completed, {@link System#nanoTime}); 0 before. */
    private volatile long electedAt;
    /** Adding and removing members, on the active member. */
    private MemberChanges changes;
    private final String group;
    /** Bytes appended and not yet committed (or failed): the active member's backlog. */
    private final AtomicLong backlogBytes = new AtomicLong();
    /** The bytes each replica lacks of what this member committed while active. */
    private final ReplicaBacklog replicaBacklog = new ReplicaBacklog();
    /** Where the journal's batches go once this member is active: held still while a switchover runs. */
    private final SwitchoverGate gate = new SwitchoverGate(this::replicate);

    private final Membership membership;
    /** This member's id. */
    private final String id;
    /** How often the active member asks its log whether it still leads: the election timeout's minimum. */
    private final long leadershipCheckMillis;
    /** A member heard from within this long answers (the election timeout's maximum); the others are unreachable. */
    private final Duration answeringWithin;

    private ReplicationMember(ServerConfig config, Membership membership, ReplicaJournal replica,
                              ReplicatedFiles files, String id, ReplicationConfiguration.Timings timings) {
        this.config = config;
        this.id = id;
        this.leadershipCheckMillis = timings.electionTimeoutMin().toMillis();
        this.answeringWithin = timings.electionTimeoutMax();
        this.membership = membership;
        this.group = membership.group();
        this.replica = replica;
        this.files = files;
    }

    /**
     * Starts member {@code selfId} of {@code membership} on {@code config}, whose data directory must be the
     * member's: its journal emptied and the replicated log applied to it again from its latest snapshot.
     *
     * @throws IllegalArgumentException when the data directory is not the member's, {@code maxMessageLength} is above
     *                                  {@link ReplicationConfiguration#MAX_MESSAGE_LENGTH}, a running member's
     *                                  {@code name} or {@code maxMessageLength} differs ({@link SettingsCheck}), or
     *                                  the directory holds the journal of a queue manager that ran there on its own
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
        GroupSettings settings = GroupSettings.of(config.name(), config.maxMessageLength());
        ReplicationConfiguration.maxRecordBytes(config.maxMessageLength()); // refused here, before anything starts
        ReplicatedFiles files = new ReplicatedFiles(data);
        if (!Files.isDirectory(self.replicationDirectory()) && (ReplicaJournal.holdsJournal(data) || files.any())) {
            throw new IllegalArgumentException("Data directory " + data + " holds the journal or the definitions ("
                    + ReplicatedFiles.NAMES + ") of a queue manager that ran there on its own, and member '" + selfId
                    + "' has no replicated log yet: a member starts from an empty data directory (a member rebuilds "
                    + "its journal and definitions from the log). Give it an empty directory, or move the old files "
                    + "away.");
        }
        ReplicaJournal replica = ReplicaJournal.open(config);
        ReplicationMember member = new ReplicationMember(config, membership, replica, files, selfId, timings);
        try {
            files.reset(); // rebuilt from the log, as the journal is
            ReplicaJournal.deleteTree(ScratchJournal.directory(config)); // a snapshot build the last run did not finish
            member.log = ReplicatedLog.start(membership, selfId, tls, member.new Sink(), member.new Listener(),
                    timings, settings);
            member.changes = new MemberChanges(member.log, member.group, member.answeringWithin,
                    ReplicationConfiguration.CHANGE_TIMEOUT);
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
     * Completes, with the reason, when this member, a replica, cannot go on in its group: its settings differ from
     * those of the member elected active (members started at the same moment compare them at the first election,
     * {@link SettingsCheck}). Its log has stopped; the caller closes it and ends, as when the check at its start
     * refuses it.
     */
    public CompletableFuture<String> refused() {
        return refused;
    }

    /**
     * Completes, with the reason, when this member's log stopped by itself while it was a replica (an entry it could
     * not apply: fail-stop; its removal from the group): it can neither serve nor follow any more. The caller closes
     * it and ends, naming the reason; started again, it applies its log from its latest snapshot. (Once it took over,
     * its log stopping {@link #fenced fences} it instead.)
     */
    public CompletableFuture<String> logStopped() {
        return logStopped;
    }

    /**
     * Completes, with the reason, when this member stopped being the active instance after it took over: the caller
     * stops serving clients at once (the others elect a new active instance), says so with {@link #stoppedServing},
     * closes this member and starts it again as a replica. A member that loses the leadership after it is {@link #elected} and before it {@link
     * #takeOver takes over} is fenced by the takeover, at once.
     */
    public CompletableFuture<String> fenced() {
        return fenced;
    }

    /**
     * The caller's answer to {@link #fenced}: it serves no client any more (their connections are closed). Until then
     * (or {@link #close}, or at most {@link ReplicationConfiguration#STOP_SERVING_WAIT}) the batches the fence failed
     * do not fail their waiters, so that no client is told of a failure for work the next active member may commit: a
     * client whose send or commit such a batch held sees its connection lost (outcome unknown, as a failover's),
     * whenever the leadership was lost (even while the queue manager starts).
     */
    public void stoppedServing() {
        stoppedServing.complete(null);
    }

    /** Failed batches whose waiters have not heard of it yet, waiting for {@link #stoppedServing}. */
    int failuresHeld() {
        return failuresHeld.get();
    }

    /**
     * Becomes the active instance, once {@link #elected} (it has applied every batch committed before): closes the
     * replica journal and opens the queue manager's store on it with the state the replica kept (no replay of the
     * journal), every later batch replicated before it is confirmed. The caller starts the queue manager with the
     * store.
     */
    public JournalMessageStore takeOver() throws IOException {
        elected.join();
        String lost;
        synchronized (lock) {
            if (state != State.REPLICA) {
                throw new IllegalStateException("Replication member " + log.id() + " cannot take over: it is "
                        + state + ".");
            }
            replica.close();
            state = State.ACTIVE; // from here no batch reaches the replica's state: the store below takes it
            lost = lostBeforeTakeOver;
        }
        checkLeadershipLater();
        LOG.log(System.Logger.Level.INFO, () -> "Replication member " + log.id() + " is the active instance: the "
                + "queue manager starts on its journal, from the state it kept as a replica");
        try {
            // the journal is not forced: the Raft log (forced on a majority before a batch is confirmed) is the durable
            // copy, and every member rebuilds its journal from it when it starts; a force here would only add a sync
            JournalMessageStore store = JournalMessageStore.openReplicated(
                    config.toBuilder().durability(Durability.OS).build(), gate::pass, replica);
            storeOpenedAt = System.nanoTime();
            if (lost != null) {
                fence(lost); // the caller stops serving clients as soon as it hears: the next one is elected
            }
            return store;
        } catch (IOException | RuntimeException e) {
            fence("its journal could not be opened: " + e);
            throw e;
        }
    }

    /** When {@link #takeOver} opened the queue manager's store, as {@link System#nanoTime}; 0 before it did. */
    public long storeOpenedAt() {
        return storeOpenedAt;
    }

    /**
     * When this member heard it was elected (its term's first entry committed by a majority and applied here), as
     * {@link System#nanoTime}; 0 before.
     */
    public long electedAt() {
        return electedAt;
    }

    /**
     * The definitions file of the queue manager this member runs once it {@link #takeOver takes over}: every change
     * is written to its data directory and committed through the log before it is done, so the next active member
     * has it.
     */
    public QueueDefinitionFile definitions() {
        return QueueDefinitionFile.replicated(config.dataDirectory(), this::replicateFile);
    }

    /** Commits a new version of a file beside the journal; a failure fences this member, as a batch's does. */
    private void replicateFile(String name, byte[] content) {
        Throwable failure;
        try {
            log.appendFile(name, content).get(ReplicationConfiguration.CHANGE_TIMEOUT.toMillis(),
                    TimeUnit.MILLISECONDS);
            return;
        } catch (ExecutionException e) {
            failure = e.getCause();
        } catch (TimeoutException e) {
            failure = new TimeoutException("no majority answered within " + ReplicationConfiguration.CHANGE_TIMEOUT);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            failure = e;
        }
        fence("a change of " + name + " was not committed: " + failure.getMessage());
        throw new IllegalStateException("The change was not confirmed by a majority of replication group '" + group
                + "' (" + failure.getMessage() + "): this member stops being the active instance, and the next one "
                + "decides whether the change was made. Display it there, and make it again if it is not.", failure);
    }

    /**
     * Hands the active role to {@code to} (null: the replica least behind, then the first by id), Ratis's leadership
     * transfer, which first brings it up to date:
     * the new member takes over as after an election, and this one, fenced as it steps down, stops serving clients and
     * rejoins as a replica. Starts the transfer a moment after
     * it returns, so that the command's answer leaves first.
     *
     * @return what was started, for the operator
     * @throws IllegalStateException    when this member is not the active one, or it hears from no replica (or not
     *                                  from {@code to})
     * @throws IllegalArgumentException when {@code to} is not another member of the group
     */
    public String switchover(String to) {
        synchronized (lock) {
            if (state != State.ACTIVE) {
                throw new IllegalStateException("Replication member " + log.id() + " is not the active instance ("
                        + state + "): run switchover on the active one.");
            }
        }
        if (switchingTo != null) {
            throw new IllegalStateException("A switchover to member " + switchingTo + " is under way already.");
        }
        ReplicationState now = state();
        String target = to;
        // a replica heard from qualifies even a few entries behind (under load one always is): the transfer brings it
        // up to date before it takes over, or gives up after CHANGE_TIMEOUT and this member stays active
        if (target == null) {
            target = now.behind().entrySet().stream()
                    .filter(e -> !e.getKey().equals(log.id()) && e.getValue() >= 0)
                    .sorted(Map.Entry.<String, Long>comparingByValue()
                            .thenComparing(Map.Entry.<String, Long>comparingByKey()))
                    .map(Map.Entry::getKey).findFirst()
                    .orElseThrow(() -> new IllegalStateException("No replica of group '" + group + "' can take over: "
                            + "the active member hears from none (" + now.behind() + "). Start the replicas, or wait "
                            + "until 'display server' shows them in sync."));
        } else {
            log.requireMember(target); // refused, naming the members (as the log has them), when there is none
            if (target.equals(log.id())) {
                throw new IllegalArgumentException("Member " + target + " is the active instance already: name "
                        + "another member, or leave --to out.");
            }
            Long behind = now.behind().get(target);
            if (behind == null || behind < 0) {
                throw new IllegalStateException("Member " + target + " cannot take over: the active member has not "
                        + "heard from it. Start it, or wait until 'display server' shows it in sync, then switch "
                        + "over.");
            }
        }
        String chosen = target;
        switchingTo = chosen;
        CompletableFuture.delayedExecutor(SWITCHOVER_ANSWER_MILLIS, TimeUnit.MILLISECONDS).execute(() ->
                handOver(chosen));
        LOG.log(System.Logger.Level.INFO, () -> "Replication member " + log.id() + " hands the active role to "
                + chosen + " (switchover)");
        return "Switchover of group '" + group + "' from member " + log.id() + " to member " + chosen + " started: "
                + chosen + " takes over and the clients reconnect to it; " + log.id() + " stops serving clients and "
                + "rejoins as a replica.";
    }

    /**
     * The switchover itself: the journal's batches held ({@link SwitchoverGate}) until those appended are committed,
     * so that the log stands still while Ratis brings {@code to} up to date and has it elected; then this member is
     * fenced and the held batches fail (they are in no log: their clients see the connection lost and go to the new
     * active member). If it fails, the held batches are appended and this member stays active.
     */
    private void handOver(String to) {
        gate.close().orTimeout(ReplicationConfiguration.CHANGE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                .thenCompose(drained -> log.transferLeadership(to, ReplicationConfiguration.CHANGE_TIMEOUT))
                .whenComplete((done, failure) -> {
                    if (failure == null) {
                        fence("it handed the active role to member " + to + " (switchover)");
                        NotActiveException handed = new NotActiveException("Replication member " + log.id()
                                + " handed the active role to member " + to + " (switchover) before this batch was "
                                + "appended.", to);
                        stoppedServing.thenRun(() -> gate.open(handed));
                        return;
                    }
                    switchingTo = null;
                    int held = gate.heldBatches();
                    gate.open(null);
                    LOG.log(System.Logger.Level.WARNING, "The switchover to member " + to + " failed, member "
                            + log.id() + " stays active (" + held + " batches held meanwhile go on): "
                            + failure.getMessage());
                });
    }

    /**
     * Adds member {@code id}, listening for the replication at {@code address} (host:port), to the group: it must run
     * already, started with the new member list; the active member brings it up to date (from the log, or its latest
     * snapshot) before it counts. Answers once a majority of the old and of the new members have the change.
     *
     * @return what was done, for the operator
     * @throws IllegalStateException    when this member is not the active one, or the change failed (naming why)
     * @throws IllegalArgumentException for an id or address the group has already, or one that is not valid
     */
    public String addMember(String id, String address) {
        requireActive("define member");
        return changes.add(id, address);
    }

    /**
     * Removes member {@code id} from the group (it may be stopped already).
     *
     * @return what was done, for the operator
     * @throws IllegalStateException    when this member is not the active one, the members left that answer would not
     *                                  be a majority of them, or the change failed
     * @throws IllegalArgumentException for a member the group does not have, the active member itself, or one that
     *                                  would leave fewer than {@link Membership#MIN_MEMBERS}
     */
    public String removeMember(String id) {
        requireActive("delete member");
        return changes.remove(id);
    }

    private void requireActive(String command) {
        synchronized (lock) {
            if (state != State.ACTIVE) {
                String active = log.leader();
                throw new IllegalStateException("Replication member " + log.id() + " is not the active instance ("
                        + state + "): run " + command + " on the active one" + (active == null ? "" : " (" + active
                        + ")") + ".");
            }
        }
    }

    /**
     * The store's {@link org.wharfmq.server.store.JournalReplication}: the batch in log entries of at most
     * {@link ReplicationConfiguration#MAX_BATCH_BYTES}, cut between records (a larger record goes alone, in pieces:
     * {@link ReplicatedLog#append}); done when the last is committed (the log commits in order). Any failure fences this member: its journal holds the batch, the others may not.
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
        CompletableFuture<Long> confirmed = new CompletableFuture<>();
        log.append(entry).whenComplete((index, failure) -> {
            backlogBytes.addAndGet(-bytes);
            if (failure == null) {
                replicaBacklog.committed(index, bytes);
                confirmed.complete(index);
                return;
            }
            // fenced first, and the batch's waiters hear of the failure once the caller stopped serving clients, so a
            // client whose send or commit the batch held sees its connection lost (outcome unknown), never a failure
            // for work the next active member may commit (an entry one replica has can be committed by the next term)
            fence("a batch was not committed: " + failure.getMessage());
            failuresHeld.incrementAndGet();
            stoppedServing.thenRun(() -> {
                failuresHeld.decrementAndGet();
                confirmed.completeExceptionally(failure);
            });
        });
        return confirmed;
    }

    private void fence(String cause) {
        String to = switchingTo; // a planned switchover fails the appends in flight and ends the leadership as well
        String why = to != null ? "it handed the active role to member " + to + " (switchover)" : cause;
        synchronized (lock) {
            if (state == State.REPLICA && elected.isDone() && lostBeforeTakeOver == null) {
                lostBeforeTakeOver = why; // elected, then not: its takeover fences it (the caller is on its way)
                return;
            }
            if (state != State.ACTIVE) {
                return;
            }
            state = State.FENCED;
        }
        String reason = "Replication member " + log.id() + " stopped being the active instance (" + why + "): it "
                + "stops serving clients and rejoins as a replica.";
        LOG.log(System.Logger.Level.ERROR, reason);
        CompletableFuture.delayedExecutor(ReplicationConfiguration.STOP_SERVING_WAIT.toMillis(), TimeUnit.MILLISECONDS)
                .execute(() -> {
                    if (stoppedServing.complete(null)) {
                        LOG.log(System.Logger.Level.WARNING, "Replication member " + log.id() + " was not told it "
                                + "stopped serving clients within " + ReplicationConfiguration.STOP_SERVING_WAIT
                                + " of its fence: the sends and commits its failed batches held fail now");
                    }
                });
        fenced.complete(reason);
    }

    /**
     * While active, asks its log every {@link #leadershipCheckMillis} whether it still leads, and fences it when not:
     * Ratis tells the state machine when its leadership ends ({@link ActiveListener#inactive}), and this check makes
     * the member independent of that one call (a member that stood still, paused past the election timeout, finds
     * out within one check of going on, whatever Ratis told it meanwhile).
     */
    private void checkLeadershipLater() {
        CompletableFuture.delayedExecutor(leadershipCheckMillis, TimeUnit.MILLISECONDS).execute(() -> {
            if (state != State.ACTIVE) {
                return;
            }
            if (!log.leads()) {
                fence("its replicated log no longer leads (" + log.role() + ", active: " + log.leader() + ")");
                return;
            }
            checkLeadershipLater();
        });
    }

    /**
     * After this member is {@link #fenced}: waits, at most {@code max}, until another member is known to lead the
     * log. Until then this member is still one of three: its vote and its log may be what the next election needs (a
     * switchover's chosen member asks for it; after a cut, the cut may heal). The caller closes it after, to rejoin.
     *
     * @return the member now active, or null if none became known within {@code max}
     */
    public String awaitSuccessor(java.time.Duration max) {
        long deadline = System.nanoTime() + max.toNanos();
        while (true) {
            String active = log.leader();
            if (active != null && !active.equals(log.id())) {
                return active;
            }
            if (System.nanoTime() - deadline >= 0) {
                return null;
            }
            java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
        }
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
        Map<String, String> members = log.members();
        if (!members.isEmpty()) {
            behind.keySet().retainAll(members.keySet()); // a removed member's last figures linger in Ratis's
        }
        // on the active member, the members it has no answer from: down or cut off, neither catching up nor in sync,
        // however little they lacked when last heard
        Set<String> unreachable = new TreeSet<>();
        if (status.member().equals(status.active())) {
            unreachable.addAll(behind.keySet());
            unreachable.removeAll(log.answering(behind.keySet(), answeringWithin));
        }
        int inSync = (int) behind.entrySet().stream()
                .filter(m -> m.getValue() == 0 && !unreachable.contains(m.getKey())).count();
        Map<String, Long> behindBytes = new TreeMap<>();
        logs.forEach((id, logged) -> {
            if (members.isEmpty() || members.containsKey(id)) {
                behindBytes.put(id, replicaBacklog.behind(logged));
            }
        });
        boolean replicating = state == State.REPLICA;
        return new ReplicationState(group, status.member(), status.role(), status.active(), status.term(),
                status.committedIndex(), status.appliedIndex(), inSync, backlogBytes.get(), behind, members,
                log.lastContactMillis(), behindBytes, replicating ? replica.journalBytes() : -1,
                replicating ? replica.segments() : -1, log.snapshotIndex(), log.logStartIndex(),
                log.snapshotsInstalled(), unreachable);
    }

    /** Stops the replicated log (and the replica journal, while a replica); the store is the caller's to close. */
    @Override
    public void close() throws IOException {
        boolean replicaOpen;
        synchronized (lock) {
            replicaOpen = state == State.REPLICA;
            state = State.CLOSED;
        }
        stoppedServing(); // nobody is served any more: what still waits on a failed batch hears of it
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

    /**
     * Applies committed batches to the replica journal until the takeover; the active one's are its own. Once fenced
     * (and closed) it drops every entry, file, snapshot and term: its journal is the closing queue manager's, and the
     * member is about to be closed and started again, its journal rebuilt from the log (the new active member's
     * entries reach it from the moment it hears of that member: they must not stop its log, which would leave its
     * close racing Ratis's own).
     */
    private final class Sink implements ReplicaSink {

        @Override
        public boolean takes(String origin) {
            synchronized (lock) {
                return state == State.REPLICA || state == State.ACTIVE && !origin.equals(log.id());
            }
        }

        @Override
        public void apply(long index, String origin, ByteBuffer records) throws IOException {
            synchronized (lock) {
                if (state == State.REPLICA) {
                    replica.apply(records);
                } else if (state == State.ACTIVE && !origin.equals(log.id())) {
                    throw tookOver("batch " + index, origin);
                }
            }
        }

        @Override
        public void newTerm(long term) {
            synchronized (lock) {
                if (state == State.REPLICA) {
                    int rolledBack = replica.rollBackOpenTransactions();
                    if (rolledBack > 0) {
                        LOG.log(System.Logger.Level.INFO, () -> "Replication group '" + group + "': term " + term
                                + " began, " + rolledBack + " transactions open before it rolled back (as the new "
                                + "active member's takeover rolls them back)");
                    }
                }
            }
        }

        @Override
        public void applyFile(long index, String origin, String name, ByteBuffer content) throws IOException {
            synchronized (lock) {
                if (state == State.REPLICA) {
                    files.write(name, content);
                } else if (state == State.ACTIVE && !origin.equals(log.id())) {
                    throw tookOver(name + " at " + index, origin);
                }
            }
        }

        /** An entry of another member's reached the active member: its log and its store went apart. */
        private IllegalStateException tookOver(String what, String origin) {
            return new IllegalStateException("Replication member " + log.id() + " took over but was given " + what
                    + " appended by " + origin + ": it stops.");
        }

        @Override
        public boolean writeSnapshot(OutputStream out) throws IOException {
            synchronized (lock) {
                if (state != State.REPLICA) {
                    return false; // the active instance's journal is the queue manager's: see scratch()
                }
                files.writeSnapshot(new DataOutputStream(out));
                replica.writeSnapshot(out);
                return true;
            }
        }

        /** Once it took over, the log builds the active member's snapshots in a scratch journal of its own. */
        @Override
        public Scratch scratch() throws IOException {
            synchronized (lock) {
                if (state == State.REPLICA || state == State.CLOSED) {
                    return null;
                }
            }
            return ScratchJournal.open(config);
        }

        @Override
        public void loadSnapshot(InputStream in) throws IOException {
            synchronized (lock) {
                if (dropsEntries()) {
                    return; // the snapshot is in its log's directory: loaded when it starts again
                }
                requireReplica("load a snapshot");
                files.loadSnapshot(new DataInputStream(in));
                replica.loadSnapshot(in);
            }
        }

        @Override
        public void reset() throws IOException {
            synchronized (lock) {
                if (dropsEntries()) {
                    return;
                }
                requireReplica("empty its journal");
                files.reset();
                replica.reset();
            }
        }

        /** Fenced or closed: nothing reaches the journal any more (it is rebuilt from the log at the next start). */
        private boolean dropsEntries() {
            return state == State.FENCED || state == State.CLOSED;
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
            if (electedAt == 0) {
                electedAt = System.nanoTime();
            }
            elected.complete(null);
        }

        @Override
        public void inactive() {
            fence("it lost the leadership of the replicated log");
        }

        @Override
        public void refused(String reason) {
            refused.complete(reason);
        }

        @Override
        public void stopped(String reason) {
            if (state == State.REPLICA && !elected.isDone()) {
                logStopped.complete("Replication member " + id + " of group '" + group + "' stopped: " + reason
                        + ". Start it again: it applies its log from its latest snapshot and rejoins.");
            } else {
                fence("its replicated log stopped: " + reason); // elected or active: it rejoins (closed: nothing)
            }
        }
    }
}
