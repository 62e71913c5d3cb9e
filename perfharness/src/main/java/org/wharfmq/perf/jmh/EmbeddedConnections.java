package org.wharfmq.perf.jmh;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;
import org.wharfmq.protocol.ProtocolVersion;
import org.wharfmq.protocol.auth.Mechanisms;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.message.BodyType;
import org.wharfmq.protocol.message.WireDestination;
import org.wharfmq.protocol.message.WireMessage;
import org.wharfmq.server.transport.ServerChannelInitializer;
import org.wharfmq.server.transport.ServerContext;

/**
 * Client connections to a server's real pipeline ({@link EmbeddedServer}'s) as Netty embedded channels, for the
 * benchmarks of the server's path: the channel's event loop is the calling thread, so a frame written inbound is
 * handled, and what it causes written, before the call returns.
 */
final class EmbeddedConnections {

    /** The session every connection opens. */
    static final int SESSION = 1;

    private EmbeddedConnections() {
    }

    /** A connection through the handshake with session {@link #SESSION} open, and {@code clientId} set unless null. */
    static EmbeddedChannel connect(ServerContext context, String clientId) {
        EmbeddedChannel channel = new EmbeddedChannel(new ServerChannelInitializer(context));
        channel.writeInbound(new Frame.Hello(ProtocolVersion.CURRENT, "bench", 0));
        drop(channel);
        channel.writeInbound(new Frame.Auth(Mechanisms.ANONYMOUS, new byte[0]));
        drop(channel);
        if (clientId != null) {
            channel.writeInbound(new Frame.SetClientId(1, clientId));
            expectOk(channel);
        }
        channel.writeInbound(new Frame.CreateSession(1, SESSION, false, 1));
        expectOk(channel);
        return channel;
    }

    /**
     * Hands the channel one frame as its socket would, then runs what that scheduled: what {@code writeInbound(frame)}
     * does, without its varargs array, which the JIT removes only when the whole pipeline inlines into the benchmark
     * (so a change of the server's inlining moved the benchmark's allocation by that array's 24 bytes).
     */
    static void readInbound(EmbeddedChannel channel, Object frame) {
        channel.pipeline().fireChannelRead(frame);
        channel.pipeline().fireChannelReadComplete();
        channel.runPendingTasks();
        channel.checkException();
    }

    /** Takes the answer to the request just written, failing when there is none. */
    static void expectOk(EmbeddedChannel channel) {
        Object frame = channel.readOutbound();
        if (frame == null) {
            throw new IllegalStateException("no answer");
        }
        drop(channel);
        ReferenceCountUtil.release(frame);
    }

    /**
     * Runs the channel's pending tasks (the flush a delivery from another connection schedules), then releases the
     * buffers it wrote.
     *
     * @return how many (a DELIVER is one or more)
     */
    static int drop(EmbeddedChannel channel) {
        channel.runPendingTasks();
        int n = 0;
        Object out;
        while ((out = channel.readOutbound()) != null) {
            ReferenceCountUtil.release(out);
            n++;
        }
        return n;
    }

    /** A 2 KB BytesMessage to {@code target}, encoded as a client would, with a correlation id and one property. */
    static ByteBuf message(WireDestination target, boolean persistent) {
        WireMessage m = new WireMessage();
        m.bodyType = BodyType.BYTES;
        m.persistent = persistent;
        m.timestamp = 1_700_000_000_000L;
        m.messageId = "ID:bench-connection:1";
        m.correlationId = "corr-1";
        m.destination = target;
        m.replyTo = WireDestination.queue("REPLY");
        m.properties.put("perfSeq", 42L);
        m.body = new byte[2048];
        ByteBuf buf = Unpooled.directBuffer(2048 + 256);
        m.encode(buf);
        return buf;
    }
}
