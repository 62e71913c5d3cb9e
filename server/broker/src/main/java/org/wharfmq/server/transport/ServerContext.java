package org.wharfmq.server.transport;

import io.netty.channel.group.ChannelGroup;
import org.wharfmq.server.Configuration;
import org.wharfmq.server.config.ServerConfig;
import org.wharfmq.server.queue.QueueManager;
import org.wharfmq.server.security.AccessControl;
import org.wharfmq.server.security.Logins;
import org.wharfmq.server.session.XaBranches;
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
 * @param connectionKeys the connection keys connections hold (CLAIM_KEY)
 * @param connections   every open client connection, TCP and in-VM
 * @param serverVersion the version reported in HELLO_OK
 * @param logins        who may connect: the handshake's authenticator and throttle
 * @param connectionLimits the count of network connections against maxConnections and maxConnectionsPerAddress
 * @param xaBranches    the XA transaction branches, each its starting user's (and an admin's, for recovery)
 * @param openConnections the connections past their handshake, by number: what the management view sees and ends
 * @param channelAcceptor the plugin that receives channels from other queue managers (CHANNEL_OPEN), if any
 */
public record ServerContext(ServerConfig config, QueueManager queueManager, TopicManager topicManager,
                            AccessControl accessControl, ClientIds clientIds, ConnectionKeys connectionKeys,
                            ChannelGroup connections, String serverVersion, Logins logins,
                            ConnectionLimits connectionLimits, XaBranches xaBranches, OpenConnections openConnections,
                            ChannelAcceptorSlot channelAcceptor) {

    /** A server's context, with no client ID or connection key in use, no connection counted yet and no XA branch. */
    public ServerContext(ServerConfig config, QueueManager queueManager, TopicManager topicManager,
                         AccessControl accessControl, ChannelGroup connections, String serverVersion, Logins logins) {
        this(config, queueManager, topicManager, accessControl, connections, serverVersion, logins,
                new ConnectionLimits(config), new XaBranches(queueManager.persistence(), topicManager, queueManager.clock()), new OpenConnections());
    }

    /**
     * A server's context, with no client ID or connection key in use; its connections counted in
     * {@code connectionLimits}, its XA branches (those recovery restored among them) in {@code xaBranches}, its
     * connections past their handshake in {@code openConnections}.
     */
    public ServerContext(ServerConfig config, QueueManager queueManager, TopicManager topicManager,
                         AccessControl accessControl, ChannelGroup connections, String serverVersion, Logins logins,
                         ConnectionLimits connectionLimits, XaBranches xaBranches, OpenConnections openConnections) {
        this(config, queueManager, topicManager, accessControl, new ClientIds(), new ConnectionKeys(), connections,
                serverVersion, logins, connectionLimits, xaBranches, openConnections, new ChannelAcceptorSlot());
    }

    /** What the queue manager's listeners share through the handshake: every connection becomes a ServerConnection. */
    Doorway doorway() {
        ServerContext context = this;
        return new Doorway(config, logins, accessControl, serverVersion, connections, connectionLimits, new Admission() {
            @Override
            public String refusal(org.wharfmq.protocol.frame.Frame.Hello hello) {
                return null; // the active queue manager serves every client; STATUS_SESSION asks nothing of it
            }

            @Override
            public void check(org.wharfmq.server.security.Identity who, java.net.SocketAddress peer) {
                // the connect permission (AccessControl.admit) is all a session needs
            }

            @Override
            public int helloOkFlags() {
                return 0;
            }

            @Override
            public io.netty.channel.ChannelHandler connection(org.wharfmq.protocol.frame.Frame.Hello hello,
                                                              org.wharfmq.server.security.Identity identity,
                                                              Runnable giveBack) {
                return new ServerConnection(context, hello.clientName(), identity, giveBack);
            }

            @Override
            public int maxFrameLength() {
                return context.maxFrameLength();
            }
        });
    }

    /** The decoder's limit: the longest message plus room for the frame's own fields. */
    public int maxFrameLength() {
        return config.maxMessageLength() + Configuration.FRAME_OVERHEAD_ALLOWANCE;
    }
}
