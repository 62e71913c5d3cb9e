package org.wharfmq.server.transport;

import io.netty.channel.Channel;
import org.wharfmq.server.config.ServerConfig;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts a server's client connections over TCP and TLS, in total and per peer IP address, and refuses one past
 * {@code maxConnections} or {@code maxConnectionsPerAddress} (as IBM MQ's MAXINST and MAXINSTC, or Artemis's
 * connectionsAllowed, do). A connection is counted when it is accepted ({@link ServerChannelInitializer}), before it
 * has sent a byte, and released when its channel closes, whatever closes it (the client, a protocol error, a failed
 * handshake or TLS handshake, the server stopping): the channel's close future fires exactly once.
 *
 * <p>In-VM connections are not counted: they come from code inside the server's process (its flows, its plugins, an
 * embedding application), which could exhaust the server's memory by other means anyway, and refusing the server's
 * own flows because network clients hold every place would turn a flood from outside into an outage inside.
 *
 * <p>The HTTP listener (module server/http) keeps an instance of its own, with the same settings, for its connections.
 *
 * <p>Threading: called from every event loop; the total is an atomic counter, the counts per address a concurrent
 * map whose entry goes when its count reaches zero, so addresses seen once are not kept.
 */
public final class ConnectionLimits {

    private final String server;
    private final int maxConnections;
    private final int maxPerAddress;
    private final AtomicInteger total = new AtomicInteger();
    private final ConcurrentHashMap<InetAddress, Integer> perAddress = new ConcurrentHashMap<>();

    /** The limits of a server with these settings, no connection counted yet. */
    public ConnectionLimits(ServerConfig config) {
        this.server = config.name();
        this.maxConnections = config.maxConnections();
        this.maxPerAddress = config.maxConnectionsPerAddress();
    }

    /** Client connections over TCP and TLS open now, as {@code maxConnections} counts them. */
    public int count() {
        return total.get();
    }

    /**
     * Counts a connection just accepted, until its channel closes, or refuses it.
     *
     * @return null when the connection is admitted (or not counted: in-VM), else what the client is told: which limit,
     * the count and the setting
     */
    public String admit(Channel channel) {
        if (!(channel.remoteAddress() instanceof InetSocketAddress peer) || peer.getAddress() == null) {
            return null;
        }
        InetAddress address = peer.getAddress();
        if (total.incrementAndGet() > maxConnections) {
            total.decrementAndGet();
            return refusal(address, maxConnections + " client connections, its maximum", "maxConnections",
                    "Close connections that are not needed, or raise maxConnections.");
        }
        boolean[] full = {false};
        perAddress.compute(address, (a, n) -> {
            int count = n == null ? 0 : n;
            full[0] = count >= maxPerAddress;
            return full[0] ? n : count + 1;
        });
        if (full[0]) {
            total.decrementAndGet();
            return refusal(address, maxPerAddress + " connections from that address, its maximum",
                    "maxConnectionsPerAddress", "Close connections this address does not need, or raise"
                            + " maxConnectionsPerAddress (clients behind one NAT or proxy share its address).");
        }
        channel.closeFuture().addListener(closed -> release(address));
        return null;
    }

    private void release(InetAddress address) {
        perAddress.computeIfPresent(address, (a, n) -> n == 1 ? null : n - 1);
        total.decrementAndGet();
    }

    private String refusal(InetAddress address, String held, String setting, String fix) {
        return "Connection from " + address.getHostAddress() + " refused: queue manager " + server + " already has "
                + held + " (setting " + setting + "). " + fix;
    }
}
