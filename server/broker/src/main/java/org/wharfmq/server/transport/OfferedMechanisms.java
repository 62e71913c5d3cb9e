package org.wharfmq.server.transport;

import io.netty.channel.Channel;
import io.netty.channel.local.LocalChannel;
import org.wharfmq.protocol.auth.Mechanisms;
import org.wharfmq.server.security.Authenticator;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * Which authentication mechanisms one connection is offered, in the server's order of preference: EXTERNAL when the
 * connection's verified TLS client certificate is mapped to a user ({@link Authenticator#certificateUser});
 * SCRAM-SHA-256 when users are configured (in-process also when a plugin acts as a user: InProcessLogins); PLAIN only over TLS and when a login module checks passwords (the password
 * crosses the wire); ANONYMOUS over the in-VM listener (in-process code), and over TCP as
 * {@link Authenticator#anonymousAccess()} says.
 */
final class OfferedMechanisms {

    private OfferedMechanisms() {
    }

    /**
     * The mechanisms for a connection on {@code channel}; empty when this client can use none.
     *
     * @param certificateMapped whether the connection's client certificate is mapped to a user
     * @param inProcessLogins   whether plugins act as users ({@link org.wharfmq.server.security.InProcessLogins})
     */
    static List<String> of(Authenticator authenticator, Channel channel, boolean certificateMapped,
                           boolean inProcessLogins) {
        List<String> offered = new ArrayList<>(4);
        if (certificateMapped) {
            offered.add(Mechanisms.EXTERNAL);
        }
        if (authenticator.hasUsers() || (inProcessLogins && inProcess(channel))) {
            offered.add(Mechanisms.SCRAM_SHA_256);
        }
        if (authenticator.plainAvailable() && TlsPeer.isTls(channel)) {
            offered.add(Mechanisms.PLAIN);
        }
        if (inProcess(channel) || switch (authenticator.anonymousAccess()) {
            case ANYWHERE -> true;
            case LOOPBACK -> isLoopback(channel);
            case NOWHERE -> false;
        }) {
            offered.add(Mechanisms.ANONYMOUS);
        }
        return offered;
    }

    /** Whether the connection came through the in-VM listener: code inside the server's process. */
    static boolean inProcess(Channel channel) {
        return channel instanceof LocalChannel;
    }

    /** Whether the peer is on this machine (127.0.0.0/8, ::1). */
    static boolean isLoopback(Channel channel) {
        return channel.remoteAddress() instanceof InetSocketAddress a && a.getAddress() != null
                && a.getAddress().isLoopbackAddress();
    }
}
