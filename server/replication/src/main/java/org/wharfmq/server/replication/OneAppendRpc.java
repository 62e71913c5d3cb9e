package org.wharfmq.server.replication;

import org.apache.ratis.conf.Parameters;
import org.apache.ratis.grpc.GrpcFactory;
import org.apache.ratis.grpc.server.GrpcLogAppender;
import org.apache.ratis.proto.RaftProtos.AppendEntriesRequestProto;
import org.apache.ratis.rpc.RpcFactory;
import org.apache.ratis.rpc.RpcType;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.leader.FollowerInfo;
import org.apache.ratis.server.leader.LeaderState;
import org.apache.ratis.server.leader.LogAppender;
import org.apache.ratis.server.raftlog.RaftLog;
import org.apache.ratis.server.raftlog.RaftLogIOException;

/**
 * Ratis's gRPC transport (TLS, streams, everything else Ratis's own), with log appenders that wait for the answer to
 * the one append a replica has in flight ({@link ReplicationConfiguration#APPENDS_IN_FLIGHT}) instead of sending it
 * heartbeats meanwhile.
 *
 * <p>Why: Ratis 3.2.1's gRPC appender, once a replica has as many appends in flight as allowed, sends it a heartbeat
 * (an empty append) each time it wakes while entries wait: at every entry the active member appends and at every
 * heartbeat's answer, at most 1 ms apart ({@code raft.server.log.appender.wait-time.min}). With one append in
 * flight that is a stream of heartbeats, over TLS, for as long as each replica forces its log: a few each round on a
 * quiet machine, dozens on a loaded one, where they took the cores the rounds themselves needed
 * (docs/performance-log.md, "Replicated queue manager: heartbeats"). Here an appender with an append in flight sends
 * nothing until it is answered, unless a heartbeat is due or Ratis asks for one (a leadership transfer, a read); the
 * answer wakes it, and the next append carries every entry appended meanwhile and the commit index (which the
 * replicas need only to apply, not to answer).
 *
 * <p>A heartbeat is due once the replica was sent nothing for a quarter of the election timeout's minimum
 * ({@link ReplicationConfiguration#HEARTBEATS_PER_ELECTION_TIMEOUT}), or by Ratis's own rule (no answer for half of
 * it), whichever comes first: a replica, its append slow (its disk, a starved machine) or none under way, hears from
 * the active member several times within the time after which it would grant another member's (pre-)vote, and a
 * replica that answers each append at once, the next append leaving at once, gets no heartbeat at all.
 *
 * <p>A replica that does not answer (nothing in flight to it, no answer for
 * {@link ReplicationConfiguration#UNANSWERED_AFTER_HEARTBEATS} heartbeat intervals: its process killed, its host cut
 * off) is sent one request per heartbeat interval, a new connection each ({@link #unansweredHold}): Ratis 3.2.1's
 * appender tried again at every entry appended (each wakes it, cutting its own wait after a failure short), 80 times
 * a second under a failover test's clients, each a TLS connection attempt and a warning, on the member taking over.
 *
 * <p>Named in Ratis's {@code raft.rpc.type} by its class name (Ratis makes it by reflection: public, no arguments).
 */
public final class OneAppendRpc implements RpcType {

    public OneAppendRpc() {
        // made by Ratis from the class name
    }

    @Override
    public String name() {
        return OneAppendRpc.class.getName();
    }

    @Override
    public RpcFactory newFactory(Parameters parameters) {
        return new Factory(parameters);
    }

    /** Ratis's gRPC factory, making {@link Appender}s. */
    private static final class Factory extends GrpcFactory {

        Factory(Parameters parameters) {
            super(parameters);
        }

        @Override
        public LogAppender newLogAppender(RaftServer.Division server, LeaderState state, FollowerInfo follower) {
            return new Appender(server, state, follower);
        }
    }

    /**
     * The milliseconds until a heartbeat is due to a replica (zero or less: now): Ratis's own {@code ratisWaitMs}, but
     * at most {@code intervalMs} after anything (an append, a heartbeat) was last sent to it.
     */
    static long heartbeatWait(long ratisWaitMs, long sinceLastSendMs, long intervalMs) {
        return Math.min(ratisWaitMs, intervalMs - sinceLastSendMs);
    }

    /**
     * The milliseconds the next request to a replica is held (zero: not held): a replica with nothing in flight that
     * has not answered for {@link ReplicationConfiguration#UNANSWERED_AFTER_HEARTBEATS} intervals ({@code intervalMs}) is
     * sent a request once {@code intervalMs} passed since the last one, whatever was appended meanwhile.
     */
    static long unansweredHold(long sinceLastAnswerMs, long sinceLastSendMs, boolean inFlight, long intervalMs) {
        if (inFlight || sinceLastAnswerMs < ReplicationConfiguration.UNANSWERED_AFTER_HEARTBEATS * intervalMs) {
            return 0;
        }
        return Math.max(0, intervalMs - sinceLastSendMs);
    }

    /**
     * Ratis's gRPC appender, quiet while its append is in flight unless a heartbeat is due, and sending a replica that
     * does not answer one request per heartbeat interval.
     */
    private static final class Appender extends GrpcLogAppender {

        /** {@link ReplicationConfiguration#heartbeatIntervalMillis} of Ratis's own election timeout minimum. */
        private final long heartbeatIntervalMs;

        Appender(RaftServer.Division server, LeaderState state, FollowerInfo follower) {
            super(server, state, follower);
            heartbeatIntervalMs = ReplicationConfiguration.heartbeatIntervalMillis(
                    server.properties().minRpcTimeoutMs());
        }

        /**
         * How long until a heartbeat is due (zero or less: due now), which also sets how long the appender sleeps
         * when it has nothing to send: {@link #heartbeatWait}.
         */
        @Override
        public long getHeartbeatWaitTimeMs() {
            return heartbeatWait(super.getHeartbeatWaitTimeMs(), getFollower().getLastRpcSendTime().elapsedTimeMs(),
                    heartbeatIntervalMs);
        }

        /** How long the next request to this replica is held because it does not answer: {@link #unansweredHold}. */
        private long unansweredHoldMs() {
            FollowerInfo follower = getFollower();
            return unansweredHold(follower.getLastRpcResponseTime().elapsedTimeMs(),
                    follower.getLastRpcSendTime().elapsedTimeMs(), hasPendingDataRequests(), heartbeatIntervalMs);
        }

        /** Ratis's wait before the appender looks again, or, for a replica that does not answer, its hold. */
        @Override
        public long getWaitTimeMs() {
            long hold = unansweredHoldMs();
            return hold > 0 ? hold : super.getWaitTimeMs();
        }

        /**
         * Every request this appender sends is made here (null: none is sent this time). A heartbeat asked for while
         * an append is in flight is not made unless one is due or Ratis asked for one: the append's answer wakes the
         * appender, and the next append carries the entries and the commit index. Nothing is made for a replica that
         * does not answer until its hold ends ({@link #unansweredHold}).
         */
        @Override
        public AppendEntriesRequestProto newAppendEntriesRequest(long callId, boolean heartbeat)
                throws RaftLogIOException {
            if ((heartbeat && hasPendingDataRequests() && getHeartbeatWaitTimeMs() > 0) || unansweredHoldMs() > 0) {
                return null;
            }
            AppendEntriesRequestProto request = super.newAppendEntriesRequest(callId, heartbeat);
            return request == null ? null : commitSent(request);
        }
    }

    /**
     * {@code request} with its commit index no further than the last entry it carries, when it names no previous
     * entry (a heartbeat while an append is in flight; the entries from a replica's first index, or from just after a
     * snapshot): a replica can check only what it is sent.
     *
     * <p>Why: a Ratis 3.2.1 follower (and Ratis's main branch alike, {@code ServerImplUtils.effectiveCommitIndex})
     * takes a request without a previous entry as if it came after index 0, and commits up to the leader's commit index
     * but at most 0 plus the entries it carries: one entry further than it was sent, whatever that entry is. A heartbeat
     * so committed a replica's index 0 as it held it, and a replica elected at a start for a moment holds there its own
     * term's first entry, which the group never committed (another's is the group's index 0): from then on it refused
     * every append from index 0 (it is committed) and every one after it (its previous is not the replica's), and never
     * caught up (seen in {@code ReplicatedFailoverTest}, b "catching up: 6211 behind" for good). With the bound, such a
     * heartbeat commits nothing, the append from index 0 replaces the stale entry, and the replica catches up.
     */
    static AppendEntriesRequestProto commitSent(AppendEntriesRequestProto request) {
        if (request.hasPreviousLog()) {
            return request; // the replica commits at most the previous entry's index plus those sent: the last sent
        }
        int sent = request.getEntriesCount();
        long last = sent == 0 ? RaftLog.INVALID_LOG_INDEX : request.getEntries(sent - 1).getIndex();
        return request.getLeaderCommit() <= last ? request : request.toBuilder().setLeaderCommit(last).build();
    }
}
