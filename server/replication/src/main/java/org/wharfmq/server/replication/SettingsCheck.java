package org.wharfmq.server.replication;

import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.rpc.SupportedRpcType;
import org.apache.ratis.thirdparty.io.grpc.Status;
import org.apache.ratis.thirdparty.io.grpc.StatusRuntimeException;
import org.apache.ratis.util.TimeDuration;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A starting member's comparison of its {@link GroupSettings} with every other member's that answers: each member
 * answers with its own (its state machine's query, over the members' mutual TLS), and the starting member refuses to
 * go on when one differs, naming the setting, both values, both members and the fix. A member restarted with a changed
 * file is checked against those that run. A member answers only a member it knows (in its configuration file or the
 * group's configuration, {@link MemberIdentityCheck}), so a member being added, started before it is defined, is
 * refused by them at its start; the active member asks it instead when it is defined ({@link MemberChanges#add}), and
 * refuses the change when its settings differ.
 *
 * <p>A member that does not answer within {@link ReplicationConfiguration#SETTINGS_CHECK_TIMEOUT} (not started yet,
 * unreachable) is not compared: it compares itself with this one when it starts.
 */
final class SettingsCheck {

    private static final System.Logger LOG = System.getLogger(SettingsCheck.class.getName());

    /** The most of a failure's reason an answer quotes: enough for a member's refusal, which says why and the fix. */
    private static final int REASON_CHARS = 1000;

    private SettingsCheck() {
    }

    /**
     * Asks each of {@code members} (id to host:port; this member left out) for its settings, and compares them with
     * {@code own}.
     *
     * @return for each member whose settings differ, the refusal naming what differs (empty when none differs)
     */
    static List<String> compare(String group, RaftGroupId groupId, String self, GroupSettings own,
                                Map<String, String> members, Parameters tls, Duration timeout) {
        Map<String, String> others = new LinkedHashMap<>(members);
        others.remove(self);
        List<String> refusals = new ArrayList<>();
        ask(groupId, others, tls, timeout).forEach((other, answer) -> {
            if (answer.settings() == null) {
                LOG.log(System.Logger.Level.INFO, () -> "Replication member " + self + " could not compare its "
                        + "settings with member " + other + "'s (" + answer.failure() + "): " + other + " compares "
                        + "them when it starts; a member being added is compared by the active member when it is "
                        + "defined (define member)");
                return;
            }
            for (String setting : own.differences(answer.settings())) {
                refusals.add(refusal(group, self, own, other, answer.settings(), setting));
            }
        });
        return refusals;
    }

    /**
     * A member's answer: its settings, or null and why there are none; {@code refused} when the member refused the
     * read (it does not know this member: {@link MemberIdentityCheck}), which asking again does not change.
     */
    record Answer(GroupSettings settings, String failure, boolean refused) {

        static Answer of(GroupSettings settings) {
            return new Answer(settings, null, false);
        }

        static Answer none(String failure) {
            return new Answer(null, failure, false);
        }
    }

    /**
     * Asks each of {@code members} (id to host:port) for its settings, all at once, waiting at most {@code timeout}
     * for the answers: a member is answered only to a certificate naming a member it knows ({@link
     * MemberIdentityCheck}), and a member called must show the certificate of the member at the address called
     * ({@link MemberCertificateCheck}).
     *
     * @return each member's answer, in the order of {@code members}
     */
    static Map<String, Answer> ask(RaftGroupId groupId, Map<String, String> members, Parameters tls,
                                   Duration timeout) {
        Map<String, Answer> answers = new LinkedHashMap<>();
        if (members.isEmpty()) {
            return answers;
        }
        List<RaftPeer> peers = members.entrySet().stream()
                .map(m -> RaftPeer.newBuilder().setId(m.getKey()).setAddress(m.getValue()).build())
                .toList();
        RaftProperties properties = new RaftProperties();
        RaftConfigKeys.Rpc.setType(properties, SupportedRpcType.GRPC);
        RaftClientConfigKeys.Rpc.setRequestTimeout(properties, TimeDuration.valueOf(timeout.toMillis(),
                TimeUnit.MILLISECONDS));
        try (RaftClient client = RaftClient.newBuilder()
                .setRaftGroup(RaftGroup.valueOf(groupId, peers))
                .setProperties(properties)
                .setParameters(tls)
                .setRetryPolicy(RetryPolicies.noRetry())
                .build()) {
            Map<String, CompletableFuture<RaftClientReply>> replies = new LinkedHashMap<>();
            long callId = 0;
            for (String id : members.keySet()) {
                // straight to the member's RPC: the client's ordered path logs every member not running as SEVERE
                RaftClientRequest read = RaftClientRequest.newBuilder()
                        .setClientId(client.getId())
                        .setServerId(RaftPeerId.valueOf(id))
                        .setGroupId(groupId)
                        .setCallId(++callId)
                        .setMessage(Message.EMPTY)
                        .setType(RaftClientRequest.staleReadRequestType(-1)) // also before its first commit
                        .build();
                replies.put(id, client.getClientRpc().sendRequestAsyncUnordered(read));
            }
            long deadline = System.nanoTime() + timeout.toNanos();
            replies.forEach((id, reply) -> answers.put(id, answer(reply, deadline)));
        } catch (IOException e) {
            members.keySet().forEach(id -> answers.putIfAbsent(id, Answer.none("it could not be asked: " + e)));
        }
        return answers;
    }

    private static Answer answer(CompletableFuture<RaftClientReply> reply, long deadline) {
        try {
            RaftClientReply answer = reply.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (!answer.isSuccess() || answer.getMessage() == null || answer.getMessage().getContent().isEmpty()) {
                return Answer.none("it answered no settings: " + answer.getException());
            }
            return Answer.of(GroupSettings.decode(answer.getMessage().getContent()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Answer.none("interrupted");
        } catch (TimeoutException e) {
            return Answer.none("it did not answer");
        } catch (Exception notAnswered) {
            Throwable cause = notAnswered;
            while (cause.getCause() != null && cause.getCause() != cause) {
                cause = cause.getCause(); // the transport's, which says why (a refusal's description, a closed port)
            }
            boolean refused = cause instanceof StatusRuntimeException status
                    && status.getStatus().getCode() == Status.Code.PERMISSION_DENIED;
            return new Answer(null, (refused ? "it refused: " : "it did not answer: ")
                    + MemberCertificateCheck.quoted(String.valueOf(cause.getMessage()), REASON_CHARS), refused);
        }
    }

    static String refusal(String group, String self, GroupSettings own, String other, GroupSettings theirs,
                          String setting) {
        return "Replication member " + self + " of group '" + group + "' has " + setting + " " + own.value(setting)
                + ", but member " + other + " has " + theirs.value(setting) + ": every member must have the same "
                + setting + " (docs/resilience.md, \"Settings the members share\"). Set " + setting + ": "
                + theirs.value(setting) + " in " + self + "'s configuration file (or change it on every member and "
                + "restart them together), then start " + self + " again.";
    }
}
