package org.wharfmq.server;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.DefaultEventLoopGroup;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.local.LocalAddress;
import io.netty.channel.local.LocalChannel;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import org.wharfmq.protocol.ProtocolVersion;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.frame.FrameDecoder;
import org.wharfmq.protocol.frame.FrameEncoder;
import org.wharfmq.protocol.message.WireMessage;

import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A bare protocol client for tests: writes frames (or raw bytes) and queues every frame the server sends. DELIVER
 * bodies are copied to heap buffers on arrival, so tests need not release anything.
 */
public final class FrameClient implements AutoCloseable {

    private static final long TIMEOUT_SECONDS = 10;
    private static final EventLoopGroup TCP_GROUP = new NioEventLoopGroup(1, new DefaultThreadFactory("test-client", true));
    private static final EventLoopGroup VM_GROUP = new DefaultEventLoopGroup(1, new DefaultThreadFactory("test-client-vm", true));

    private final Channel channel;
    private final BlockingQueue<Frame> received = new LinkedBlockingQueue<>();
    /** PRODUCER_CREDIT frames, kept apart: a test of other frames need not expect them between its answers. */
    private final BlockingQueue<Frame.ProducerCredit> credits = new LinkedBlockingQueue<>();
    private int nextRequestId = 1;
    /** Buffers read from the connection: over in-VM, one per buffer the server wrote. */
    private final java.util.concurrent.atomic.AtomicInteger buffersRead = new java.util.concurrent.atomic.AtomicInteger();

    private FrameClient(Bootstrap bootstrap, java.net.SocketAddress address) throws InterruptedException {
        bootstrap.handler(new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                ch.pipeline().addLast(new io.netty.channel.ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        if (msg instanceof ByteBuf) {
                            buffersRead.incrementAndGet();
                        }
                        ctx.fireChannelRead(msg);
                    }
                });
                ch.pipeline().addLast(new FrameDecoder(Integer.MAX_VALUE - 8), FrameEncoder.INSTANCE,
                        new SimpleChannelInboundHandler<Frame>() {
                            @Override
                            protected void channelRead0(ChannelHandlerContext ctx, Frame frame) {
                                if (frame instanceof Frame.Deliver d) {
                                    ByteBuf copy = Unpooled.copiedBuffer(d.message());
                                    d.message().release();
                                    frame = new Frame.Deliver(d.consumerId(), d.deliveryId(), d.deliveryCount(), copy);
                                }
                                if (frame instanceof Frame.ProducerCredit credit) {
                                    credits.add(credit);
                                    return;
                                }
                                received.add(frame);
                            }
                        });
            }
        });
        this.channel = bootstrap.connect(address).sync().channel();
    }

    /** Connects to the server's TCP listener without a handshake. */
    public static FrameClient tcp(WharfServer server) throws InterruptedException {
        return new FrameClient(new Bootstrap().group(TCP_GROUP).channel(NioSocketChannel.class)
                .option(ChannelOption.TCP_NODELAY, true), new java.net.InetSocketAddress("127.0.0.1", server.tcpPort()));
    }

    /** The loop of the in-VM test clients, which their connections' server ends share (InVmListener). */
    static EventLoopGroup inVmLoops() {
        return VM_GROUP;
    }

    /** Connects to the server's in-VM listener without a handshake. */
    public static FrameClient inVm(WharfServer server) throws InterruptedException {
        return new FrameClient(new Bootstrap().group(VM_GROUP).channel(LocalChannel.class),
                new LocalAddress(server.config().inVmName()));
    }

    /** The local port of a TCP connection (the server sees the client at 127.0.0.1 and this port). */
    public int localPort() {
        return ((java.net.InetSocketAddress) channel.localAddress()).getPort();
    }

    /** Connects over TCP and completes the handshake. */
    public static FrameClient connect(WharfServer server) throws InterruptedException {
        FrameClient client = tcp(server);
        client.hello();
        return client;
    }

    /** Sends HELLO (no heartbeat) and returns the HELLO_OK. */
    public Frame.HelloOk hello() throws InterruptedException {
        return hello("test", 0);
    }

    /** The handshake as {@code user} with {@code password}, by SCRAM-SHA-256; checks the server's signature. */
    public Frame.HelloOk login(String user, String password) throws Exception {
        send(new Frame.Hello(ProtocolVersion.CURRENT, "test", 0));
        expect(Frame.AuthMechanisms.class);
        org.wharfmq.protocol.auth.ScramClient scram = new org.wharfmq.protocol.auth.ScramClient(user, password.toCharArray());
        send(new Frame.Auth(org.wharfmq.protocol.auth.Mechanisms.SCRAM_SHA_256, scram.clientFirst()));
        send(new Frame.AuthResponse(scram.clientFinal(expect(Frame.AuthChallenge.class).data())));
        Frame.HelloOk ok = expect(Frame.HelloOk.class);
        scram.verifyServerFinal(ok.data());
        return ok;
    }

    /** The handshake as {@code clientName} asking for {@code heartbeatMillis}, authenticating anonymously. */
    public Frame.HelloOk hello(String clientName, int heartbeatMillis) throws InterruptedException {
        send(new Frame.Hello(ProtocolVersion.CURRENT, clientName, heartbeatMillis));
        expect(Frame.AuthMechanisms.class);
        send(new Frame.Auth(org.wharfmq.protocol.auth.Mechanisms.ANONYMOUS, new byte[0]));
        return expect(Frame.HelloOk.class);
    }

    /** A fresh request id. */
    public int requestId() {
        return nextRequestId++;
    }

    /** Writes a frame and waits until it is on the wire. */
    public void send(Frame frame) throws InterruptedException {
        channel.writeAndFlush(frame).sync();
    }

    /** Writes raw bytes, for malformed frames. */
    public void sendRaw(ByteBuf bytes) throws InterruptedException {
        channel.writeAndFlush(bytes).sync();
    }

    /** Sends a request built with a fresh request id and expects OK for it. */
    public void request(java.util.function.IntFunction<Frame> request) throws InterruptedException {
        int id = requestId();
        send(request.apply(id));
        Frame answer = next();
        assertEquals(new Frame.Ok(id), answer, "answer to " + answer);
    }

    /** Sends an XA request built with a fresh request id (XA_PREPARE, XA_RECOVER) and expects XA_RESULT for it. */
    public Frame.XaResult xaResult(java.util.function.IntFunction<Frame> request) throws InterruptedException {
        int id = requestId();
        send(request.apply(id));
        Frame.XaResult result = expect(Frame.XaResult.class);
        assertEquals(id, result.requestId());
        return result;
    }

    /** Sends a request built with a fresh request id and expects ERROR for it with the given code. */
    public Frame.Error requestFails(java.util.function.IntFunction<Frame> request, ErrorCode code) throws InterruptedException {
        int id = requestId();
        send(request.apply(id));
        Frame.Error error = expect(Frame.Error.class);
        assertEquals(id, error.requestId());
        assertEquals(code, error.code(), error.message());
        return error;
    }

    /**
     * Claims {@code key} as this connection's key (answered), and returns the connection's temporary namespace,
     * {@code TMP.<hex>.}, under which it may create temporary destinations.
     */
    public String claimKey(byte[] key) throws InterruptedException {
        request(id -> new Frame.ClaimKey(id, key));
        return org.wharfmq.protocol.TemporaryNames.namespace(key);
    }

    /** A fresh random connection key. */
    public static byte[] newKey() {
        byte[] key = new byte[org.wharfmq.protocol.TemporaryNames.KEY_BYTES];
        new java.security.SecureRandom().nextBytes(key);
        return key;
    }

    /** Opens a session (answered). */
    public void createSession(int sessionId, boolean transacted) throws InterruptedException {
        request(id -> new Frame.CreateSession(id, sessionId, transacted, transacted ? 0 : 1));
    }

    /** Opens a consumer on a queue (answered). */
    public void createConsumer(int sessionId, int consumerId, String queue, String selector, int credit)
            throws InterruptedException {
        request(id -> new Frame.CreateConsumer(id, sessionId, consumerId,
                org.wharfmq.protocol.message.WireDestination.queue(queue), selector, credit, 0, null));
    }

    /**
     * Appends {@code frame}'s bytes to {@code out}, for a test that sends several frames in one write
     * ({@link #sendRaw}).
     */
    public static void append(ByteBuf out, Frame frame) {
        FrameEncoder.writeHeader(frame, out);
        ByteBuf body = FrameEncoder.messageOf(frame);
        if (body != null) {
            out.writeBytes(body);
            body.release();
        }
    }

    /** Sends a message and waits for the OK. */
    public void sendMessage(int sessionId, WireMessage message) throws InterruptedException {
        request(id -> new Frame.Send(id, sessionId, 1, TestMessages.encode(message)));
    }

    /** Sends a message without asking for an answer. */
    public void sendMessageAsync(int sessionId, WireMessage message) throws InterruptedException {
        send(new Frame.Send(0, sessionId, 1, TestMessages.encode(message)));
    }

    /** The next PRODUCER_CREDIT from the server; fails after the timeout. */
    public Frame.ProducerCredit producerCredit() throws InterruptedException {
        Frame.ProducerCredit credit = credits.poll(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        assertNotNull(credit, "no PRODUCER_CREDIT from the server within " + TIMEOUT_SECONDS + " s");
        return credit;
    }

    /** The PRODUCER_CREDIT frames that have arrived and not been taken (does not wait). */
    public List<Frame.ProducerCredit> takeProducerCredits() {
        List<Frame.ProducerCredit> taken = new java.util.ArrayList<>();
        credits.drainTo(taken);
        return taken;
    }

    /** The next frame from the server; fails after the timeout. */
    public Frame next() throws InterruptedException {
        Frame frame = received.poll(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        assertNotNull(frame, "no frame from the server within " + TIMEOUT_SECONDS + " s");
        return frame;
    }

    /** The next frame, which must be of {@code type}. */
    public <T extends Frame> T expect(Class<T> type) throws InterruptedException {
        return assertInstanceOf(type, next());
    }

    /** The next {@code n} frames, which must all be deliveries. */
    public List<Frame.Deliver> deliveries(int n) throws InterruptedException {
        List<Frame.Deliver> list = new java.util.ArrayList<>();
        for (int i = 0; i < n; i++) {
            list.add(expect(Frame.Deliver.class));
        }
        return list;
    }

    /**
     * Proves no frame is in flight before this point: PULLs a consumer id that does not exist and expects the
     * PULL_DONE as the very next frame. The server handles a connection's frames in order, so anything it wrote
     * for earlier frames of this connection comes first. A delivery caused by another connection (its send) is
     * written by a task of its own and may come later: use {@link #expectNothingMore(int)} for that.
     */
    public void expectNothingMore() throws InterruptedException {
        expectPullDoneFirst(Integer.MAX_VALUE);
    }

    /**
     * Proves the server has nothing more for this connection's session of {@code consumerId}: PULLs that consumer and
     * expects the PULL_DONE as the very next frame. Before it, the server writes every delivery already recorded for
     * the session, whichever connection's send caused it, and one message still waiting for the consumer, credit or
     * not (docs/protocol.md, "Consuming").
     */
    public void expectNothingMore(int consumerId) throws InterruptedException {
        expectPullDoneFirst(consumerId);
    }

    private void expectPullDoneFirst(int consumerId) throws InterruptedException {
        long pullId = System.nanoTime();
        send(new Frame.Pull(consumerId, pullId));
        assertEquals(new Frame.PullDone(consumerId, pullId), next());
    }

    /** Waits until the server has closed the connection. */
    public void awaitClosed() throws InterruptedException {
        assertTrue(channel.closeFuture().await(TIMEOUT_SECONDS, TimeUnit.SECONDS), "connection still open");
    }

    /**
     * Buffers read from the connection so far, counted before their frames are queued: over in-VM (a local channel
     * passes each buffer written as it is) the number of buffers the server wrote to it.
     */
    public int buffersRead() {
        return buffersRead.get();
    }

    /** Whether a frame from the server has arrived and not been taken yet (does not wait). */
    public boolean hasFrame() {
        return !received.isEmpty();
    }

    /** Whether the connection is open. */
    public boolean isOpen() {
        return channel.isActive();
    }

    @Override
    public void close() {
        channel.close().awaitUninterruptibly();
    }
}
