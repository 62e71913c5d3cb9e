package org.wharfmq.server.replication;

import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerRpc;
import org.apache.ratis.server.RaftServerRpcWithProxy;
import org.apache.ratis.util.PeerProxyMap;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Keeps a member that does not lead able to reach the others within a heartbeat interval of their coming back, so
 * that an election finds every member that runs.
 *
 * <p>Why: each member calls each other one over one gRPC channel (Ratis's), and a channel whose connection failed
 * tries again after gRPC's backoff: 1 s, growing 1.6 times at each failure, up to 2 minutes. Ratis resets that
 * backoff only on the active member's appender. A replica calls the others only to ask for votes, so a replica whose
 * votes met a stopped member (after a kill -9 of the active one, the stopped member among the two it asked) kept
 * backing off while that member was down, and once it ran again the replica's calls failed at once until the backoff
 * ran out: 10 to 30 s after a member down for 20 s. An election that needed that member's vote waited as long
 * (docs/performance-log.md, "the second kill"). Here every
 * {@link ReplicationConfiguration#heartbeatIntervalMillis heartbeat interval}, while this member does not lead, each of
 * its channels in that state connects again at once (gRPC's {@code ManagedChannel.resetConnectBackoff}, through Ratis's
 * package-private client: nothing for a channel connected or connecting), so a member down is tried a few times a
 * second by each replica, and a member back is reached at the next try.
 *
 * <p>Threads: one daemon timer of its own; {@link #close} stops it.
 */
final class PeerReconnects implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(PeerReconnects.class.getName());
    /** Ratis's gRPC client of one peer (package-private in Ratis 3.2.1), and its method that resets the backoff. */
    private static final String CLIENT = "org.apache.ratis.grpc.server.GrpcServerProtocolClient";
    private static final String RESET = "resetConnectBackoff";

    private final RaftServer server;
    private final Supplier<RaftServer.Division> division;
    private final Method reset;
    private final ScheduledExecutorService timer;
    /** Whether a failed reset was reported (once); the timer's thread alone reads and writes it. */
    private boolean warned;

    private PeerReconnects(RaftServer server, Supplier<RaftServer.Division> division, Method reset, String self) {
        this.server = server;
        this.division = division;
        this.reset = reset;
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "wharf-replication-reconnects-" + self);
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Starts resetting the backoff of {@code server}'s channels to its peers every {@code intervalMillis} while
     * {@code division} (its group's) does not lead.
     *
     * @throws IllegalStateException when this Ratis version's gRPC client has no such method (named)
     */
    static PeerReconnects start(RaftServer server, Supplier<RaftServer.Division> division, String self,
                                long intervalMillis) {
        Method reset;
        try {
            reset = Class.forName(CLIENT).getMethod(RESET);
            reset.setAccessible(true);
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException("This Ratis version's gRPC client (" + CLIENT + ") has no " + RESET
                    + "(): the replication needs Ratis 3.2.1's (" + e + ").", e);
        }
        PeerReconnects reconnects = new PeerReconnects(server, division, reset, self);
        reconnects.timer.scheduleWithFixedDelay(reconnects::resetUnlessLeading, intervalMillis, intervalMillis,
                TimeUnit.MILLISECONDS);
        return reconnects;
    }

    /** While this member does not lead: each peer's channel that waits out a backoff connects again now. */
    private void resetUnlessLeading() {
        try {
            RaftServer.Division group = division.get();
            if (group == null || !group.getInfo().isAlive() || group.getInfo().isLeader()) {
                return; // the active member's appenders reset their own channels (Ratis's)
            }
            RaftServerRpc rpc = server.getServerRpc();
            if (!(rpc instanceof RaftServerRpcWithProxy<?, ?> proxies)) {
                return;
            }
            PeerProxyMap<?> peers = proxies.getProxies();
            for (RaftPeer peer : group.getRaftConf().getCurrentPeers()) {
                RaftPeerId id = peer.getId();
                if (!id.equals(server.getId())) {
                    reset.invoke(peers.getProxy(id));
                }
            }
        } catch (InvocationTargetException | IllegalAccessException e) {
            if (!warned) {
                warned = true; // said once: the channels then keep gRPC's own backoff
                LOG.log(System.Logger.Level.WARNING, "The replication's channels to the other members cannot be told "
                        + "to connect again at once (" + e + "): after a member was down, an election may wait for "
                        + "gRPC's backoff (up to 2 minutes) to reach it.", e);
            }
        } catch (java.io.IOException | RuntimeException e) {
            // a peer removed meanwhile, the server closing: the next round tries again
            LOG.log(System.Logger.Level.DEBUG, () -> "Reconnecting the replication's channels: " + e);
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
