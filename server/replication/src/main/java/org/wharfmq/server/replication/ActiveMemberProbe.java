package org.wharfmq.server.replication;

import org.apache.ratis.proto.RaftProtos.RaftGroupIdProto;
import org.apache.ratis.proto.RaftProtos.RaftRpcRequestProto;
import org.apache.ratis.proto.RaftProtos.RoleInfoProto;
import org.apache.ratis.proto.RaftProtos.StartLeaderElectionRequestProto;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerRpc;
import org.apache.ratis.server.protocol.RaftServerProtocol;
import org.apache.ratis.server.protocol.TermIndex;

import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * Has a replica start the election as soon as the active member's process is gone, instead of after the election
 * timeout (docs/resilience.md, "The election timeout").
 *
 * <p>Why: after a kill -9 of the active member, Ratis's follower timer starts the election only at the end of the
 * first random sleep (1 to 1.5 times {@code electionTimeoutMillis}) that began after the last heartbeat: 1.5 s after
 * the kill at the median with the default timeout, most of a failover. Silence alone cannot tell a dead active member
 * from a slow one (a pause, a starved machine), so the timeout must stay above the pauses; but a connection to its
 * replication address can: a process that is gone refuses it (nothing listens on the port) or, through a relay, has
 * it closed or reset at once, where a live one (paused or not: the kernel accepts for a stopped process) keeps it open
 * waiting for the TLS handshake.
 *
 * <p>What: {@link ReplicationConfiguration#PROBE_CHECKS_PER_HEARTBEAT} times per
 * {@link ReplicationConfiguration#heartbeatIntervalMillis heartbeat interval}, a replica that follows an active member
 * and has heard nothing from it for {@link ReplicationConfiguration#PROBE_AFTER_HEARTBEATS} heartbeat intervals
 * connects to its replication address, the first replica by id alone (so that two do not split the vote). Refused,
 * closed or reset: an election starts at once, as the target of a switchover starts one (Ratis's
 * {@code startLeaderElection}: no pre-vote, the term raised first), by the replica whose log holds the most: this one
 * first asks the other replica to start it, which Ratis grants only when the other's log holds at least this one's
 * last entry (the other then wins this one's vote), and starts it itself when the other refuses (its log is shorter,
 * so it votes for this one). One election, by the replica that can win it: when this replica alone asked for the votes,
 * half the kills found the other's log an entry longer (one append in flight per replica: either may have the last),
 * its vote refused, and the other's timer elected 1 to 1.5 s later. Raft's safety is the votes', never the timing's.
 * Held open, not answered in time, or any other error: nothing is done, and the election timeout decides as before.
 *
 * <p>Threads: one daemon timer of its own; the probe's connect and read wait at most a heartbeat interval each.
 * {@link #close} stops it.
 */
final class ActiveMemberProbe implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(ActiveMemberProbe.class.getName());

    private final Supplier<RaftServer.Division> division;
    private final RaftPeerId self;
    private final String group;
    private final long intervalMillis;
    private final ScheduledExecutorService timer;
    /** The elections this member had started (by itself or the other replica) because the active member was gone. */
    private final AtomicInteger elections = new AtomicInteger();
    /** The term in which this member last had an election started; the timer's thread alone reads and writes it. */
    private long startedInTerm = -1;

    private ActiveMemberProbe(Supplier<RaftServer.Division> division, RaftPeerId self, String group,
                              long intervalMillis) {
        this.division = division;
        this.self = self;
        this.group = group;
        this.intervalMillis = intervalMillis;
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "wharf-replication-probe-" + self);
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Starts probing for member {@code self} of {@code group}, whose heartbeat interval is {@code intervalMillis}: its
     * silence looked at {@link ReplicationConfiguration#PROBE_CHECKS_PER_HEARTBEAT} times per interval.
     */
    static ActiveMemberProbe start(Supplier<RaftServer.Division> division, String self, String group,
                                   long intervalMillis) {
        ActiveMemberProbe probe = new ActiveMemberProbe(division, RaftPeerId.valueOf(self), group, intervalMillis);
        long every = Math.max(1, intervalMillis / ReplicationConfiguration.PROBE_CHECKS_PER_HEARTBEAT);
        probe.timer.scheduleWithFixedDelay(probe::check, every, every, TimeUnit.MILLISECONDS);
        return probe;
    }

    private void check() {
        try {
            RaftServer.Division member = division.get();
            if (member == null) {
                return;
            }
            DivisionInfo info = member.getInfo();
            RaftPeerId active = info.getLeaderId();
            if (!info.isAlive() || !info.isFollower() || active == null || active.equals(self)) {
                return;
            }
            RoleInfoProto role = info.getRoleInfoProto();
            if (!role.hasFollowerInfo() || role.getFollowerInfo().getOutstandingOp() > 0) {
                return; // an append or snapshot from it under way
            }
            long silentMillis = role.getFollowerInfo().getLeaderInfo().getLastRpcElapsedTimeMs();
            if (!asks(member, active) || silentMillis < ReplicationConfiguration.PROBE_AFTER_HEARTBEATS * intervalMillis) {
                return;
            }
            RaftPeer peer = member.getRaftConf().getPeer(active);
            String gone = peer == null ? null : gone(peer.getAddress(), (int) intervalMillis);
            if (gone == null) {
                return; // it is there, only slow (or unreachable): the election timeout decides
            }
            TermIndex last = member.getRaftLog().getLastEntryTermIndex();
            long term = info.getCurrentTerm();
            if (last == null || last.getTerm() != term || !active.equals(info.getLeaderId()) || term == startedInTerm) {
                // nothing of its term here yet, a new leader meanwhile (the timeout decides), or an election started
                // in this term already (the other replica's, whose vote request has not come yet)
                return;
            }
            RaftPeerId candidate = startElection(member, active, last);
            if (candidate != null) {
                startedInTerm = term;
                elections.incrementAndGet();
                LOG.log(System.Logger.Level.INFO, () -> "Replication member " + self + " of group '" + group
                        + "': the active member " + active + " is gone (heard nothing for " + silentMillis + " ms, "
                        + gone + "): " + (candidate.equals(self) ? "this member" : "member " + candidate
                        + ", whose log holds at least this one's,") + " asks for the votes now, not after the "
                        + "election timeout");
            }
        } catch (IOException | RuntimeException e) {
            // the member closing, a role changed meanwhile: the next round, or the election timeout, decides
            LOG.log(System.Logger.Level.DEBUG, () -> "Probing the active member: " + e);
        }
    }

    /**
     * Starts the election in place of the gone {@code active}, whose last entry here is {@code last}: each other member
     * that is not active, in id order, is asked to start it (granted by Ratis only when its log holds at least
     * {@code last}; not answered, refused: the next), then this member itself. Returns the member that started it, or
     * null when none did.
     */
    private RaftPeerId startElection(RaftServer.Division member, RaftPeerId active, TermIndex last) throws IOException {
        List<RaftPeerId> others = member.getRaftConf().getCurrentPeers().stream().map(RaftPeer::getId)
                .filter(id -> !id.equals(active) && !id.equals(self))
                .sorted(Comparator.comparing(RaftPeerId::toString)).toList();
        RaftServerRpc rpc = member.getRaftServer().getServerRpc();
        for (RaftPeerId other : others) {
            try {
                if (rpc.startLeaderElection(request(member, active, last, other)).getServerReply().getSuccess()) {
                    return other;
                }
            } catch (IOException | RuntimeException notAnswered) {
                // down or unreachable: the next, then this member (whose election then needs the others' votes)
            }
        }
        boolean started = ((RaftServerProtocol) member).startLeaderElection(request(member, active, last, self))
                .getServerReply().getSuccess();
        return started ? self : null;
    }

    /**
     * Whether this member is the one that probes {@code active}: the first by id of the members that are not active.
     * One asks, so that two replicas raising the term at once do not split the vote (each then waits a timeout); on a
     * loaded machine the second's probe came before the first's vote request reached it. It has the election started
     * by whichever replica can win it ({@link #startElection}).
     */
    private boolean asks(RaftServer.Division member, RaftPeerId active) {
        return member.getRaftConf().getCurrentPeers().stream().map(RaftPeer::getId).filter(id -> !id.equals(active))
                .min(Comparator.comparing(RaftPeerId::toString)).map(self::equals).orElse(false);
    }

    /**
     * Why the member listening at {@code address} (host:port) is gone, or null when it may be there: a connection
     * refused, or closed or reset without a byte, within {@code timeoutMillis}, means nothing listens behind it; a
     * connection held open (a member's TLS listener waits for the handshake), a timeout or any other error says
     * nothing.
     */
    static String gone(String address, int timeoutMillis) {
        int colon = address.lastIndexOf(':');
        if (colon < 0) {
            return null;
        }
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(address.substring(0, colon),
                    Integer.parseInt(address.substring(colon + 1))), timeoutMillis);
            socket.setSoTimeout(timeoutMillis);
            InputStream in = socket.getInputStream();
            return in.read() < 0 ? "its replication address " + address + " closed a connection at once" : null;
        } catch (ConnectException e) {
            return "its replication address " + address + " refused a connection";
        } catch (SocketTimeoutException e) {
            return null; // held open: a listener is there
        } catch (SocketException e) {
            return e.getMessage() != null && e.getMessage().startsWith("Connection reset")
                    ? "its replication address " + address + " reset a connection at once" : null;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /**
     * Ratis's request that follower {@code to} start an election, as the active member {@code active} would send it
     * with its last entry {@code last} (the follower starts one only when its log holds at least that).
     */
    private static StartLeaderElectionRequestProto request(RaftServer.Division member, RaftPeerId active,
                                                           TermIndex last, RaftPeerId to) {
        RaftRpcRequestProto rpc = RaftRpcRequestProto.newBuilder()
                .setRequestorId(active.toByteString())
                .setReplyId(to.toByteString())
                .setRaftGroupId(RaftGroupIdProto.newBuilder().setId(member.getMemberId().getGroupId().toByteString()))
                .build();
        return StartLeaderElectionRequestProto.newBuilder().setServerRequest(rpc).setLeaderLastEntry(last.toProto())
                .build();
    }

    /** The elections this member had started (by itself or another replica) because the active member was gone. */
    int elections() {
        return elections.get();
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
