package org.wharfmq.server.replication;

import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.grpc.GrpcTlsConfig;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.proto.RaftProtos.AppendEntriesReplyProto;
import org.apache.ratis.proto.RaftProtos.AppendEntriesRequestProto;
import org.apache.ratis.proto.RaftProtos.RaftGroupIdProto;
import org.apache.ratis.proto.RaftProtos.RaftRpcRequestProto;
import org.apache.ratis.proto.RaftProtos.RequestVoteRequestProto;
import org.apache.ratis.proto.grpc.RaftServerProtocolServiceGrpc;
import org.apache.ratis.thirdparty.io.grpc.ManagedChannel;
import org.apache.ratis.thirdparty.io.grpc.Status;
import org.apache.ratis.thirdparty.io.grpc.StatusRuntimeException;
import org.apache.ratis.thirdparty.io.grpc.netty.GrpcSslContexts;
import org.apache.ratis.thirdparty.io.grpc.netty.NettyChannelBuilder;
import org.apache.ratis.thirdparty.io.grpc.stub.StreamObserver;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.rpc.SupportedRpcType;
import org.apache.ratis.util.TimeDuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.server.FreePorts;
import org.wharfmq.server.LogCapture;
import org.wharfmq.server.security.AuditLog;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A member's certificate is bound to its member id (its subject's CN): a process started as member a with member
 * b's key and certificate (both of the group's CA, which is all the TLS handshake asks) is refused by the other
 * members both ways, and audited, naming the member it spoke or was called as, the certificate's name, why and the
 * fix. Its votes (it speaks as a to b and c) end with PERMISSION_DENIED; the active member's call to a's address is
 * refused in the handshake, so it gets no entry. Real members (Ratis over gRPC and mutual TLS) in this JVM. Before,
 * any certificate of the group's CA could vote, append or be appended to as any member.
 */
class MemberIdentityTest {

    @Test
    void aProcessWithAnotherMembersCertificateCannotSpeakOrBeCalledAsThatMember(@TempDir Path dir) throws Exception {
        try (LogCapture audit = LogCapture.of(AuditLog.NAME); Trio trio = new Trio(dir,
                ReplicationConfiguration.Timings.DEFAULT)) {
            trio.awaitActive();
            trio.stop(0);
            trio.wipe(0);
            Trio.awaitFree(trio.membership.member("a").port());
            try (ReplicatedLog impostor = ReplicatedLog.start(trio.membership, "a", Trio.memberTls(trio.ca, "b"),
                    new RecordingSink(), new Trio.Activity(), trio.timings, Trio.SETTINGS)) {
                String a = trio.membership.member("a").address();
                String called = "REFUSED replication member at " + a + " called as member 'a': its certificate "
                        + "'O=Wharf Test,CN=b' names member 'b' (its CN): a member's certificate names its member id as"
                        + " its subject's CN. Give member 'a' a certificate of the group's CA with CN=a";
                Trio.await("the active member's refusal of the impostor it called",
                        () -> audit.messages().stream().anyMatch(l -> l.startsWith(called)));
                Trio.await("a member's refusal of the impostor's requests", () -> audit.messages().stream()
                        .anyMatch(l -> l.startsWith("REFUSED replication member connection from ")
                                && l.contains(" of group 'TEST': it spoke as member 'a', but its certificate "
                                + "'O=Wharf Test,CN=b' names member 'b' (its CN): a member's certificate names its "
                                + "member id as its subject's CN, and it speaks as that member only. Give member 'a' a "
                                + "certificate of the group's CA with CN=a")));
                List<String> otherMembers = audit.messages().stream().filter(l -> l.startsWith("REFUSED")
                        && !l.contains("member 'a'")).toList();
                assertEquals(List.of(), otherMembers, "b and c speak and are called as themselves");
            }
        }
    }

    /**
     * A write sent to the members over the network, by a client with a certificate of the group's CA, is refused by
     * each, the active member included, and appends nothing: the group's writes are the active member's own. Before,
     * Ratis's leader appended it.
     */
    @Test
    void aWriteFromOutsideIsRefusedByEveryMember(@TempDir Path dir) throws Exception {
        try (Trio trio = new Trio(dir, ReplicationConfiguration.Timings.DEFAULT);
             RaftClient client = client(trio, "x")) {
            trio.awaitActive();
            for (RaftPeer member : peers(trio)) {
                String causes = refusal(() -> send(client, trio, member, Message.valueOf("not a batch"),
                        RaftClientRequest.writeRequestType()), "member " + member.getId());
                assertTrue(causes.contains("a request of Ratis's client protocol (WRITE) is not taken over the "
                        + "network: a member takes only another"), "member " + member.getId() + ": " + causes);
            }
        }
    }

    /**
     * A read of the group's settings (a starting member's check) is answered to a member's certificate only: one of
     * the group's CA naming no member is refused by every member with PERMISSION_DENIED, naming the certificate, why
     * and the fix, and audited; member c's is answered. Before, every certificate of the CA was answered.
     */
    @Test
    void theGroupsSettingsAreReadOnlyByACertificateNamingAMember(@TempDir Path dir) throws Exception {
        try (LogCapture audit = LogCapture.of(AuditLog.NAME);
             Trio trio = new Trio(dir, ReplicationConfiguration.Timings.DEFAULT);
             RaftClient outsider = client(trio, "x"); RaftClient memberC = client(trio, "c")) {
            trio.awaitActive();
            String why = "(certificate 'O=Wharf Test,CN=x'): a read of the group's settings is answered only to a "
                    + "member of the group, and the certificate names 'x' (its CN), which is no member of the group";
            for (RaftPeer member : peers(trio)) {
                String causes = refusal(() -> send(outsider, trio, member, Message.EMPTY,
                        RaftClientRequest.staleReadRequestType(-1)), "member " + member.getId());
                assertTrue(causes.contains("PERMISSION_DENIED") && causes.contains(why)
                        && causes.contains("give a member a certificate of the group's CA with CN=<its id>"),
                        "member " + member.getId() + ": " + causes);
                RaftClientReply answered = send(memberC, trio, member, Message.EMPTY,
                        RaftClientRequest.staleReadRequestType(-1));
                assertEquals(Trio.SETTINGS, GroupSettings.decode(answered.getMessage().getContent()),
                        "member " + member.getId() + "'s settings, read by c");
            }
            // each member audits after it answers: awaited
            Trio.await("an audit line on each member", () -> audit.messages().stream().filter(l -> l.startsWith(
                    "REFUSED replication member connection from ") && l.contains(why)).count() == 3);
        }
    }

    /**
     * A member being added is bound to its id from the moment {@code define member} calls it: a process at its
     * address whose certificate (of the group's CA) names another is refused by the active member in the handshake,
     * and the command fails naming the id, the certificate's CN and the fix, with an audit line; the members stay.
     * Its settings are compared there too (the members do not answer its own check at its start: they do not know it
     * yet): a member started with another maxMessageLength starts, and is refused when it is defined. Before, the
     * process was checked against the CA alone while the active member brought it up to date, and joined.
     */
    @Test
    void aMemberBeingAddedMustShowACertificateNamingItsIdAndTheGroupsSettings(@TempDir Path dir) throws Exception {
        try (LogCapture audit = LogCapture.of(AuditLog.NAME);
             Trio trio = new Trio(dir, ReplicationConfiguration.Timings.DEFAULT)) {
            int active = trio.awaitActive();
            List<Member> four = new ArrayList<>(trio.membership.members());
            Member d = new Member("d", "127.0.0.1", FreePorts.one(), dir.resolve("d"));
            four.add(d);
            Membership joined = new Membership("TEST", four);
            MemberChanges changes = new MemberChanges(trio.log(active), "TEST", trio.timings.electionTimeoutMax(),
                    Trio.WAIT);
            try (ReplicatedLog impostor = ReplicatedLog.start(joined, "d", Trio.memberTls(trio.ca, "x"),
                    new RecordingSink(), ActiveListener.NONE, trio.timings, Trio.SETTINGS, Duration.ZERO)) {
                String refusal = assertThrows(IllegalArgumentException.class, () -> changes.add("d", d.address()))
                        .getMessage();
                String called = "replication member at " + d.address() + " called as member 'd': its certificate "
                        + "'O=Wharf Test,CN=x' names member 'x' (its CN): a member's certificate names its member id "
                        + "as its subject's CN. Give member 'd' a certificate of the group's CA with CN=d";
                assertTrue(refusal.startsWith("Replication group 'TEST' cannot add member d: " + called), refusal);
                assertTrue(refusal.endsWith("The members stay [a, b, c]."), refusal);
                assertTrue(audit.messages().stream().anyMatch(l -> l.startsWith("REFUSED " + called)),
                        audit.messages().toString());
            }
            assertEquals(Set.of("a", "b", "c"), trio.log(active).members().keySet());

            Trio.awaitFree(d.port());
            Trio.deleteTree(d.dataDirectory());
            try (ReplicatedLog other = ReplicatedLog.start(joined, "d", Trio.memberTls(trio.ca, "d"),
                    new RecordingSink(), ActiveListener.NONE, trio.timings, GroupSettings.of("TEST", 1 << 20),
                    Trio.WAIT)) {
                String refusal = assertThrows(IllegalArgumentException.class, () -> changes.add("d", d.address()))
                        .getMessage();
                assertTrue(refusal.startsWith("Replication group 'TEST' cannot add member d: Replication member d "
                        + "of group 'TEST' has maxMessageLength 1048576, but member " + trio.log(active).id()
                        + " has " + Trio.SETTINGS.maxMessageLength()), refusal);
                assertTrue(refusal.contains("Then define member d again. The members stay [a, b, c]."), refusal);
            }
            assertEquals(Set.of("a", "b", "c"), trio.log(active).members().keySet());
        }
    }

    /**
     * A member removed from the group is known no more, though the others' configuration files (here: the founders'
     * list, a, b, c) still name it until an operator updates them: its certificate's read of the group's settings is
     * refused by the members left (so is its start of an election in the active member's name, the other request a
     * member takes from a member it knows, {@link ActiveMemberProbe}), and so are its requests of the members'
     * protocol as itself, a vote and an append, with PERMISSION_DENIED naming the member, why and the fix. Before, the
     * file's members stayed known, and the removed member's votes and appends as itself reached Ratis (which takes an
     * append with a term at least its own from any peer as its leader's).
     */
    @Test
    void aMemberRemovedFromTheGroupIsKnownNoMore(@TempDir Path dir) throws Exception {
        try (Trio trio = new Trio(dir, ReplicationConfiguration.Timings.DEFAULT)) {
            List<Member> four = new ArrayList<>(trio.membership.members());
            Member d = new Member("d", "127.0.0.1", FreePorts.one(), dir.resolve("d"));
            four.add(d);
            try (ReplicatedLog joined = ReplicatedLog.start(new Membership("TEST", four), "d",
                    Trio.memberTls(trio.ca, "d"), new RecordingSink(), ActiveListener.NONE, trio.timings,
                    Trio.SETTINGS, Duration.ZERO)) {
                new MemberChanges(trio.log(trio.awaitActive()), "TEST", trio.timings.electionTimeoutMax(), Trio.WAIT)
                        .add("d", d.address());
                int active = trio.awaitActive();
                int removed = (active + 1) % 3;
                String id = trio.membership.members().get(removed).id();
                new MemberChanges(trio.log(active), "TEST", trio.timings.electionTimeoutMax(), Trio.WAIT).remove(id);
                List<RaftPeer> left = peers(trio).stream().filter(p -> !p.getId().toString().equals(id)).toList();
                for (int i = 0; i < 3; i++) {
                    int member = i;
                    if (i != removed) {
                        Trio.await("member " + i + " to have the change", () -> !trio.log(member).isMember(id));
                    }
                }
                try (RaftClient client = client(trio, id)) {
                    for (RaftPeer member : left) {
                        String causes = refusal(() -> send(client, trio, member, Message.EMPTY,
                                RaftClientRequest.staleReadRequestType(-1)), "member " + member.getId());
                        assertTrue(causes.contains("PERMISSION_DENIED") && causes.contains("the certificate names '"
                                + id + "' (its CN), which is no member of the group"),
                                "member " + member.getId() + ": " + causes);
                    }
                }
                for (RaftPeer member : left) {
                    ManagedChannel channel = channel(trio, member, id);
                    try {
                        RaftRpcRequestProto asRemoved = RaftRpcRequestProto.newBuilder()
                                .setRequestorId(RaftPeerId.valueOf(id).toByteString())
                                .setReplyId(member.getId().toByteString())
                                .setRaftGroupId(RaftGroupIdProto.newBuilder().setId(
                                        RaftGroupId.valueOf(trio.membership.groupUuid()).toByteString()))
                                .setCallId(CALL_IDS.incrementAndGet()).build();
                        StatusRuntimeException vote = assertThrows(StatusRuntimeException.class, () ->
                                RaftServerProtocolServiceGrpc.newBlockingStub(channel)
                                        .withDeadlineAfter(Trio.WAIT.toMillis(), TimeUnit.MILLISECONDS)
                                        .requestVote(RequestVoteRequestProto.newBuilder().setServerRequest(asRemoved)
                                                .setPreVote(true).build()), "member " + member.getId());
                        assertRefusedAsNoMember(vote.getStatus(), "a vote", id, member);
                        CompletableFuture<Throwable> ended = new CompletableFuture<>();
                        RaftServerProtocolServiceGrpc.newStub(channel).appendEntries(new StreamObserver<>() {
                            @Override
                            public void onNext(AppendEntriesReplyProto reply) {
                                ended.complete(null);
                            }

                            @Override
                            public void onError(Throwable t) {
                                ended.complete(t);
                            }

                            @Override
                            public void onCompleted() {
                                ended.complete(null);
                            }
                        }).onNext(AppendEntriesRequestProto.newBuilder().setServerRequest(asRemoved).build());
                        Throwable append = ended.get(Trio.WAIT.toMillis(), TimeUnit.MILLISECONDS);
                        assertTrue(append instanceof StatusRuntimeException, "member " + member.getId()
                                + " answered the removed member's append: " + append);
                        assertRefusedAsNoMember(((StatusRuntimeException) append).getStatus(), "an append", id,
                                member);
                    } finally {
                        channel.shutdownNow();
                    }
                }
            }
        }
    }

    /** {@code status} is a member's refusal of {@code what} from removed member {@code id}. */
    private static void assertRefusedAsNoMember(Status status, String what, String id, RaftPeer member) {
        assertEquals(Status.Code.PERMISSION_DENIED, status.getCode(), "member " + member.getId() + ": " + status);
        assertTrue(status.getDescription().contains(what + " of member '" + id + "' (its CN), which is no member of "
                + "the group (its configuration): a member takes the members' protocol (appends, votes, snapshots) "
                + "only from a member of the group. A member removed with delete member takes no part: stop it"),
                "member " + member.getId() + ": " + status);
    }

    /** A channel to {@code member}'s replication listener, with a certificate of the group's CA naming {@code cn}. */
    private static ManagedChannel channel(Trio trio, RaftPeer member, String cn) throws Exception {
        MemberTls tls = Trio.memberTls(trio.ca, cn);
        return NettyChannelBuilder.forTarget(member.getAddress()).sslContext(GrpcSslContexts.forClient()
                .keyManager(tls.keyManager()).trustManager(tls.trustManager()).build()).build();
    }

    private static List<RaftPeer> peers(Trio trio) {
        return trio.membership.members().stream()
                .map(m -> RaftPeer.newBuilder().setId(m.id()).setAddress(m.address()).build()).toList();
    }

    /** A Ratis client of the group's members with a certificate of the group's CA whose CN is {@code cn}. */
    private static RaftClient client(Trio trio, String cn) throws Exception {
        MemberTls tls = Trio.memberTls(trio.ca, cn);
        Parameters parameters = new Parameters();
        GrpcConfigKeys.TLS.setConf(parameters, new GrpcTlsConfig(tls.keyManager(), tls.trustManager(), true));
        RaftProperties properties = new RaftProperties();
        RaftConfigKeys.Rpc.setType(properties, SupportedRpcType.GRPC);
        // Ratis's 3 s is too short on a loaded machine (seen: a read answered later at load 31)
        RaftClientConfigKeys.Rpc.setRequestTimeout(properties, TimeDuration.valueOf(Trio.WAIT.toMillis(),
                TimeUnit.MILLISECONDS));
        RaftGroupId groupId = RaftGroupId.valueOf(trio.membership.groupUuid());
        return RaftClient.newBuilder().setRaftGroup(RaftGroup.valueOf(groupId, peers(trio)))
                .setProperties(properties).setParameters(parameters).setRetryPolicy(RetryPolicies.noRetry()).build();
    }

    private static final AtomicLong CALL_IDS = new AtomicLong();

    /** Sends {@code message} as a request of {@code type} straight to {@code member}, and waits for its answer. */
    private static RaftClientReply send(RaftClient client, Trio trio, RaftPeer member, Message message,
                                        RaftClientRequest.Type type) throws Exception {
        RaftClientRequest request = RaftClientRequest.newBuilder().setClientId(client.getId())
                .setServerId(member.getId()).setGroupId(RaftGroupId.valueOf(trio.membership.groupUuid()))
                .setCallId(CALL_IDS.incrementAndGet()).setMessage(message).setType(type).build();
        return client.getClientRpc().sendRequestAsyncUnordered(request).get(Trio.WAIT.toMillis(),
                TimeUnit.MILLISECONDS);
    }

    /** {@code send}'s failure, asserted, as the chain of its causes (the member's refusal is the innermost's). */
    private static String refusal(Executable send, String what) {
        ExecutionException refused = assertThrows(ExecutionException.class, send, what);
        StringBuilder causes = new StringBuilder();
        for (Throwable t = refused; t != null; t = t.getCause()) {
            causes.append(t).append(" / ");
        }
        return causes.toString();
    }
}
