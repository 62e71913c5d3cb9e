package org.wharfmq.server.transport;

import io.netty.channel.group.ChannelGroup;
import org.wharfmq.server.config.ServerConfig;
import org.wharfmq.server.security.AccessControl;
import org.wharfmq.server.security.Logins;

/**
 * What a client listener's connections share up to and through their handshake ({@link ServerChannelInitializer},
 * {@link HandshakeHandler}): the settings, who may log in, the permissions, the connections open and their count
 * against the connection limits, and what an authenticated connection becomes ({@link Admission}). The active queue
 * manager's is {@link ServerContext#doorway()}; a replica's is its {@link StatusListener}'s.
 *
 * @param serverVersion the version reported in HELLO_OK
 */
record Doorway(ServerConfig config, Logins logins, AccessControl accessControl, String serverVersion,
               ChannelGroup connections, ConnectionLimits connectionLimits, Admission admission) {
}
