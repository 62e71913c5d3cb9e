package org.wharfmq.server.transport;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.WriteBufferWaterMark;

/**
 * Stops reading a connection whose peer does not take what is written for it: once the bytes waiting to be sent
 * pass {@code maxOutboundBytesPerConnection} the channel turns unwritable (its write buffer's high water mark,
 * {@link #waterMark}), and this stops reading it; once its peer has taken half of them the channel turns writable
 * again and reading resumes. The bytes counted are the frames' but for message bodies (on a plain TCP connection;
 * under TLS they count too, {@link CountingFlushHandler#size}): answers, and the headers of deliveries, whose bodies
 * the consumers' credit bounds already. A client that sends requests and never reads the answers, or a partner flooding
 * CHANNEL_FAST_CONFIRM, then holds the server to about that many bytes of answers plus one read's worth, instead of
 * all it cares to ask for. The first hold of a connection is logged, naming it, the limit and the fix.
 *
 * <p>Nothing blocks: the event loop serves the connection's deliveries and its other connections as before; only
 * this connection's next frames wait in its socket (and then in the peer's, whose writes then wait: TCP's own
 * back-pressure). Deliveries keep their credit-based flow control; while reading is held, acknowledgements and credit
 * are read later. {@link ReadFairness}, which also stops and resumes reading, resumes only a writable channel, and
 * this resumes only when ReadFairness holds no frames. The heartbeat does not close a held connection while its peer
 * still takes what is sent ({@link #peerTakesAnswers}).
 *
 * <p>No cost per frame: Netty counts the bytes waiting and fires the change of writability; this handler sees only
 * those events. Owned by the connection's event loop.
 */
final class OutboundLimit extends ChannelInboundHandlerAdapter {

    private static final System.Logger LOG = System.getLogger(OutboundLimit.class.getName());

    private final int limit;
    private ReadFairness fairness;
    /** Whether this holds the connection's reading now. */
    private boolean holding;
    /** Whether this connection's first hold was logged. */
    private boolean logged;
    /** The bytes waiting ({@link #unsentBytes}) at the last look of the heartbeat. */
    private long unsentAtLastLook;

    /** @param limit the most bytes waiting before reading stops ({@code maxOutboundBytesPerConnection}) */
    OutboundLimit(int limit) {
        this.limit = limit;
    }

    /** The channel's write buffer water marks for {@code limit}: unwritable past it, writable again at half. */
    static WriteBufferWaterMark waterMark(int limit) {
        return new WriteBufferWaterMark(limit / 2, limit);
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        fairness = ctx.pipeline().get(ReadFairness.class);
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        Channel channel = ctx.channel();
        if (!channel.isWritable()) {
            hold(channel);
        } else if (holding) {
            holding = false;
            if (!ProtocolFailures.isClosing(ctx) && (fairness == null || !fairness.holding())) {
                channel.config().setAutoRead(true);
            }
        }
        ctx.fireChannelWritabilityChanged();
    }

    private void hold(Channel channel) {
        if (holding) {
            return;
        }
        holding = true;
        unsentAtLastLook = unsentBytes(channel);
        channel.config().setAutoRead(false);
        if (!logged) {
            logged = true;
            LOG.log(System.Logger.Level.WARNING, () -> "Connection from " + channel.remoteAddress() + " has "
                    + unsentBytes(channel) + " bytes written for it that it has not taken, more than"
                    + " maxOutboundBytesPerConnection (" + limit + "): the server reads nothing more from it until it has"
                    + " taken half of them. A client that sends requests without reading the answers stays held here:"
                    + " make it read them (or raise maxOutboundBytesPerConnection for a client that reads them late)."
                    + " Logged once per connection.");
        }
    }

    /** Whether this holds the connection's reading now (the management view). */
    boolean holding() {
        return holding;
    }

    /**
     * For the heartbeat, which found nothing read for its dead interval: true when that is this hold's doing and the
     * peer has taken some of what waits since the last look (fewer bytes wait: it is alive, only slow), false
     * otherwise (a peer that takes nothing is as dead as a silent one).
     */
    boolean peerTakesAnswers(Channel channel) {
        long unsent = unsentBytes(channel);
        boolean progressed = unsent < unsentAtLastLook;
        unsentAtLastLook = unsent;
        return holding && progressed;
    }

    /**
     * The bytes written for the connection that its socket has not taken yet, as the channel's write buffer counts
     * them: message bodies are not counted on a plain connection ({@link CountingFlushHandler#size}).
     */
    static long unsentBytes(Channel channel) {
        ChannelOutboundBuffer outbound = channel.unsafe().outboundBuffer();
        return outbound == null ? 0 : outbound.totalPendingWriteBytes();
    }
}
