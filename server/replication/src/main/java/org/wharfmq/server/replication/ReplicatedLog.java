package org.wharfmq.server.replication;

import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.grpc.GrpcTlsConfig;
import org.apache.ratis.proto.RaftProtos;
import org.apache.ratis.proto.RaftProtos.CommitInfoProto;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.RaftClientAsynchronousProtocol;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.SetConfigurationRequest;
import org.apache.ratis.protocol.TransferLeadershipRequest;
import org.apache.ratis.protocol.exceptions.NotLeaderException;
import org.apache.ratis.protocol.exceptions.RaftException;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftConfiguration;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.util.SizeInBytes;
import org.apache.ratis.util.TimeDuration;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

/**
 * One member's replicated log: the Ratis server of this member, the state machine that applies committed batches to
 * its {@link ReplicaSink}, and the active instance's way in, {@link #append}.
 *
 * <p>A batch is committed once a majority of the three members (the leader counting) has it in its Raft log,
 * forced to disk ({@code FileChannel.force}) before the member answers; then every member applies it, in log
 * order. Only the leader (the active instance) appends; the others refuse with {@link NotActiveException} naming the
 * active one.
 *
 * <p>Threads: {@link #append} is called by one thread at a time (the journal writer) and returns at once; one
 * submitting thread of this member's ({@link BatchSubmitter}) hands the entries to Ratis in that order, so batches
 * are committed and applied in the order appended. The futures complete on Ratis's threads (its state machine
 * updater's, once the entry is applied here).
 */
public final class ReplicatedLog implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(ReplicatedLog.class.getName());

    /** Ratis reports every vote, role change and log segment at INFO: only its warnings matter here. */
    private static final java.util.logging.Logger RATIS_LOG = java.util.logging.Logger.getLogger("org.apache.ratis");

    static {
        if (RATIS_LOG.getLevel() == null) {
            RATIS_LOG.setLevel(java.util.logging.Level.WARNING);
        }
    }

    private final Membership membership;
    private final Member self;
    private final RaftServer server;
    private final RaftGroupId groupId;
    private final JournalStateMachine stateMachine;
    private final ClientId clientId = ClientId.randomId();
    private final AtomicLong callIds = new AtomicLong();
    /** The largest batch this member appends (and takes from the others: {@link ChunkJoiner}). */
    private final int maxBatchBytes;
    /** Hands the journal's batches to Ratis in the order appended, merged while it is busy. */
    private final BatchSubmitter batches;
    /**
     * This member's Raft division, as the protocol that takes a write: a request given to it is appended to the log
     * on the calling thread, and its future completes once the entry is committed and applied here. Ratis's own
     * {@code RaftServer.submitClientRequestAsync} hands every request to a thread pool of its own and waits for it to
     * be appended there: a hand-off each way per entry. Ratis's pool calls the division from many threads at once;
     * one thread calls it here ({@link BatchSubmitter}), so the entries are appended in the order submitted.
     */
    private final RaftClientAsynchronousProtocol division;
    /** This member's Raft division, kept for {@link #isMember}, which each request from another member asks. */
    private final RaftServer.Division raftDivision;
    /** The settings every member shares: this member's ({@link SettingsCheck}). */
    private final GroupSettings settings;
    /** Mutual TLS for this member's reads of another member's settings ({@link #askSettings}). */
    private final Parameters clientTls;
    /** The check of the members this member calls, when its credentials have it; else null. */
    private final MemberCertificateCheck called;
    /**
     * The members last asked for ({@link #setMembers}, {@link #askSettings}): where a member being added is, before
     * the group's configuration names it ({@link #memberAt}).
     */
    private volatile Map<String, String> asked = Map.of();
    /** The members of the group's configuration last looked at ({@link #isMember}); none before the first look. */
    private volatile ConfigurationIds memberIds = new ConfigurationIds(null, Set.of());
    /** While this member does not lead, its channels to the others connect again within a heartbeat interval. */
    private PeerReconnects reconnects;
    /** While this member follows, it elects at once when the silent active member is gone; null when off. */
    private ActiveMemberProbe probe;

    private ReplicatedLog(Membership membership, Member self, RaftServer server, RaftGroupId groupId,
                          JournalStateMachine stateMachine, int maxBatchBytes, GroupSettings settings,
                          MemberTls tls) throws IOException {
        this.membership = membership;
        this.settings = settings;
        this.clientTls = clientParameters(tls);
        this.called = tls.trustManager() instanceof MemberCertificateCheck check ? check : null;
        this.self = self;
        this.server = server;
        this.groupId = groupId;
        this.raftDivision = server.getDivision(groupId);
        this.division = writer(raftDivision);
        this.stateMachine = stateMachine;
        this.maxBatchBytes = maxBatchBytes;
        this.batches = new BatchSubmitter(BatchEntry.header(self.id()),
                entry -> submit(writeRequest(entry)).thenApply(this::committed), this::submitPieces,
                () -> new NotActiveException("Replication member " + self.id() + " of group '" + membership.group()
                        + "' is closed: the batch was not appended.", null));
    }

    /**
     * Starts member {@code selfId} of {@code membership}: its replication listener on its address, its Raft log in
     * its data directory (made on first start, recovered afterwards), every connection from and to the others
     * over mutual TLS with {@code tls}. The members elect a leader once two of them run; {@code listener} hears when
     * this member becomes and stops being the active one. Its {@code settings} must be every member's: compared at
     * once with those of the members that run ({@link SettingsCheck}), and the start refused, the member stopped,
     * when one differs; and at each election with the elected member's (members started together), {@code listener}
     * hearing of a refusal ({@link ActiveListener#refused}). A batch is at most
     * {@link ReplicationConfiguration#maxRecordBytes} of their {@code maxMessageLength}.
     *
     * @throws IllegalArgumentException when a running member's settings differ, naming both values and the fix
     */
    public static ReplicatedLog start(Membership membership, String selfId, MemberTls tls, ReplicaSink sink,
                                      ActiveListener listener, ReplicationConfiguration.Timings timings,
                                      GroupSettings settings) throws IOException {
        return start(membership, selfId, tls, sink, listener, timings, settings,
                ReplicationConfiguration.SETTINGS_CHECK_TIMEOUT);
    }

    /**
     * {@link #start(Membership, String, MemberTls, ReplicaSink, ActiveListener, ReplicationConfiguration.Timings,
     * GroupSettings)}, waiting at most {@code settingsCheck} for the running members' settings (tests: zero, none
     * asked, as when none is up yet; or long enough to be sure of the answers on a loaded machine).
     */
    static ReplicatedLog start(Membership membership, String selfId, MemberTls tls, ReplicaSink sink,
                               ActiveListener listener, ReplicationConfiguration.Timings timings,
                               GroupSettings settings, java.time.Duration settingsCheck) throws IOException {
        int maxBatchBytes = ReplicationConfiguration.maxRecordBytes(settings.maxMessageLength());
        Member self = membership.member(selfId);
        RaftGroupId groupId = RaftGroupId.valueOf(membership.groupUuid());
        List<RaftPeer> peers = membership.members().stream()
                .map(m -> RaftPeer.newBuilder().setId(m.id()).setAddress(m.address()).build())
                .toList();
        RaftGroup group = RaftGroup.valueOf(groupId, peers);
        Path directory = self.replicationDirectory();
        boolean existing = Files.isDirectory(directory.resolve(groupId.getUuid().toString()));
        Files.createDirectories(directory);

        String limit = "maxMessageLength " + settings.maxMessageLength() + " and " + ReplicationConfiguration.RECORD_ROOM
                + " bytes of record";
        // once elected, the member appends its settings, which every other member compares as it applies them
        CompletableFuture<ReplicatedLog> built = new CompletableFuture<>();
        JournalStateMachine stateMachine = new JournalStateMachine(membership.group(), sink, listener,
                () -> new ChunkJoiner(self.id(), maxBatchBytes, limit), settings, timings.snapshotEveryLogBytes(),
                () -> built.thenAccept(started -> started.appendSettings(settings)));
        MemberCertificateCheck called = tls.trustManager() instanceof MemberCertificateCheck check ? check : null;
        if (called != null) {
            called.membersAt(address -> memberAt(listed(membership), address));
        }
        MemberIdentityCheck identities = new MemberIdentityCheck(membership.group(),
                membership.members().stream().map(Member::id).collect(Collectors.toSet()),
                ReplicationConfiguration.REFUSAL_WARNING_EVERY);
        RaftServer server = RaftServer.newBuilder()
                .setServerId(RaftPeerId.valueOf(self.id()))
                .setGroup(group)
                .setStateMachine(stateMachine)
                .setProperties(properties(self, directory, timings))
                .setParameters(serverParameters(tls, identities))
                .setOption(existing ? RaftStorage.StartupOption.RECOVER : RaftStorage.StartupOption.FORMAT)
                .build();
        try {
            server.start();
        } catch (IOException | RuntimeException e) {
            server.close(); // nothing left listening or holding the log directory
            throw e;
        }
        ReplicatedLog log;
        try {
            stateMachine.stopOnClose(LogCacheEviction.of(server.getDivision(groupId).getRaftLog()));
            log = new ReplicatedLog(membership, self, server, groupId, stateMachine, maxBatchBytes, settings, tls);
            long heartbeat = ReplicationConfiguration.heartbeatIntervalMillis(timings.electionTimeoutMin().toMillis());
            log.reconnects = PeerReconnects.start(server, log::division, self.id(), heartbeat);
            log.probe = timings.probeActiveMember()
                    ? ActiveMemberProbe.start(log::division, self.id(), membership.group(), heartbeat) : null;
        } catch (IOException | RuntimeException e) {
            server.close();
            throw e;
        }
        ReplicatedLog started = log;
        identities.groupMembers(started::isMember);
        if (called != null) {
            called.membersAt(started::memberAt);
        }
        built.complete(log);
        LOG.log(System.Logger.Level.INFO, () -> "Replication member " + self.id() + " of group '" + membership.group()
                + "' listens on " + self.address() + " (" + (existing ? "log recovered" : "new log") + " in "
                + directory + ")");
        Map<String, String> listed = listed(membership);
        Map<String, String> logged = log.members();
        List<String> differ = settingsCheck.isZero() ? List.of() : SettingsCheck.compare(membership.group(), groupId,
                self.id(), settings, logged.isEmpty() ? listed : logged, log.clientTls, settingsCheck);
        if (!differ.isEmpty()) {
            log.close();
            throw new IllegalArgumentException(String.join(" ", differ));
        }
        if (existing && !logged.isEmpty() && !logged.equals(listed)) {
            // the log's configuration is the group's (a member added or removed at run time): the block only founds one
            LOG.log(System.Logger.Level.WARNING, () -> "Replication member " + self.id() + " of group '"
                    + membership.group() + "': the group's members are " + logged + " (its replicated log), not the "
                    + listed + " of the replication block; the log's are used. Make replication.members the same on "
                    + "every member (docs/resilience.md, \"Adding, removing and replacing a member\").");
        }
        return log;
    }

    /**
     * The division's write protocol: Ratis's division implements it (RaftServerImpl), its {@code Division} interface
     * does not say so. Refused at start, naming the cause, should a Ratis version change that.
     */
    private static RaftClientAsynchronousProtocol writer(RaftServer.Division division) {
        if (!(division instanceof RaftClientAsynchronousProtocol writer)) {
            throw new IllegalStateException("This Ratis version's Raft division (" + division.getClass().getName()
                    + ") takes no write requests directly; the replication needs Ratis 3.2.1's.");
        }
        return writer;
    }

    /**
     * Mutual TLS on the server, client and admin sides alike: no replication connection is plain; and each incoming
     * connection's requests bound to the member its certificate names ({@code identities}).
     */
    private static Parameters serverParameters(MemberTls tls, MemberIdentityCheck identities) {
        Parameters parameters = clientParameters(tls);
        GrpcConfigKeys.Server.setServicesCustomizer(parameters, (server, services) -> server.intercept(identities));
        return parameters;
    }

    /** Mutual TLS for this member's calls as a client of another's (a read of its settings). */
    private static Parameters clientParameters(MemberTls tls) {
        Parameters parameters = new Parameters();
        GrpcConfigKeys.TLS.setConf(parameters, new GrpcTlsConfig(tls.keyManager(), tls.trustManager(), true));
        return parameters;
    }

    /**
     * Ratis's settings. Its limits stay Ratis's defaults (an entry of 4 MiB at most, {@link
     * ReplicationConfiguration#MAX_BATCH_BYTES}; 64 MiB of pending appends; an append answered within 3 s), whatever
     * {@code maxMessageLength}: a larger record travels in pieces. Each replica gets one append at a time, carrying
     * every entry ready ({@link ReplicationConfiguration#APPENDS_IN_FLIGHT}), and nothing else meanwhile
     * ({@link OneAppendRpc}); no log metadata entries ({@link ReplicationConfiguration#LOG_METADATA}).
     */
    private static RaftProperties properties(Member self, Path directory, ReplicationConfiguration.Timings timings) {
        RaftProperties p = new RaftProperties();
        RaftConfigKeys.Rpc.setType(p, new OneAppendRpc());
        GrpcConfigKeys.Server.setHost(p, self.host());
        GrpcConfigKeys.Server.setPort(p, self.port());
        RaftServerConfigKeys.setStorageDir(p, List.of(directory.toFile()));
        RaftServerConfigKeys.Rpc.setTimeoutMin(p, millis(timings.electionTimeoutMin().toMillis()));
        RaftServerConfigKeys.Rpc.setTimeoutMax(p, millis(timings.electionTimeoutMax().toMillis()));
        // a member that was cut off or paused asks whether it could win before it raises the term: it disturbs no
        // active member the others still hear from (Ratis's default, held here: docs/resilience.md, "The election
        // timeout")
        RaftServerConfigKeys.LeaderElection.setPreVote(p, true);
        // Ratis closes its whole server after a pause of the JVM longer than this (60 s by default): a paused member
        // would then find its log stopped under it (as a replica: a member that neither serves nor follows). The
        // member handles a pause itself: it loses the leadership (its successor's first call, or its own check) and
        // rejoins as a replica; a replica simply catches up
        RaftServerConfigKeys.setCloseThreshold(p, millis(ReplicationConfiguration.RATIS_CLOSE_AFTER_PAUSE.toMillis()));
        // snapshots by the bytes of log applied, the state machine's (LogSnapshots), not Ratis's count of entries;
        // after each the log is purged up to it (a member further behind is sent the snapshot)
        RaftServerConfigKeys.Snapshot.setAutoTriggerEnabled(p, false);
        RaftServerConfigKeys.Snapshot.setRetentionFileNum(p, ReplicationConfiguration.SNAPSHOTS_KEPT);
        RaftServerConfigKeys.Log.setPurgeUptoSnapshotIndex(p, true);
        RaftServerConfigKeys.Log.setPurgeGap(p, 1);
        RaftServerConfigKeys.Log.setSegmentSizeMax(p, SizeInBytes.valueOf(timings.logSegmentBytes()));
        RaftServerConfigKeys.Log.setSegmentCacheNumMax(p, ReplicationConfiguration.LOG_CACHE_SEGMENTS);
        RaftServerConfigKeys.Log.setSegmentCacheSizeMax(p, SizeInBytes.valueOf(ReplicationConfiguration.LOG_CACHE_BYTES));
        GrpcConfigKeys.Server.setLeaderOutstandingAppendsMax(p, ReplicationConfiguration.APPENDS_IN_FLIGHT);
        RaftServerConfigKeys.Log.setLogMetadataEnabled(p, ReplicationConfiguration.LOG_METADATA);
        return p;
    }

    private static TimeDuration millis(long ms) {
        return TimeDuration.valueOf(ms, TimeUnit.MILLISECONDS);
    }

    /**
     * Appends one group-commit batch of journal records: in one Raft log entry with the batches appended while the
     * previous entry was handed to Ratis ({@link BatchSubmitter}), or, above {@link ReplicationConfiguration#MAX_BATCH_BYTES}
     * (a large message's record), alone in consecutive entries of pieces of it ({@link #submitPieces}). The future
     * completes with the (last) entry's log index once a majority has it on disk and this member has applied it, or
     * fails with {@link NotActiveException} when this member is not, or stops being, the active one, or at once with
     * an {@link IllegalArgumentException} when it holds more than the largest batch
     * ({@link ReplicationConfiguration#maxRecordBytes}). {@code records} is not copied: its bytes must not change
     * until the future completes.
     */
    public CompletableFuture<Long> append(ByteBuffer records) {
        if (records.remaining() > maxBatchBytes) {
            return CompletableFuture.failedFuture(new IllegalArgumentException("A batch of " + records.remaining()
                    + " bytes cannot be replicated: the limit is " + maxBatchBytes + " bytes (a record of "
                    + "maxMessageLength, ReplicationConfiguration.maxRecordBytes)."));
        }
        return batches.submit(records);
    }

    /**
     * On the submitting thread: each piece of {@code batch} handed to Ratis once the piece {@link
     * ReplicationConfiguration#PIECES_IN_FLIGHT} before it is committed, so a record of any size stays within Ratis's
     * limits on pending appends. The thread waits meanwhile: the journal's next batches come after the record anyway.
     */
    private CompletableFuture<Long> submitPieces(ByteBuffer batch) {
        int total = batch.remaining();
        int size = ReplicationConfiguration.MAX_BATCH_BYTES;
        List<CompletableFuture<Long>> pieces = new java.util.ArrayList<>(total / size + 1);
        for (int offset = 0; offset < total; offset += size) {
            if (pieces.size() >= ReplicationConfiguration.PIECES_IN_FLIGHT) {
                CompletableFuture<Long> oldest = pieces.get(pieces.size() - ReplicationConfiguration.PIECES_IN_FLIGHT);
                try {
                    oldest.join();
                } catch (RuntimeException failed) {
                    break; // the batch fails with it (below); the members drop the pieces appended
                }
            }
            ByteBuffer piece = batch.slice(offset, Math.min(size, total - offset));
            pieces.add(submit(writeRequest(BatchEntry.chunk(self.id(), total, offset, piece)))
                    .thenApply(this::committed));
        }
        CompletableFuture<Long> last = pieces.get(pieces.size() - 1);
        return CompletableFuture.allOf(pieces.toArray(CompletableFuture[]::new)).thenCompose(all -> last);
    }

    /**
     * Appends this member's settings once it is elected (off Ratis's thread that tells it: an append may wait for
     * room in the log). A member that cannot append them is not the leader any more: the next one appends its own.
     */
    private void appendSettings(GroupSettings settings) {
        RaftClientRequest request = writeRequest(BatchEntry.settings(self.id(), settings));
        CompletableFuture.supplyAsync(() -> submit(request)).thenCompose(reply -> reply).thenApply(this::committed)
                .whenComplete((index, failure) -> {
                    if (failure != null) {
                        LOG.log(System.Logger.Level.INFO, () -> "Replication member " + self.id() + " could not "
                                + "append its settings once elected: " + failure.getMessage());
                    }
                });
    }

    /** A write request carrying {@code entry}: one log entry. */
    private RaftClientRequest writeRequest(ByteString entry) {
        return RaftClientRequest.newBuilder()
                .setClientId(clientId)
                .setServerId(server.getId())
                .setGroupId(groupId)
                .setCallId(callIds.incrementAndGet())
                .setMessage(Message.valueOf(entry))
                .setType(RaftClientRequest.writeRequestType())
                .build();
    }

    /**
     * Appends the whole new version of a file the queue manager keeps beside its journal ({@code queues.def}): one
     * entry of its own, submitted from the calling thread (an admin command's; not the journal writer's path). The
     * future completes as {@link #append}'s does.
     */
    public CompletableFuture<Long> appendFile(String name, byte[] content) {
        if (content.length > ReplicationConfiguration.MAX_BATCH_BYTES) {
            return CompletableFuture.failedFuture(new IllegalArgumentException("File " + name + " is "
                    + content.length + " bytes, more than one replicated log entry carries ("
                    + ReplicationConfiguration.MAX_BATCH_BYTES + " bytes)."));
        }
        return submit(writeRequest(BatchEntry.file(self.id(), name, content))).thenApply(this::committed);
    }

    /**
     * Hands the leadership to member {@code to} (Ratis's transfer: this leader brings it up to date, tells it to start
     * an election at once, and steps down once it wins). Completes when {@code to} leads, or fails (it could not
     * catch up within {@code timeout}, or this member does not lead).
     */
    public CompletableFuture<Void> transferLeadership(String to, java.time.Duration timeout) {
        requireMember(to);
        TransferLeadershipRequest request = new TransferLeadershipRequest(clientId, server.getId(), groupId,
                callIds.incrementAndGet(), RaftPeerId.valueOf(to), timeout.toMillis());
        return succeeded(() -> server.transferLeadershipAsync(request)).exceptionally(failure -> {
            Throwable cause = failure instanceof CompletionException ? failure.getCause() : failure;
            throw new IllegalStateException("Replication member " + self.id() + " could not hand the leadership "
                    + "to " + to + ": " + cause.getMessage(), cause);
        });
    }

    /**
     * Makes the group's members {@code members} (id to host:port), Ratis's configuration change: the leader first
     * brings every new member up to date (from its log, or by sending it the latest snapshot), then commits the old
     * and new members together and then the new alone (Raft's joint consensus), so a majority of both agrees at every
     * step. Completes when the new members are committed; fails when this member does not lead, a change is under way,
     * or a new member did not catch up in time.
     */
    public CompletableFuture<Void> setMembers(Map<String, String> members) {
        asked = Map.copyOf(members);
        List<RaftPeer> peers = members.entrySet().stream()
                .map(m -> RaftPeer.newBuilder().setId(m.getKey()).setAddress(m.getValue()).build())
                .toList();
        SetConfigurationRequest request = new SetConfigurationRequest(clientId, server.getId(), groupId,
                callIds.incrementAndGet(), peers);
        return succeeded(() -> server.setConfigurationAsync(request));
    }

    /** One of Ratis's admin requests (an IOException of its own when it cannot be sent). */
    @FunctionalInterface
    private interface AdminRequest {
        CompletableFuture<RaftClientReply> send() throws IOException;
    }

    /** Completes when {@code request}'s answer is a success; else fails with Ratis's exception, which says why. */
    private static CompletableFuture<Void> succeeded(AdminRequest request) {
        CompletableFuture<RaftClientReply> reply;
        try {
            reply = request.send();
        } catch (IOException e) {
            return CompletableFuture.failedFuture(e);
        }
        return reply.thenAccept(r -> {
            if (!r.isSuccess()) {
                throw new CompletionException(r.getException() != null ? r.getException()
                        : new IllegalStateException("refused"));
            }
        });
    }

    /**
     * The group's members as this member's Raft configuration has them (the latest configuration entry in its log):
     * id to host:port, in id order; during a change, the new members.
     */
    public Map<String, String> members() {
        Map<String, String> members = new TreeMap<>();
        RaftServer.Division division = division();
        if (division != null) {
            for (RaftPeer peer : division.getRaftConf().getCurrentPeers()) {
                members.put(peer.getId().toString(), peer.getAddress());
            }
        }
        return members;
    }

    /**
     * The id of the member at {@code address} ({@code host:port}) in the group's configuration, the members being
     * changed included, else among the members last asked for (a member being added, before the configuration names
     * it: Ratis's staging); null when none is there.
     */
    String memberAt(String address) {
        RaftServer.Division division = division();
        if (division == null) {
            return null;
        }
        for (RaftPeer peer : division.getRaftConf().getCurrentPeers()) {
            if (address.equals(peer.getAddress())) {
                return peer.getId().toString();
            }
        }
        for (RaftPeer peer : division.getRaftConf().getPreviousPeers()) {
            if (address.equals(peer.getAddress())) {
                return peer.getId().toString();
            }
        }
        return memberAt(asked, address);
    }

    /**
     * Whether {@code id} is a member of the group's configuration, the members being changed included. Asked for each
     * request another member sends ({@link MemberIdentityCheck}): the ids are looked up in a set made once per
     * configuration (Ratis keeps one object per configuration), so a look allocates nothing.
     */
    boolean isMember(String id) {
        RaftConfiguration configuration = raftDivision.getRaftConf();
        ConfigurationIds known = memberIds;
        if (known.configuration() != configuration) {
            known = ConfigurationIds.of(configuration);
            memberIds = known;
        }
        return known.ids().contains(id);
    }

    /** The ids of a configuration's members, the members being changed included: {@link #isMember}'s. */
    private record ConfigurationIds(RaftConfiguration configuration, Set<String> ids) {
        static ConfigurationIds of(RaftConfiguration configuration) {
            Set<String> ids = new java.util.HashSet<>();
            // by name: RaftPeerId.valueOf keeps every id it is given, and the id here is a peer's certificate's CN
            configuration.getCurrentPeers().forEach(p -> ids.add(p.getId().toString()));
            configuration.getPreviousPeers().forEach(p -> ids.add(p.getId().toString()));
            return new ConfigurationIds(configuration, Set.copyOf(ids));
        }
    }

    /**
     * Asks member {@code id}, about to be added at {@code address} (the group to be {@code wanted}), for its settings,
     * the call bound to it: from now on a member called at {@code address} must show a certificate naming {@code id}
     * ({@link #memberAt}), and a refusal of it is {@link #refusedCall}'s.
     */
    SettingsCheck.Answer askSettings(String id, String address, Map<String, String> wanted) {
        asked = Map.copyOf(wanted);
        if (called != null) {
            called.forget(address);
        }
        return SettingsCheck.ask(groupId, Map.of(id, address), clientTls,
                ReplicationConfiguration.SETTINGS_CHECK_TIMEOUT).get(id);
    }

    /** Why the member called at {@code address} was refused last (it showed another's certificate), or null. */
    String refusedCall(String address) {
        return called == null ? null : called.refusedCall(address);
    }

    /** This member's settings, which every member shares. */
    GroupSettings settings() {
        return settings;
    }

    /** The id of the member at {@code address} of {@code members} (id to address); null when none is there. */
    private static String memberAt(Map<String, String> members, String address) {
        for (Map.Entry<String, String> member : members.entrySet()) {
            if (member.getValue().equals(address)) {
                return member.getKey();
            }
        }
        return null;
    }

    private static Map<String, String> listed(Membership membership) {
        Map<String, String> listed = new TreeMap<>();
        membership.members().forEach(m -> listed.put(m.id(), m.address()));
        return listed;
    }

    /** Whether a change of the members is under way: the old and the new members both count until it is done. */
    public boolean changingMembers() {
        RaftServer.Division division = division();
        return division != null && !division.getRaftConf().getPreviousPeers().isEmpty();
    }

    /** Refused, naming the members, when {@code id} is not one of the group's (its latest configuration's). */
    String requireMember(String id) {
        Map<String, String> members = members();
        String address = members.get(id);
        if (address == null) {
            throw new IllegalArgumentException("Replication group '" + membership.group() + "' has no member '" + id
                    + "'; its members are " + members.keySet() + ".");
        }
        return address;
    }

    /**
     * How long ago, in milliseconds, this member last heard from each other member it tracks: on the active member,
     * each other member's last answer; on a replica, the active member's last call. Empty during an election.
     */
    public Map<String, Long> lastContactMillis() {
        DivisionInfo info = info();
        Map<String, Long> contact = new TreeMap<>();
        if (info == null) {
            return contact;
        }
        RaftProtos.RoleInfoProto role = info.getRoleInfoProto();
        if (role.hasLeaderInfo()) {
            for (RaftProtos.ServerRpcProto follower : role.getLeaderInfo().getFollowerInfoList()) {
                contact.put(RaftPeerId.valueOf(follower.getId().getId()).toString(),
                        follower.getLastRpcElapsedTimeMs());
            }
        } else if (role.hasFollowerInfo() && role.getFollowerInfo().hasLeaderInfo()
                && !role.getFollowerInfo().getLeaderInfo().getId().getId().isEmpty()) {
            RaftProtos.ServerRpcProto leader = role.getFollowerInfo().getLeaderInfo();
            contact.put(RaftPeerId.valueOf(leader.getId().getId()).toString(), leader.getLastRpcElapsedTimeMs());
        }
        return contact;
    }

    /**
     * Of {@code members}, those this member hears from: itself, and each other member whose last answer (on the active
     * member) or call (on a replica) is at most {@code within} old ({@link #lastContactMillis}). With the election
     * timeout's maximum as {@code within} this is Raft's own measure: a leader steps down past it, a replica starts an
     * election. The others are down, or cut off from this member.
     */
    public Set<String> answering(Collection<String> members, Duration within) {
        Map<String, Long> contact = lastContactMillis();
        Set<String> answer = new TreeSet<>();
        for (String member : members) {
            Long millis = contact.get(member);
            if (member.equals(self.id()) || (millis != null && millis <= within.toMillis())) {
                answer.add(member);
            }
        }
        return answer;
    }

    /**
     * Appends {@code request}'s entry to this member's log on the calling thread (Ratis's leader adds it to its log's
     * write queue and wakes its senders; it waits only while that queue is full or a leadership change holds the
     * division's lock: never the journal writer, {@link BatchSubmitter}). Never throws: a refusal (not the leader,
     * closed, too many appends pending) completes the future.
     */
    private CompletableFuture<RaftClientReply> submit(RaftClientRequest request) {
        try {
            return division.submitClientRequestAsync(request);
        } catch (IOException | RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private long committed(RaftClientReply reply) {
        if (reply.isSuccess()) {
            return reply.getLogIndex();
        }
        NotLeaderException notLeader = reply.getNotLeaderException();
        if (notLeader != null) {
            RaftPeer suggested = notLeader.getSuggestedLeader();
            throw notActive(suggested == null ? null : suggested.getId().toString());
        }
        RaftException failure = reply.getException();
        if (reply.getLeaderNotReadyException() != null || reply.getLeaderSteppingDownException() != null
                || reply.getAlreadyClosedException() != null) {
            throw notActive(null);
        }
        throw new IllegalStateException("Replication member " + self.id() + " could not append a batch: " + failure,
                failure);
    }

    private NotActiveException notActive(String active) {
        String where = active == null ? "no active instance is known yet (an election is under way)"
                : "the active instance is " + active + " (" + members().getOrDefault(active, "address unknown") + ")";
        return new NotActiveException("Replication member " + self.id() + " of group '" + membership.group()
                + "' is not the active instance: " + where + ". Only the active instance takes work; a batch "
                + "refused here was not confirmed and is in the log on every member or on none.", active);
    }

    /** This member's id. */
    public String id() {
        return self.id();
    }

    /** Whether this member is the leader and has committed an entry of its term, so appends are taken. */
    public boolean isActive() {
        DivisionInfo info = info();
        return info != null && info.isLeader() && info.isLeaderReady();
    }

    /** Whether this member's Raft role is LEADER (whether or not it committed an entry of its term yet). */
    public boolean leads() {
        DivisionInfo info = info();
        return info != null && info.isAlive() && info.isLeader();
    }

    /** How long this member has had its Raft role (LEADER: since its election), in milliseconds; -1 when closed. */
    public long roleMillis() {
        DivisionInfo info = info();
        return info == null ? -1 : info.getRoleInfoProto().getRoleElapsedTimeMs();
    }

    /** The id of the member this one knows as leader, or null during an election. */
    public String leader() {
        DivisionInfo info = info();
        RaftPeerId leader = info == null ? null : info.getLeaderId();
        return leader == null ? null : leader.toString();
    }

    /** This member's role: LEADER, FOLLOWER or CANDIDATE. */
    public RaftPeerRole role() {
        DivisionInfo info = info();
        return info == null ? null : info.getCurrentRole();
    }

    /** The index of the last entry applied here (batches and Raft's own entries, such as each term's first). */
    public long appliedIndex() {
        DivisionInfo info = info();
        return info == null ? -1 : info.getLastAppliedIndex();
    }

    /** Batches applied to the sink since this member started (a batch in pieces counting once, at its last). */
    public long batchesApplied() {
        return stateMachine.batchesApplied();
    }

    /** The bytes of a batch in pieces this member has taken so far and not applied yet (0 when none). */
    public int joiningBytes() {
        return stateMachine.joiner().pendingBytes();
    }

    /** Batches in pieces this member dropped unfinished (their appender lost the leadership or failed). */
    public long batchesDropped() {
        return stateMachine.joiner().dropped();
    }

    /** Snapshots this member built from its log while active (its journal is the live queue manager's). */
    public long snapshotsBuilt() {
        return stateMachine.snapshotsBuilt();
    }

    /** Snapshots the active member sent this member and it installed (it was behind that log) since it started. */
    public long snapshotsInstalled() {
        return stateMachine.snapshotsInstalled();
    }

    /** The index of this member's latest snapshot (taken, built from its log, or installed), or -1 when none. */
    public long snapshotIndex() {
        return stateMachine.snapshotIndex();
    }

    /** The first index this member's log still holds: above 0 once a snapshot let it purge the entries before. */
    public long logStartIndex() {
        try {
            return server.getDivision(groupId).getRaftLog().getStartIndex();
        } catch (IOException e) {
            return -1;
        }
    }

    /** This member's view of the replication: its role, the active member, indexes, and how far each member is. */
    public ReplicationStatus status() {
        RaftServer.Division division;
        try {
            division = server.getDivision(groupId);
        } catch (IOException e) {
            return new ReplicationStatus(self.id(), "CLOSED", null, -1, -1, -1, Map.of());
        }
        DivisionInfo info = division.getInfo();
        Map<String, Long> committed = new HashMap<>();
        for (CommitInfoProto c : division.getCommitInfos()) {
            committed.put(RaftPeerId.valueOf(c.getServer().getId()).toString(), c.getCommitIndex());
        }
        RaftPeerId leader = info.getLeaderId();
        return new ReplicationStatus(self.id(), info.isAlive() ? String.valueOf(info.getCurrentRole()) : "CLOSED",
                leader == null ? null : leader.toString(), info.getCurrentTerm(),
                division.getRaftLog().getLastCommittedIndex(), info.getLastAppliedIndex(), committed);
    }

    /**
     * On the active member, the last log index each other member is known to hold (its match index, from its
     * answers to the appends); empty on any other.
     */
    public Map<String, Long> followerLogIndexes() {
        DivisionInfo info = info();
        if (info == null || !info.isLeader()) {
            return Map.of();
        }
        RaftProtos.RoleInfoProto role = info.getRoleInfoProto();
        long[] match = info.getFollowerMatchIndices();
        if (!role.hasLeaderInfo() || match == null) {
            return Map.of();
        }
        List<RaftProtos.ServerRpcProto> followers = role.getLeaderInfo().getFollowerInfoList();
        Map<String, Long> indexes = new HashMap<>();
        // both lists come from the leader's log appenders, in one order
        for (int i = 0; i < Math.min(match.length, followers.size()); i++) {
            indexes.put(RaftPeerId.valueOf(followers.get(i).getId().getId()).toString(), match[i]);
        }
        return indexes;
    }

    private DivisionInfo info() {
        RaftServer.Division division = division();
        return division == null ? null : division.getInfo();
    }

    /**
     * The elections this member had started at once, by itself or another replica, because the active member was gone
     * ({@link ActiveMemberProbe}).
     */
    int electionsAfterProbe() {
        return probe == null ? 0 : probe.elections();
    }

    private RaftServer.Division division() {
        try {
            return server.getDivision(groupId);
        } catch (IOException e) {
            return null;
        }
    }

    /**
     * Stops this member: its listener, its log. The others go on if two of the three still run. After a failed entry
     * stopped it (fail-stop: Ratis then closes the member on its updater thread), waits for that close first, which a
     * close of the server begun meanwhile would hang, and returns once the log directory is released, so that the
     * member may be started again at once.
     */
    @Override
    public void close() throws IOException {
        try {
            if (reconnects != null) {
                reconnects.close();
            }
            if (probe != null) {
                probe.close();
            }
            stateMachine.awaitFailStop(ReplicationConfiguration.FAIL_STOP_CLOSE_WAIT);
            server.close();
            stateMachine.awaitFailStop(ReplicationConfiguration.FAIL_STOP_CLOSE_WAIT);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            batches.close();
        }
    }
}
