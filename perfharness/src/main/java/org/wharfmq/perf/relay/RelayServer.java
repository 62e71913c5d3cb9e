package org.wharfmq.perf.relay;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import org.wharfmq.perf.driver.StdinClose;
import org.wharfmq.perf.options.OptionException;
import org.wharfmq.perf.workload.ServerMain;
import org.wharfmq.server.transport.NativeTransport;

import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;

/**
 * {@code wharf perf relay [--port N]}: the bare Netty relay, the floor a request/reply round trip is measured
 * against ({@code --peer relay}). It forwards length-prefixed frames and nothing else: no broker, no queue, no
 * persistence, no JMS. A connection says what it is in its first frame ({@link RelayFrames#REQUESTER} or
 * {@link RelayFrames#RESPONDER}); requester i's frames go to responder i mod (responders), prefixed with i, and a
 * responder's answer goes back to the requester it names. Everything runs on the Netty event loops; bodies are
 * never copied. Prints {@link ServerMain#READY_PREFIX} with its URL, and stops when its input closes.
 */
public final class RelayServer {

    private final int port;
    private final PrintStream out;
    private final CountDownLatch stopped = new CountDownLatch(1);
    /** Written on the event loops as connections say hello; read on them when frames are relayed. */
    private final List<Channel> requesters = new CopyOnWriteArrayList<>();
    private final List<Channel> responders = new CopyOnWriteArrayList<>();

    public RelayServer(List<String> args, PrintStream out) {
        int p = 0;
        for (int i = 0; i < args.size(); i += 2) {
            if (!args.get(i).equals("--port") || i + 1 >= args.size()) {
                throw new OptionException("wharf perf relay [--port N]: unknown option " + args.get(i));
            }
            p = Integer.parseInt(args.get(i + 1));
        }
        this.port = p;
        this.out = out;
    }

    /** {@code wharf perf relay ...} as a process: runs until its input closes. */
    public static int run(String[] args) throws Exception {
        RelayServer server = new RelayServer(List.of(args), System.out);
        StdinClose.then(server::stop, "relay-stdin-watch");
        return server.serve();
    }

    /** Asks {@link #serve} to return. */
    public void stop() {
        stopped.countDown();
    }

    /** Listens on 127.0.0.1 until {@link #stop}. */
    public int serve() throws InterruptedException {
        NativeTransport transport = NativeTransport.best();
        EventLoopGroup boss = transport.eventLoopGroup(1, new DefaultThreadFactory("relay-accept", true));
        EventLoopGroup workers = transport.eventLoopGroup(0, new DefaultThreadFactory("relay-io", true));
        try {
            Channel listener = new ServerBootstrap().group(boss, workers).channel(transport.serverChannelClass())
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            ch.pipeline().addLast(RelayFrames.decoder(), RelayFrames.PREPENDER, new Relay());
                        }
                    })
                    .bind(new InetSocketAddress("127.0.0.1", port)).sync().channel();
            int bound = ((InetSocketAddress) listener.localAddress()).getPort();
            out.println(ServerMain.READY_PREFIX + " tcp=tcp://127.0.0.1:" + bound + " pid=" + ProcessHandle.current().pid()
                    + " transport=" + transport.name().toLowerCase(java.util.Locale.ROOT));
            out.flush();
            stopped.await();
            listener.close().sync();
            return 0;
        } finally {
            boss.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS);
            workers.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS);
        }
    }

    /** One connection's side of the relay: its hello, then the frames it forwards. */
    private final class Relay extends SimpleChannelInboundHandler<ByteBuf> {

        /** -1 until the hello; then the requester's index, or {@link #RESPONDER_ROLE}. */
        private int role = -1;
        private static final int RESPONDER_ROLE = Integer.MAX_VALUE;

        Relay() {
            super(false);   // the frame is passed on, not released here
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, ByteBuf frame) {
            if (role == -1) {
                hello(ctx, frame.readByte());
                frame.release();
            } else if (role == RESPONDER_ROLE) {
                // [requester index][the requester's frame]: back to that requester, without the index
                int requester = frame.readInt();
                requesters.get(requester).writeAndFlush(frame);
            } else {
                List<Channel> r = responders;
                if (r.isEmpty()) {
                    frame.release();
                    ctx.close();
                    return;
                }
                ByteBuf index = ctx.alloc().buffer(4).writeInt(role);
                r.get(role % r.size()).writeAndFlush(ctx.alloc().compositeBuffer(2).addComponents(true, index, frame));
            }
        }

        private void hello(ChannelHandlerContext ctx, byte kind) {
            if (kind == RelayFrames.RESPONDER) {
                responders.add(ctx.channel());
                role = RESPONDER_ROLE;
            } else if (kind == RelayFrames.REQUESTER) {
                synchronized (requesters) {
                    role = requesters.size();
                    requesters.add(ctx.channel());
                }
            } else {
                ctx.close();
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }
}
