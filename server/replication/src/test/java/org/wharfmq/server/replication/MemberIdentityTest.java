package org.wharfmq.server.replication;

import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.grpc.GrpcTlsConfig;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.rpc.SupportedRpcType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.server.LogCapture;
import org.wharfmq.server.security.AuditLog;

import java.nio.file.Path;
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
        try (Trio trio = new Trio(dir, ReplicationConfiguration.Timings.DEFAULT)) {
            trio.awaitActive();
            MemberTls tls = Trio.memberTls(trio.ca, "x");
            Parameters parameters = new Parameters();
            GrpcConfigKeys.TLS.setConf(parameters, new GrpcTlsConfig(tls.keyManager(), tls.trustManager(), true));
            RaftProperties properties = new RaftProperties();
            RaftConfigKeys.Rpc.setType(properties, SupportedRpcType.GRPC);
            RaftGroupId groupId = RaftGroupId.valueOf(trio.membership.groupUuid());
            List<RaftPeer> peers = trio.membership.members().stream()
                    .map(m -> RaftPeer.newBuilder().setId(m.id()).setAddress(m.address()).build()).toList();
            try (RaftClient client = RaftClient.newBuilder().setRaftGroup(RaftGroup.valueOf(groupId, peers))
                    .setProperties(properties).setParameters(parameters).setRetryPolicy(RetryPolicies.noRetry())
                    .build()) {
                long callId = 0;
                for (RaftPeer member : peers) {
                    RaftClientRequest write = RaftClientRequest.newBuilder().setClientId(client.getId())
                            .setServerId(member.getId()).setGroupId(groupId).setCallId(++callId)
                            .setMessage(Message.valueOf("not a batch")).setType(RaftClientRequest.writeRequestType())
                            .build();
                    ExecutionException refused = assertThrows(ExecutionException.class, () -> client.getClientRpc()
                            .sendRequestAsyncUnordered(write).get(Trio.WAIT.toMillis(), TimeUnit.MILLISECONDS),
                            "member " + member.getId());
                    StringBuilder causes = new StringBuilder();
                    for (Throwable t = refused; t != null; t = t.getCause()) {
                        causes.append(t).append(" / ");
                    }
                    assertTrue(causes.toString().contains("a request of Ratis's client protocol (WRITE) is not taken "
                            + "over the network: a member takes only another starting member's check of its settings"),
                            "member " + member.getId() + ": " + causes);
                }
            }
        }
    }
}
