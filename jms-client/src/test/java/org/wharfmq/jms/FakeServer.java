package org.wharfmq.jms;

import org.wharfmq.protocol.ProtocolVersion;
import org.wharfmq.protocol.auth.Mechanisms;
import java.util.List;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.DefaultEventLoopGroup;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.local.LocalAddress;
import io.netty.channel.local.LocalServerChannel;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.wharfmq.jms.message.MessageCodec;
import org.wharfmq.jms.message.WharfMessage;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.frame.FrameDecoder;
import org.wharfmq.protocol.frame.FrameEncoder;
import org.wharfmq.protocol.message.WireDestination;
import org.wharfmq.protocol.message.WireMessage;

import java.net.InetSocketAddress;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A scripted stand-in for the Wharf server, speaking real frames over a local (vm://) or TCP channel. It answers
 * HELLO (offering {@link #mechanisms}) and an anonymous AUTH and, by default, every request with a non-zero id with OK; a test can replace the answer per frame with
 * {@link #answer}, and sees every frame the client sent (PINGs, and AUTH unless {@link #recordAuth}, excepted)
 * through {@link #expect}. CLAIM_KEY, which every connection sends first, is answered and not recorded.
 */
final class FakeServer implements AutoCloseable {
    private static final AtomicInteger NAMES = new AtomicInteger();

    private final EventLoopGroup group;
    private final Channel serverChannel;
    private final BlockingQueue<Frame> received = new LinkedBlockingQueue<>();
    private final BlockingQueue<Channel> accepted = new LinkedBlockingQueue<>();
    private final String url;
    volatile int maxMessageLength = 1 << 20;
    volatile int heartbeatMillis = 0;
    volatile boolean recordPings;
    volatile boolean recordAuth;
    /** Whether a new session gets (all the) producer credit at once, as a server with room grants its first window. */
    volatile boolean grantsCredit = true;
    /** The protocol version HELLO_OK answers: a server of an older version with {@link ProtocolVersion#OLDEST}. */
    volatile short version = ProtocolVersion.CURRENT;
    /** The mechanisms offered in answer to HELLO. */
    volatile List<String> mechanisms = List.of(Mechanisms.ANONYMOUS);
    /** Returned by {@link #answer} to send no answer at all (the test answers later with {@link #send}). */
    static final Frame SILENCE = new Frame.Ok(-1);
    /** Returns the answer to a frame, or null for the default answer. */
    volatile Function<Frame, Frame> answer = f -> null;
    private volatile Channel client;

    private FakeServer(boolean tcp) throws InterruptedException {
        group = tcp ? new NioEventLoopGroup(1) : new DefaultEventLoopGroup(1);
        ServerBootstrap b = new ServerBootstrap().group(group)
                .channel(tcp ? NioServerSocketChannel.class : LocalServerChannel.class)
                .childHandler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(new FrameDecoder(Integer.MAX_VALUE - 16), FrameEncoder.INSTANCE, new Handler());
                    }
                });
        if (tcp) {
            serverChannel = b.bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
            url = "tcp://127.0.0.1:" + ((InetSocketAddress) serverChannel.localAddress()).getPort();
        } else {
            String name = "fake-wharf-" + NAMES.incrementAndGet();
            serverChannel = b.bind(new LocalAddress(name)).sync().channel();
            url = "vm://" + name;
        }
    }

    static FakeServer inVm() throws InterruptedException {
        return new FakeServer(false);
    }

    static FakeServer tcp() throws InterruptedException {
        return new FakeServer(true);
    }

    String url() {
        return url;
    }

    /** The server side of the first accepted connection. */
    Channel client() throws InterruptedException {
        if (client == null) {
            client = accepted.poll(5, TimeUnit.SECONDS);
            assertNotNull(client, "no client connected");
        }
        return client;
    }

    /**
     * Waits for the client's next connection (a reconnection) and makes it the one {@link #client()} and
     * {@link #send} use from now on.
     */
    Channel reconnected() throws InterruptedException {
        Channel next = accepted.poll(5, TimeUnit.SECONDS);
        assertNotNull(next, "the client did not connect again");
        client = next;
        return next;
    }

    void send(Frame frame) throws InterruptedException {
        client().writeAndFlush(frame).sync();
    }

    /** Delivers a message encoded the way the real server passes it on: the producer's bytes, unchanged. */
    void deliver(int consumerId, long deliveryId, int deliveryCount, WireMessage message) throws InterruptedException {
        ByteBuf buf = Unpooled.buffer();
        message.encode(buf);
        send(new Frame.Deliver(consumerId, deliveryId, deliveryCount, buf));
    }

    /** The bytes of {@code message} as a DELIVER carries it: what a consumer's window in bytes counts. */
    static int encodedLength(WireMessage message) {
        ByteBuf buf = Unpooled.buffer();
        message.encode(buf);
        int length = buf.readableBytes();
        buf.release();
        return length;
    }

    static WireMessage text(String text) {
        WireMessage m = new WireMessage();
        m.bodyType = org.wharfmq.protocol.message.BodyType.TEXT;
        m.body = text.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        m.destination = WireDestination.queue("Q");
        m.messageId = "ID:test:" + NAMES.incrementAndGet();
        return m;
    }

    /** The next frame the client sent, which must be of the given type. */
    <T extends Frame> T expect(Class<T> type) throws InterruptedException {
        Frame f = received.poll(5, TimeUnit.SECONDS);
        if (f == null) {
            fail("expected " + type.getSimpleName() + " but the client sent nothing");
        }
        if (!type.isInstance(f)) {
            fail("expected " + type.getSimpleName() + " but got " + f);
        }
        return type.cast(f);
    }

    /** The next frame, or null if none comes within the time. */
    Frame poll(long millis) throws InterruptedException {
        return received.poll(millis, TimeUnit.MILLISECONDS);
    }

    /** Decodes the message of a SEND the client made. */
    static WharfMessage decode(Frame.Send send) {
        try {
            return MessageCodec.decode(send.message().duplicate(), 1);
        } finally {
            send.message().release();
        }
    }

    @Override
    public void close() throws InterruptedException {
        serverChannel.close().sync();
        Channel c = client;
        if (c != null) {
            c.close().sync();
        }
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }

    private final class Handler extends ChannelInboundHandlerAdapter {
        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            accepted.add(ctx.channel());
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            Frame f = (Frame) msg;
            if (f instanceof Frame.Ping && !recordPings) {
                return;
            }
            if (f instanceof Frame.ClaimKey claim) {
                // every connection claims its key first (not waited for); the tests here are about what follows
                if (claim.requestId() != 0) {
                    ctx.writeAndFlush(new Frame.Ok(claim.requestId()));
                }
                return;
            }
            if (!(f instanceof Frame.Auth) || recordAuth) {
                received.add(f);
            }
            Frame reply = answer.apply(f);
            if (reply == null) {
                reply = defaultAnswer(f);
            }
            if (f instanceof Frame.CreateSession session && grantsCredit) {
                ctx.write(new Frame.ProducerCredit(session.sessionId(), Integer.MAX_VALUE)); // as a server opens a session
            }
            if (reply != null && reply != SILENCE) {
                ctx.writeAndFlush(reply);
            }
        }

        private Frame defaultAnswer(Frame f) {
            if (f instanceof Frame.Hello) {
                return new Frame.AuthMechanisms(mechanisms);
            }
            if (f instanceof Frame.Auth) {
                return new Frame.HelloOk(version, "fake", "0", heartbeatMillis, maxMessageLength, "", new byte[0]);
            }
            int requestId = requestId(f);
            return requestId == 0 ? null : new Frame.Ok(requestId);
        }
    }

    /**
     * Waits until the client's {@code thread} waits (a send waiting for credit), looking at its state and stack, never
     * sleeping on a guess: parked, or inside the client's one wait primitive ({@code FrameWait.await}), where a
     * waiting thread may be reading the link for every waiter and so shows as RUNNABLE. Up to 30 s: a thread may first
     * have to spend a large window (ProducerTest's 1 MiB in small sends), slow on a loaded machine (5 s failed there).
     */
    static void awaitParked(Thread thread) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (thread.getState() != Thread.State.WAITING && !insideFrameWait(thread)) {
            assertTrue(System.nanoTime() < deadline && thread.isAlive(), thread + " did not wait: " + thread.getState());
            Thread.onSpinWait();
        }
    }

    private static boolean insideFrameWait(Thread thread) {
        for (StackTraceElement e : thread.getStackTrace()) {
            if (e.getClassName().endsWith(".FrameWait") && e.getMethodName().equals("await")) {
                return true;
            }
        }
        return false;
    }

    /** The request id of a frame, 0 for frames without one. */
    static int requestId(Frame f) {
        if (f instanceof Frame.CreateSession x) return x.requestId();
        if (f instanceof Frame.CloseSession x) return x.requestId();
        if (f instanceof Frame.CreateProducer x) return x.requestId();
        if (f instanceof Frame.CloseProducer x) return x.requestId();
        if (f instanceof Frame.CreateConsumer x) return x.requestId();
        if (f instanceof Frame.CloseConsumer x) return x.requestId();
        if (f instanceof Frame.Send x) return x.requestId();
        if (f instanceof Frame.Ack x) return x.requestId();
        if (f instanceof Frame.Commit x) return x.requestId();
        if (f instanceof Frame.Rollback x) return x.requestId();
        if (f instanceof Frame.Close x) return x.requestId();
        if (f instanceof Frame.SetClientId x) return x.requestId();
        if (f instanceof Frame.Unsubscribe x) return x.requestId();
        return 0;
    }
}
