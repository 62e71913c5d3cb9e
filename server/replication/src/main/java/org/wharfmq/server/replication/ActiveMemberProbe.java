package org.wharfmq.server.replication;

import org.apache.ratis.proto.RaftProtos.RaftGroupIdProto;
import org.apache.ratis.proto.RaftProtos.RaftRpcRequestProto;
import org.apache.ratis.proto.RaftProtos.RoleInfoProto;
import org.apache.ratis.proto.RaftProtos.StartLeaderElectionRequestProto;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftServer;
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
 * closed or reset: the replica asks for the votes at once, as the target of a switchover does (Ratis's
 * {@code startLeaderElection}: no pre-vote, the term raised first). The other replica grants its vote at the higher
 * term when this one's log holds at least what its own does, as in any election: Raft's safety is the votes', never
 * the timing's. Held open, not answered in time, or any other error: nothing is done, and the election timeout decides
 * as before.
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
    /** The elections this member asked for because the active member was gone. */
    private final AtomicInteger elections = new AtomicInteger();

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
            if (last == null || last.getTerm() != info.getCurrentTerm() || !active.equals(info.getLeaderId())) {
                return; // nothing of its term here yet, or a new leader meanwhile: the timeout decides
            }
            boolean started = ((RaftServerProtocol) member).startLeaderElection(request(member, active, last))
                    .getServerReply().getSuccess();
            if (started) {
                elections.incrementAndGet();
                LOG.log(System.Logger.Level.INFO, () -> "Replication member " + self + " of group '" + group
                        + "': the active member " + active + " is gone (heard nothing for " + silentMillis + " ms, "
                        + gone + "): this member asks for the votes now, not after the election timeout");
            }
        } catch (IOException | RuntimeException e) {
            // the member closing, a role changed meanwhile: the next round, or the election timeout, decides
            LOG.log(System.Logger.Level.DEBUG, () -> "Probing the active member: " + e);
        }
    }

    /**
     * Whether this member is the one that probes {@code active}: the first by id of the members that are not active.
     * One asks, so that two replicas raising the term at once do not split the vote (each then waits a timeout); on a
     * loaded machine the second's probe came before the first's vote request reached it. The others, and the first
     * when its log is behind (its election refused), are left to the election timeout.
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

    /** Ratis's request that a follower start an election, as the active member {@code active} would send it. */
    private static StartLeaderElectionRequestProto request(RaftServer.Division member, RaftPeerId active,
                                                           TermIndex last) {
        RaftRpcRequestProto rpc = RaftRpcRequestProto.newBuilder()
                .setRequestorId(active.toByteString())
                .setReplyId(member.getId().toByteString())
                .setRaftGroupId(RaftGroupIdProto.newBuilder().setId(member.getMemberId().getGroupId().toByteString()))
                .build();
        return StartLeaderElectionRequestProto.newBuilder().setServerRequest(rpc).setLeaderLastEntry(last.toProto())
                .build();
    }

    /** The elections this member asked for because the active member was gone, since it started. */
    int elections() {
        return elections.get();
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
