package org.wharfmq.server.channels;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.util.ReferenceCountUtil;
import org.wharfmq.protocol.ProtocolVersion;
import org.wharfmq.protocol.auth.Mechanisms;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.frame.FrameDecoder;
import org.wharfmq.protocol.frame.FrameEncoder;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

/**
 * A queue manager's receiving end as a hostile partner speaks it, over TCP: it logs a sender in anonymously, declaring
 * {@link #maxMessageLength} and the name {@link #name}, answers CHANNEL_OPEN with a CHANNEL_STATUS of sequence 0 (and
 * nonPersistentSpeed fast when {@link #fastNonPersistent}), answers every heartbeat (so the connection stays alive),
 * and hands every later frame to {@link #onFrame} (by default: none answered), where a test misbehaves. Every frame it
 * took but heartbeats is in {@link #received}, messages released.
 */
final class FakePartner implements AutoCloseable {
    private final EventLoopGroup group = new NioEventLoopGroup(1);
    private final Channel server;
    final BlockingQueue<Frame> received = new LinkedBlockingQueue<>();
    volatile String name = "QM2";
    volatile int maxMessageLength = Integer.MAX_VALUE;
    /** Whether it agrees to nonPersistentSpeed fast when the sender asks for it. */
    volatile boolean fastNonPersistent;
    /** What the partner does with a frame after the open: the frame and the connection it came on. */
    volatile BiConsumer<Frame, Channel> onFrame = (f, c) -> { };

    FakePartner() throws InterruptedException {
        server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(new FrameDecoder(Integer.MAX_VALUE - 16), FrameEncoder.INSTANCE,
                                new Handler());
                    }
                }).bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
    }

    String url() {
        return "tcp://127.0.0.1:" + ((InetSocketAddress) server.localAddress()).getPort();
    }

    /** The next frame the sender sent of {@code type}, skipping others; fails after the wait. */
    <T extends Frame> T await(Class<T> type) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ChannelServers.EXPECTED_MS);
        while (true) {
            Frame f = received.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
            if (f == null) {
                throw new AssertionError("the sender sent no " + type.getSimpleName());
            }
            if (type.isInstance(f)) {
                return type.cast(f);
            }
        }
    }

    @Override
    public void close() throws InterruptedException {
        server.close().sync();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }

    private final class Handler extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            Frame f = (Frame) msg;
            if (f instanceof Frame.ChannelMessage m) {
                ReferenceCountUtil.release(m.message());
            }
            if (f instanceof Frame.Ping) {
                ctx.writeAndFlush(new Frame.Ping()); // alive, whatever else it answers
                return;
            }
            received.add(f);
            if (f instanceof Frame.Hello) {
                ctx.writeAndFlush(new Frame.AuthMechanisms(List.of(Mechanisms.ANONYMOUS)));
            } else if (f instanceof Frame.Auth) {
                ctx.writeAndFlush(new Frame.HelloOk(ProtocolVersion.CURRENT, name, "0", 0, maxMessageLength, "",
                        new byte[0]));
            } else if (f instanceof Frame.ChannelOpen open) {
                ctx.writeAndFlush(new Frame.ChannelStatus(open.requestId(), 0, 0,
                        fastNonPersistent && open.fastNonPersistent()));
            } else {
                onFrame.accept(f, ctx.channel());
            }
        }
    }
}
