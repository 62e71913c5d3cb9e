package org.wharfmq.server.transport;

import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.flush.FlushConsolidationHandler;
import io.netty.handler.ssl.SslContext;
import org.wharfmq.protocol.frame.FrameDecoder;
import org.wharfmq.protocol.frame.FrameEncoder;
import org.wharfmq.server.Configuration;

/**
 * Builds the pipeline of every accepted connection, TCP, TLS or in-VM alike:
 * <pre>
 * ssl         SslHandler                 TLS listener only: first, put there by TlsRequired once the first bytes
 *                                        are a TLS record (a plain client is told the port speaks TLS)
 * flush       FlushConsolidationHandler  many writes during one read burst leave in one flush (fewer syscalls)
 * decoder     FrameDecoder               bytes to Frame records; limit = maxMessageLength + 64 KiB
 * turn        ReadFairness               after 1 ms of one connection's frames, the loop serves the others first
 * encoder     FrameEncoder               Frame records to bytes; message bodies pass through uncopied
 * handshake   HandshakeHandler           HELLO, authentication, HELLO_OK (within the handshake timeout), then adds
 *   heartbeat   HeartbeatHandler         PING when nothing was written for an interval, close after 3 silent ones
 *             and replaces itself with:
 *   connection  ServerConnection         dispatches each frame to its session, consumer or queue
 * </pre>
 */
public final class ServerChannelInitializer extends ChannelInitializer<Channel> {

    /** Pipeline name of the TLS handler on a TLS listener's connections. */
    static final String SSL = "ssl";

    private final ServerContext context;
    /** The TLS listener's context; null for the plain and in-VM listeners. */
    private final SslContext sslContext;

    /** @param context what all connections of the server share */
    public ServerChannelInitializer(ServerContext context) {
        this(context, null);
    }

    /**
     * @param context    what all connections of the server share
     * @param sslContext the TLS listener's one context (every connection's SslHandler comes from it); null = plain
     */
    public ServerChannelInitializer(ServerContext context, SslContext sslContext) {
        this.context = context;
        this.sslContext = sslContext;
    }

    @Override
    protected void initChannel(Channel ch) {
        context.connections().add(ch);
        ChannelPipeline p = ch.pipeline();
        if (sslContext != null) {
            p.addLast(SSL, new TlsRequired(sslContext));
        }
        p.addLast("flush", new FlushConsolidationHandler(FlushConsolidationHandler.DEFAULT_EXPLICIT_FLUSH_AFTER_FLUSHES, true));
        p.addLast("decoder", new FrameDecoder(context.maxFrameLength()));
        p.addLast("turn", new ReadFairness(Configuration.READ_TURN_NANOS, System::nanoTime));
        p.addLast("encoder", FrameEncoder.INSTANCE);
        p.addLast("handshake", new HandshakeHandler(context));
    }
}
