package org.wharfmq.server.replication;

import org.apache.ratis.proto.RaftProtos.AppendEntriesRequestProto;
import org.apache.ratis.proto.RaftProtos.InstallSnapshotRequestProto;
import org.apache.ratis.proto.RaftProtos.RaftClientRequestProto;
import org.apache.ratis.proto.RaftProtos.RaftRpcRequestProto;
import org.apache.ratis.proto.RaftProtos.ReadIndexRequestProto;
import org.apache.ratis.proto.RaftProtos.RequestVoteRequestProto;
import org.apache.ratis.proto.RaftProtos.StartLeaderElectionRequestProto;
import org.apache.ratis.proto.grpc.AdminProtocolServiceGrpc;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.thirdparty.io.grpc.ForwardingServerCallListener;
import org.apache.ratis.thirdparty.io.grpc.Grpc;
import org.apache.ratis.thirdparty.io.grpc.Metadata;
import org.apache.ratis.thirdparty.io.grpc.ServerCall;
import org.apache.ratis.thirdparty.io.grpc.ServerCallHandler;
import org.apache.ratis.thirdparty.io.grpc.ServerInterceptor;
import org.apache.ratis.thirdparty.io.grpc.Status;
import org.wharfmq.server.security.AuditLog;

import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import java.net.SocketAddress;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Binds each incoming replication connection to the member its certificate names: a member's certificate's subject
 * CN is its member id ({@code CN=a} for member {@code a}; docs/resilience.md, "How it works"), and every request of
 * the members' protocol that the connection carries (an append, a vote, a snapshot, an election's start, a read
 * index) must speak as that member, and that member must be one this member knows ({@link #knows}: of the group's
 * configuration). The TLS handshake ({@link MemberCertificateCheck}) proved the certificate is the group's CA's; this
 * proves the member id is the certificate's, so that a member's key (or any other certificate of that CA) cannot vote
 * or append as another member, and that the member is still one, so that a member removed from the group, whose
 * certificate stays valid, cannot append, vote or send a snapshot as itself: Ratis refuses a vote for a candidate
 * outside its configuration, but takes an append from any peer whose term is at least its own as its leader's
 * ({@code ServerState.recognizeLeader}), so a removed member could otherwise write entries to the members' logs.
 * One exception: an election's start may name the gone active
 * member as its requestor when a certificate of a member this member knows sends it, as {@link ActiveMemberProbe}
 * does (Ratis takes a start only from the leader a follower last knew, so the member that found the leader gone asks
 * in its name); a certificate that names no member it knows cannot. A request that speaks as another member ends its
 * call with {@code PERMISSION_DENIED}, naming the member it spoke as, the certificate's name, why and the fix, and
 * is an audit line (paced: at most one per {@link ReplicationConfiguration#REFUSAL_WARNING_EVERY}, counting the
 * others, since a refused peer tries again at every heartbeat).
 *
 * <p>A gRPC interceptor on the member's replication listener (Ratis's services customizer). Per request: a look at
 * the request's requestor id against the certificate's CN, kept per call as bytes, and at the CN among the members
 * (a set kept per configuration of the group, {@link ReplicatedLog#isMember}); nothing allocated.
 *
 * <p>Requests of Ratis's client and admin protocols carry a client id, not a member id: of those a member takes only
 * the stale read of a member's settings check ({@link SettingsCheck}), and only from a certificate whose CN is a member
 * it knows: of the group's configuration (during a change, the old members and the new; its configuration file's
 * until its log runs), so not a member removed from the group.
 * A member being added is neither until the change names it, so its own check at its start is refused; the active
 * member asks it for its settings when it is defined instead ({@link MemberChanges#add}). The group's writes, member
 * changes and leadership transfers are made by the active member itself, in its process, so any other (a write, which
 * Ratis's leader would append, a change of the members, a leadership transfer) is refused the same way: no
 * certificate of the CA can write to the log or change the group from outside.
 */
final class MemberIdentityCheck implements ServerInterceptor {

    private static final System.Logger LOG = System.getLogger(MemberIdentityCheck.class.getName());

    private final String group;
    /**
     * Whether an id is a member this member knows: of its configuration file's members (its replication block) until
     * its log runs, then of the group's configuration ({@link #groupMembers}).
     */
    private volatile Predicate<String> members;
    private final Pacing audits;

    MemberIdentityCheck(String group, Set<String> members, Duration auditEvery) {
        this.group = group;
        this.members = Set.copyOf(members)::contains;
        this.audits = new Pacing(auditEvery);
    }

    /**
     * Says which ids are members of the group's configuration, once the member's log runs: from then on those alone
     * are known (a member removed from the group is known no more, though a file not updated yet still lists it).
     */
    void groupMembers(Predicate<String> isMember) {
        this.members = isMember;
    }

    /**
     * Whether {@code member} (a certificate's CN) is a member this member knows: one of the group's configuration
     * (during a change, the old members and the new); its configuration file's until its log runs.
     */
    private boolean knows(String member) {
        return member != null && members.test(member);
    }

    @Override
    public <Q, A> ServerCall.Listener<Q> interceptCall(ServerCall<Q, A> call, Metadata headers,
                                                       ServerCallHandler<Q, A> next) {
        SSLSession session = call.getAttributes().get(Grpc.TRANSPORT_ATTR_SSL_SESSION);
        String subject = subject(session);
        String member = commonName(subject);
        ByteString memberBytes = member == null ? null : ByteString.copyFromUtf8(member);
        SocketAddress peer = call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR);
        if (AdminProtocolServiceGrpc.SERVICE_NAME.equals(call.getMethodDescriptor().getServiceName())) {
            refuse(call, notTaken(peer, subject, "a request of Ratis's admin protocol ("
                    + call.getMethodDescriptor().getBareMethodName() + ")"));
            return new ServerCall.Listener<>() {
            };
        }
        return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(next.startCall(call, headers)) {
            /** Set once the call is refused: nothing more of it goes on. */
            private boolean refused;

            @Override
            public void onMessage(Q message) {
                if (refused) {
                    return;
                }
                String refusal;
                if (message instanceof RaftClientRequestProto client) {
                    if (client.hasStaleRead() && knows(member)) {
                        super.onMessage(message); // a member's settings check (SettingsCheck)
                        return;
                    }
                    refusal = client.hasStaleRead() ? notAMember(peer, subject, member)
                            : notTaken(peer, subject, "a request of Ratis's client protocol (" + client.getTypeCase()
                            + ")");
                } else if (message instanceof StartLeaderElectionRequestProto && knows(member)) {
                    super.onMessage(message); // a member standing in for the gone active one (ActiveMemberProbe)
                    return;
                } else {
                    RaftRpcRequestProto request = serverRequest(message);
                    if (request == null) {
                        super.onMessage(message);
                        return;
                    }
                    if (!request.getRequestorId().equals(memberBytes)) {
                        refusal = spokeAsAnother(request.getRequestorId().toStringUtf8(), subject, member, peer);
                    } else if (!knows(member)) {
                        refusal = notAMemberSpeaking(kind(message), peer, subject, member);
                    } else {
                        super.onMessage(message);
                        return;
                    }
                }
                refused = true;
                refuse(call, refusal);
            }

            @Override
            public void onHalfClose() {
                if (!refused) {
                    super.onHalfClose();
                }
            }

            @Override
            public void onReady() {
                if (!refused) {
                    super.onReady();
                }
            }
        };
    }

    /** The members' protocol's request header of {@code message}, or null when it is none (a client's request). */
    private static RaftRpcRequestProto serverRequest(Object message) {
        if (message instanceof AppendEntriesRequestProto append) {
            return append.getServerRequest();
        }
        if (message instanceof RequestVoteRequestProto vote) {
            return vote.getServerRequest();
        }
        if (message instanceof InstallSnapshotRequestProto snapshot) {
            return snapshot.getServerRequest();
        }
        if (message instanceof StartLeaderElectionRequestProto election) {
            return election.getServerRequest();
        }
        if (message instanceof ReadIndexRequestProto read) {
            return read.getServerRequest();
        }
        return null;
    }

    /** Ends {@code call} with {@code refusal}, and writes it to the audit log if its turn has come. */
    private void refuse(ServerCall<?, ?> call, String refusal) {
        call.close(Status.PERMISSION_DENIED.withDescription(refusal), new Metadata());
        long others = audits.turn();
        if (others >= 0) {
            AuditLog.peerRefused(refusal + Pacing.others(others, "refusals"));
        }
    }

    private String notTaken(SocketAddress peer, String subject, String what) {
        return "replication member connection from " + peer + " of group '" + group + "' (certificate '"
                + MemberCertificateCheck.quoted(String.valueOf(subject)) + "'): " + what + " is not taken over the "
                + "network: a member takes only another member's check of its settings (a stale read); the "
                + "group's writes, member changes and leadership transfers are the active member's own, asked of it with "
                + "wharf admin (docs/resilience.md, \"How it works\"). If this is no member, find who holds a key of "
                + "the group's CA.";
    }

    private String notAMember(SocketAddress peer, String subject, String member) {
        return "replication member connection from " + peer + " of group '" + group + "' (certificate '"
                + MemberCertificateCheck.quoted(String.valueOf(subject)) + "'): a read of the group's settings is "
                + "answered only to a member of the group, and the certificate names "
                + (member == null ? "no member (its subject has no CN)" : "'" + MemberCertificateCheck.quoted(member)
                + "' (its CN), which is no member of the group (its configuration)") + ". A member's certificate names its member id as its subject's CN: give a "
                + "member a certificate of the group's CA with CN=<its id> (docs/resilience.md, \"How it works\"). A "
                + "member being added is known once it is added: started before, its own check is refused, and the "
                + "active member compares its settings when it is defined (define member). If this is no member, "
                + "find who holds a key of the group's CA.";
    }

    /** What a request of the members' protocol is, as a refusal names it. */
    private static String kind(Object message) {
        if (message instanceof AppendEntriesRequestProto) {
            return "an append";
        }
        if (message instanceof RequestVoteRequestProto) {
            return "a vote";
        }
        if (message instanceof InstallSnapshotRequestProto) {
            return "a snapshot";
        }
        if (message instanceof StartLeaderElectionRequestProto) {
            return "an election's start";
        }
        return "a read index";
    }

    private String notAMemberSpeaking(String what, SocketAddress peer, String subject, String member) {
        return "replication member connection from " + peer + " of group '" + group + "' (certificate '"
                + MemberCertificateCheck.quoted(String.valueOf(subject)) + "'): " + what + " of member '"
                + MemberCertificateCheck.quoted(member) + "' (its CN), which is no member of the group (its "
                + "configuration): a member takes the members' protocol (appends, votes, snapshots) only from a "
                + "member of the group. A member removed with delete member takes no part: stop it, and wipe its "
                + "data directory before it joins again. A member being added is known once define member added it. "
                + "If this member was stopped while the member was added, and it leads now, this member's log does "
                + "not name it yet: hand the active role to a member this one knows (switchover), which brings its "
                + "log up to date (docs/resilience.md, \"How it works\"). If this is no member, find who holds a key "
                + "of the group's CA.";
    }

    private String spokeAsAnother(String spokeAs, String subject, String member, SocketAddress peer) {
        return "replication member connection from " + peer + " of group '" + group + "': it spoke as member '"
                + MemberCertificateCheck.quoted(spokeAs) + "', but its certificate '"
                + MemberCertificateCheck.quoted(String.valueOf(subject)) + "' names "
                + (member == null ? "no member (its subject has no CN)" : "member '" + MemberCertificateCheck.quoted(member)
                + "' (its CN)") + ": a member's certificate names its member id as its subject's CN, and it speaks as that member "
                + "only. Give member '" + MemberCertificateCheck.quoted(spokeAs) + "' a certificate of the group's CA "
                + "with CN=" + MemberCertificateCheck.quoted(spokeAs) + " (docs/resilience.md, \"How it works\"); if "
                + "this is no member, find who holds a key of the group's CA.";
    }

    /** The verified peer certificate's subject (RFC 2253), or null when there is none. */
    private static String subject(SSLSession session) {
        if (session == null) {
            return null;
        }
        try {
            Certificate[] chain = session.getPeerCertificates();
            return chain.length > 0 && chain[0] instanceof X509Certificate x509
                    ? x509.getSubjectX500Principal().getName() : null;
        } catch (SSLPeerUnverifiedException e) {
            return null;
        }
    }

    /** The subject's CN (the last one, the most specific, when it has several), or null when it has none. */
    static String commonName(String subject) {
        if (subject == null) {
            return null;
        }
        try {
            String cn = null;
            for (Rdn rdn : new LdapName(subject).getRdns()) { // from the least specific to the most
                if (rdn.getType().equalsIgnoreCase("CN")) {
                    cn = String.valueOf(rdn.getValue());
                }
            }
            return cn;
        } catch (InvalidNameException e) {
            LOG.log(System.Logger.Level.DEBUG, () -> "Not a subject: " + subject);
            return null;
        }
    }
}
