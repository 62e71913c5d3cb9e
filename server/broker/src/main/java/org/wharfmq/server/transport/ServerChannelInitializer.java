package org.wharfmq.server.transport;

import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.ssl.SslContext;
import org.wharfmq.protocol.frame.FrameDecoder;
import org.wharfmq.protocol.frame.FrameEncoder;
import org.wharfmq.protocol.frame.FrameReads;
import org.wharfmq.server.Configuration;

/**
 * Builds the pipeline of every accepted connection, TCP, TLS or in-VM alike:
 * <pre>
 * ssl         SslHandler                 TLS listener only: first, put there by TlsRequired once the first bytes
 *                                        are a TLS record (a plain client is told the port speaks TLS)
 * flush       CountingFlushHandler       many writes during one read burst leave in one flush (fewer syscalls);
 *                                        counts the bytes read and written, for the management view; weighs the
 *                                        writes for the outbound limit (message bodies weigh nothing)
 * decoder     FrameDecoder               bytes to Frame records; limit 8 KiB until HELLO_OK, then replaced by one
 *                                        whose limit is maxMessageLength + 64 KiB ({@link #handshakeDone}); a
 *                                        frame of 512 KiB or more is read into a buffer of its size, which the
 *                                        connection keeps for its next (LargeFrameBuffers); on plain TCP the
 *                                        socket is read straight into it (FrameReads; under TLS FrameReads only
 *                                        keeps a channel's reads at least one record long)
 * turn        ReadFairness               after 1 ms of one connection's frames, the loop serves the others first
 * outbound    OutboundLimit              stops reading while more than maxOutboundBytesPerConnection bytes wait to
 *                                        be sent (the channel's write buffer water marks), until half have left
 * encoder     FrameEncoder               Frame records to bytes; message bodies pass through uncopied
 * handshake   HandshakeHandler           HELLO, authentication, HELLO_OK (within the handshake timeout), then adds
 *   heartbeat   HeartbeatHandler         PING when nothing was flushed for an interval, close after 3 silent ones
 *             and replaces itself with:
 *   connection  ServerConnection         dispatches each frame to its session, consumer or queue; at each read's
 *                                        end hands what it delivered to other loops' sessions to those loops
 *               or StatusConnection      on a replica ({@link StatusListener}): the read-only admin commands alone
 * handshake   ConnectionRefusal          instead, for a TCP or TLS connection past maxConnections or
 *                                        maxConnectionsPerAddress ({@link ConnectionLimits}): answers its HELLO
 *                                        with TOO_MANY_CONNECTIONS and closes
 * </pre>
 * The decoder is replaced rather than given a limit it checks per frame, so a frame after the handshake costs what it
 * did before there was a handshake limit.
 */
public final class ServerChannelInitializer extends ChannelInitializer<Channel> {

    /** Pipeline name of the TLS handler on a TLS listener's connections. */
    static final String SSL = "ssl";
    /** Pipeline name of the frame decoder, replaced at HELLO_OK. */
    private static final String DECODER = "decoder";

    private final Doorway context;
    /** The write buffer water marks of every connection, from maxOutboundBytesPerConnection. */
    private final WriteBufferWaterMark outboundMarks;
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
        this(context.doorway(), sslContext);
    }

    /**
     * @param doorway    what the listener's connections share through their handshake
     * @param sslContext the TLS listener's one context; null = plain
     */
    ServerChannelInitializer(Doorway doorway, SslContext sslContext) {
        this.context = doorway;
        this.sslContext = sslContext;
        this.outboundMarks = OutboundLimit.waterMark(doorway.config().maxOutboundBytesPerConnection());
    }

    @Override
    protected void initChannel(Channel ch) {
        context.connections().add(ch);
        String refusal = context.connectionLimits().admit(ch);
        ChannelPipeline p = ch.pipeline();
        ch.config().setWriteBufferWaterMark(outboundMarks);
        if (sslContext != null) {
            p.addLast(SSL, new TlsRequired(sslContext));
            ch.config().setRecvByteBufAllocator(FrameReads.underTls(ch.config().getRecvByteBufAllocator()));
        } else if (ch instanceof SocketChannel) { // the bytes read are the frames': a large one is read in place
            ch.config().setRecvByteBufAllocator(new FrameReads(ch.config().getRecvByteBufAllocator()));
        }
        CountingFlushHandler flush = new CountingFlushHandler();
        ch.config().setMessageSizeEstimator(flush); // a message body does not count against the outbound limit
        p.addLast("flush", flush);
        p.addLast(DECODER, new FrameDecoder(Configuration.HANDSHAKE_MAX_FRAME_LENGTH));
        p.addLast("turn", new ReadFairness(Configuration.READ_TURN_NANOS, System::nanoTime));
        p.addLast("outbound", new OutboundLimit(outboundMarks.high()));
        p.addLast("encoder", FrameEncoder.INSTANCE);
        p.addLast("handshake", refusal == null ? new HandshakeHandler(context)
                : new ConnectionRefusal(refusal, context.config().handshakeTimeoutMillis()));
    }

    /**
     * The connection has completed its handshake (HELLO_OK): from now on it may send frames up to the maximum message
     * length plus room for the frame's fields. The bytes the handshake's decoder still holds pass on to the new one.
     */
    static void handshakeDone(ChannelPipeline pipeline, int maxFrameLength) {
        pipeline.replace(DECODER, DECODER, new FrameDecoder(maxFrameLength));
    }
}
