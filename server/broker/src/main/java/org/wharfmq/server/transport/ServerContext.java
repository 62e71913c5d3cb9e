package org.wharfmq.server.transport;

import io.netty.channel.group.ChannelGroup;
import org.wharfmq.server.Configuration;
import org.wharfmq.server.config.ServerConfig;
import org.wharfmq.server.queue.QueueManager;
import org.wharfmq.server.security.AccessControl;
import org.wharfmq.server.security.Logins;
import org.wharfmq.server.topic.TopicManager;

/**
 * What every connection of one server shares: its settings, its queues and topics, the client IDs in use, the
 * group of open connections the server closes when it stops, and their count against the connection limits.
 *
 * @param config        the server's settings
 * @param queueManager  the queues
 * @param topicManager  topics and subscriptions
 * @param accessControl who may do what
 * @param clientIds     the client IDs connections hold
 * @param connections   every open client connection, TCP and in-VM
 * @param serverVersion the version reported in HELLO_OK
 * @param logins        who may connect: the handshake's authenticator and throttle
 * @param connectionLimits the count of network connections against maxConnections and maxConnectionsPerAddress
 * @param openConnections the connections past their handshake, by number: what the management view sees and ends
 */
public record ServerContext(ServerConfig config, QueueManager queueManager, TopicManager topicManager,
                            AccessControl accessControl, ClientIds clientIds, ChannelGroup connections,
                            String serverVersion, Logins logins, ConnectionLimits connectionLimits,
                            OpenConnections openConnections) {

    /** A server's context, with no client ID in use and no connection counted yet. */
    public ServerContext(ServerConfig config, QueueManager queueManager, TopicManager topicManager,
                         AccessControl accessControl, ChannelGroup connections, String serverVersion, Logins logins) {
        this(config, queueManager, topicManager, accessControl, connections, serverVersion, logins,
                new ConnectionLimits(config));
    }

    /** A server's context, with no client ID in use; its connections counted in {@code connectionLimits}. */
    public ServerContext(ServerConfig config, QueueManager queueManager, TopicManager topicManager,
                         AccessControl accessControl, ChannelGroup connections, String serverVersion, Logins logins,
                         ConnectionLimits connectionLimits) {
        this(config, queueManager, topicManager, accessControl, connections, serverVersion, logins, connectionLimits,
                new OpenConnections());
    }

    /**
     * A server's context, with no client ID in use; its connections counted in {@code connectionLimits} and listed
     * in {@code openConnections} once past their handshake.
     */
    public ServerContext(ServerConfig config, QueueManager queueManager, TopicManager topicManager,
                         AccessControl accessControl, ChannelGroup connections, String serverVersion, Logins logins,
                         ConnectionLimits connectionLimits, OpenConnections openConnections) {
        this(config, queueManager, topicManager, accessControl, new ClientIds(), connections, serverVersion, logins,
                connectionLimits, openConnections);
    }

    /** The decoder's limit: the longest message plus room for the frame's own fields. */
    public int maxFrameLength() {
        return config.maxMessageLength() + Configuration.FRAME_OVERHEAD_ALLOWANCE;
    }
}
