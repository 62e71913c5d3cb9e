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
import org.apache.ratis.util.TimeDuration;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A starting member's comparison of its {@link GroupSettings} with every other member's that answers: each member
 * answers with its own (its state machine's query, over the members' mutual TLS), and the starting member refuses to
 * go on when one differs, naming the setting, both values, both members and the fix. A member joining a group (added
 * with {@code define member}) starts after the members it joins, and so is checked against them; a member restarted
 * with a changed file is checked against those that run.
 *
 * <p>A member that does not answer within {@link ReplicationConfiguration#SETTINGS_CHECK_TIMEOUT} (not started yet,
 * unreachable) is not compared: it compares itself with this one when it starts.
 */
final class SettingsCheck {

    private static final System.Logger LOG = System.getLogger(SettingsCheck.class.getName());

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
        if (others.isEmpty()) {
            return List.of();
        }
        List<RaftPeer> peers = others.entrySet().stream()
                .map(m -> RaftPeer.newBuilder().setId(m.getKey()).setAddress(m.getValue()).build())
                .toList();
        RaftProperties properties = new RaftProperties();
        RaftConfigKeys.Rpc.setType(properties, SupportedRpcType.GRPC);
        RaftClientConfigKeys.Rpc.setRequestTimeout(properties, TimeDuration.valueOf(timeout.toMillis(),
                TimeUnit.MILLISECONDS));
        List<String> refusals = new ArrayList<>();
        try (RaftClient client = RaftClient.newBuilder()
                .setRaftGroup(RaftGroup.valueOf(groupId, peers))
                .setProperties(properties)
                .setParameters(tls)
                .setRetryPolicy(RetryPolicies.noRetry())
                .build()) {
            Map<String, CompletableFuture<RaftClientReply>> answers = new LinkedHashMap<>();
            long callId = 0;
            for (String id : others.keySet()) {
                // straight to the member's RPC: the client's ordered path logs every member not running as SEVERE
                RaftClientRequest ask = RaftClientRequest.newBuilder()
                        .setClientId(client.getId())
                        .setServerId(RaftPeerId.valueOf(id))
                        .setGroupId(groupId)
                        .setCallId(++callId)
                        .setMessage(Message.EMPTY)
                        .setType(RaftClientRequest.staleReadRequestType(-1)) // also before its first commit
                        .build();
                answers.put(id, client.getClientRpc().sendRequestAsyncUnordered(ask));
            }
            long deadline = System.nanoTime() + timeout.toNanos();
            for (Map.Entry<String, CompletableFuture<RaftClientReply>> answer : answers.entrySet()) {
                GroupSettings theirs = settings(answer.getValue(), deadline);
                if (theirs == null) {
                    LOG.log(System.Logger.Level.INFO, () -> "Replication member " + self + " could not compare its "
                            + "settings with member " + answer.getKey() + "'s (it did not answer): " + answer.getKey()
                            + " compares them when it starts");
                    continue;
                }
                for (String setting : own.differences(theirs)) {
                    refusals.add(refusal(group, self, own, answer.getKey(), theirs, setting));
                }
            }
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "Replication member " + self + " could not ask the others for their "
                    + "settings: " + e);
        }
        return refusals;
    }

    private static GroupSettings settings(CompletableFuture<RaftClientReply> answer, long deadline) {
        try {
            RaftClientReply reply = answer.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (!reply.isSuccess() || reply.getMessage() == null || reply.getMessage().getContent().isEmpty()) {
                return null;
            }
            return GroupSettings.decode(reply.getMessage().getContent());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        } catch (Exception notAnswered) {
            return null;
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
