package org.wharfmq.server.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.DefaultEventLoopGroup;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.local.LocalAddress;
import io.netty.channel.local.LocalChannel;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

/** The in-VM listener puts each connection it accepts on its client's event loop, and reads there what it wrote. */
class InVmListenerTest {

    @Test
    void eachAcceptedConnectionRunsOnItsClientsLoop() throws Exception {
        EventLoopGroup listening = InVmListener.loops();
        EventLoopGroup clients = new DefaultEventLoopGroup(2);
        List<CompletableFuture<EventLoop>> accepted = List.of(new CompletableFuture<>(), new CompletableFuture<>());
        List<CompletableFuture<Thread>> readOn = List.of(new CompletableFuture<>(), new CompletableFuture<>());
        LocalAddress address = new LocalAddress("in-vm-listener-test");
        Channel server = new ServerBootstrap().group(listening).channel(InVmListener.channelClass())
                .childHandler(new ChannelInitializer<>() {
                    private int next;

                    @Override
                    protected void initChannel(Channel ch) {
                        int n = next++;
                        accepted.get(n).complete(ch.eventLoop());
                        ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                            @Override
                            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                                readOn.get(n).complete(Thread.currentThread());
                            }
                        });
                    }
                }).bind(address).sync().channel();
        try {
            List<Channel> connected = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                Channel client = new Bootstrap().group(clients).channel(LocalChannel.class)
                        .handler(new ChannelInboundHandlerAdapter()).connect(address).sync().channel();
                connected.add(client);
                assertSame(client.eventLoop(), accepted.get(i).get(10, TimeUnit.SECONDS),
                        "connection " + i + "'s server end is on its client's loop");
                CompletableFuture<Thread> writer = new CompletableFuture<>();
                String frame = "frame " + i;
                client.eventLoop().execute(() -> {
                    writer.complete(Thread.currentThread());
                    client.writeAndFlush(frame);
                });
                assertSame(writer.get(10, TimeUnit.SECONDS), readOn.get(i).get(10, TimeUnit.SECONDS),
                        "read on the thread that wrote it, with no hand-off");
            }
            // two clients on two loops: each server end follows its own client, not the listener's loop
            assertNotSame(connected.get(0).eventLoop(), connected.get(1).eventLoop());
            assertEquals(2, connected.stream().filter(Channel::isActive).count());
            for (Channel c : connected) {
                c.close().sync();
            }
        } finally {
            server.close().sync();
            listening.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            clients.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        }
    }
}
