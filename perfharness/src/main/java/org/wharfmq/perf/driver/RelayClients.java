package org.wharfmq.perf.driver;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import org.HdrHistogram.Histogram;
import org.wharfmq.perf.options.PerfOptions;
import org.wharfmq.perf.options.TestClass;
import org.wharfmq.perf.relay.RelayFrames;
import org.wharfmq.server.transport.NativeTransport;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * {@code -pc Relay}: the clients of the bare Netty relay ({@link org.wharfmq.perf.relay.RelayServer}), {@code -nt}
 * connections of one kind. They are Netty handlers with no application thread: a requester sends its next request
 * from the event loop that read the reply, a responder writes the frame it read straight back. The traffic is the
 * request/reply workloads' (one outstanding request per requester, a body of {@code -ms} bytes each way, the reply
 * checked to answer the request just sent); {@link Driver} measures and reports it as it does its JMS workers'.
 */
final class RelayClients implements AutoCloseable {

    private final EventLoopGroup group;
    private final List<Channel> channels = new ArrayList<>();
    private final List<Requester> requesters = new ArrayList<>();
    private final RunControl control;

    private RelayClients(EventLoopGroup group, RunControl control) {
        this.group = group;
        this.control = control;
    }

    /** Connects {@code -nt} clients of {@code testClass}'s kind to the relay at {@code -url}, each said hello. */
    static RelayClients connect(PerfOptions options, TestClass testClass, RunControl control, byte[] body) throws InterruptedException {
        URI url = URI.create(options.brokerUrl());
        NativeTransport transport = NativeTransport.best();
        RelayClients clients = new RelayClients(transport.eventLoopGroup(0, new DefaultThreadFactory("relay-client", true)), control);
        boolean requester = testClass == TestClass.REQUESTOR;
        try {
            for (int i = 0; i < options.threads(); i++) {
                Requester handler = requester ? new Requester(control, body) : null;
                Channel ch = new Bootstrap().group(clients.group)
                        .channel(transport == NativeTransport.EPOLL ? EpollSocketChannel.class : NioSocketChannel.class)
                        .option(ChannelOption.TCP_NODELAY, true)
                        .handler(new ChannelInitializer<SocketChannel>() {
                            @Override
                            protected void initChannel(SocketChannel c) {
                                c.pipeline().addLast(RelayFrames.decoder(), RelayFrames.PREPENDER,
                                        requester ? handler : new Responder(control));
                            }
                        })
                        .connect(url.getHost(), url.getPort()).sync().channel();
                ch.writeAndFlush(ch.alloc().buffer(1).writeByte(requester ? RelayFrames.REQUESTER : RelayFrames.RESPONDER)).sync();
                clients.channels.add(ch);
                if (handler != null) {
                    handler.channel = ch;
                    clients.requesters.add(handler);
                }
                control.workerReady();
            }
        } catch (RuntimeException | InterruptedException e) {
            clients.close();
            throw e;
        }
        return clients;
    }

    /** Every requester sends its first request; the replies drive the rest. */
    void begin() {
        for (Requester r : requesters) {
            r.channel.eventLoop().execute(r::send);
        }
    }

    /**
     * After {@link RunControl#stop}: waits up to {@code timeoutSeconds} for each requester's last reply (one that
     * does not come is a loss), closes everything, and returns the round trips' latencies.
     */
    Histogram finish(int timeoutSeconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        for (int i = 0; i < requesters.size(); i++) {
            Requester r = requesters.get(i);
            if (!r.done.await(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS) || r.lost) {
                control.loss("requester " + i + "'s request had no reply " + (r.lost ? "before its connection closed"
                        : "within " + timeoutSeconds + " s"));
            }
        }
        close();
        Histogram all = LatencyHistograms.create();
        requesters.forEach(r -> all.add(r.latencies));   // after the event loops ended: their writes are visible
        return all;
    }

    @Override
    public void close() throws InterruptedException {
        channels.forEach(Channel::close);
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).await();
    }

    /** A requester: one request outstanding; the reply's event loop sends the next. State owned by that loop. */
    private static final class Requester extends SimpleChannelInboundHandler<ByteBuf> {
        private final RunControl control;
        private final byte[] body;
        private final Histogram latencies = LatencyHistograms.create();
        private final CountDownLatch done = new CountDownLatch(1);
        private volatile boolean lost;
        private Channel channel;
        private long sequence;
        private long sentNanos;
        private boolean waiting;

        Requester(RunControl control, byte[] body) {
            this.control = control;
            this.body = body;
        }

        void send() {
            if (!control.running()) {
                done.countDown();
                return;
            }
            ByteBuf frame = channel.alloc().buffer(8 + body.length).writeLong(++sequence).writeBytes(body);
            waiting = true;
            sentNanos = System.nanoTime();
            channel.writeAndFlush(frame);
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, ByteBuf reply) {
            long now = System.nanoTime();
            long answers = reply.readLong();
            if (!waiting || answers != sequence) {
                control.unexpected("a reply to request " + answers + " while " + (waiting ? "waiting for " + sequence : "none was outstanding"));
                return;
            }
            waiting = false;
            if (answers == 1) {
                control.firstOperationEnded();
            }
            if (control.measuring()) {
                latencies.recordValue(Math.max(0, (now - sentNanos) / 1000));
            }
            control.iterationDone();
            send();
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            if (waiting) {
                lost = true;
            }
            done.countDown();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }

    /** A responder: writes each frame back as it came (the relay's requester index in front), not copied. */
    private static final class Responder extends SimpleChannelInboundHandler<ByteBuf> {
        private final RunControl control;

        Responder(RunControl control) {
            super(false);   // the frame is written back, not released here
            this.control = control;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, ByteBuf frame) {
            ctx.writeAndFlush(frame);
            control.iterationDone();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }
}
