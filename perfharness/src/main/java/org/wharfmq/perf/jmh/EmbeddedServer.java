package org.wharfmq.perf.jmh;

import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.util.concurrent.GlobalEventExecutor;
import org.wharfmq.server.config.ServerConfig;
import org.wharfmq.server.queue.QueueManager;
import org.wharfmq.server.security.AccessControl;
import org.wharfmq.server.security.Authenticator;
import org.wharfmq.server.security.Logins;
import org.wharfmq.server.store.InMemoryMessageStore;
import org.wharfmq.server.topic.TopicManager;
import org.wharfmq.server.transport.ServerContext;

import java.time.InstantSource;

/**
 * The queue manager of the benchmarks of the server's path ({@link ServerPathBenchmark}, {@link FanOutBenchmark},
 * {@link CommitPathBenchmark}): queues and topics on the in-memory store, whose completion runs inline (a persistent
 * send pays the session's store path but no journal), no heartbeats, room for a run's backlog; every client allowed
 * everything, anonymous logins from anywhere (an embedded channel has no loopback address). Its clients are
 * {@link EmbeddedConnections}. Owned by one benchmark's state, on its thread.
 */
final class EmbeddedServer implements AutoCloseable {

    private final QueueManager queues;
    private final TopicManager topics;
    private final ServerContext context;

    EmbeddedServer() {
        ServerConfig config = ServerConfig.builder().heartbeatMillis(0).maxQueueDepth(1_000_000).build();
        queues = new QueueManager(config, new InMemoryMessageStore(), InstantSource.system());
        topics = new TopicManager(config, queues);
        context = new ServerContext(config, queues, topics, AccessControl.allowAll(),
                new DefaultChannelGroup(GlobalEventExecutor.INSTANCE), "bench",
                new Logins(Authenticator.noUsers(Authenticator.AnonymousAccess.ANYWHERE)));
    }

    /** A connection through the handshake ({@link EmbeddedConnections#connect}), {@code clientId} set unless null. */
    EmbeddedChannel connect(String clientId) {
        return EmbeddedConnections.connect(context, clientId);
    }

    /** How many messages {@code queue} holds. */
    long depth(String queue) {
        return queues.depth(queue);
    }

    @Override
    public void close() {
        topics.close();
        queues.close();
    }
}
