package org.wharfmq.client.core;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.DefaultEventLoopGroup;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.local.LocalAddress;
import io.netty.channel.local.LocalServerChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.wharfmq.client.core.transport.BrokerAddress;
import org.wharfmq.client.core.transport.ClientTls;
import org.wharfmq.protocol.ProtocolVersion;
import org.wharfmq.protocol.auth.Mechanisms;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.frame.FrameDecoder;
import org.wharfmq.protocol.frame.FrameEncoder;

import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The core client's link without JMS: {@link LinkHandler#open} handshakes with a scripted server over an in-VM
 * channel; then answers complete the connection's requests, deliveries reach their consumer in the
 * {@link ConsumerRegistry}, the other server frames reach its {@link LinkEvents}, and a frame only a client sends ends
 * the link without a reconnection.
 */
class LinkHandlerTest {
    private static final String NAME = "link-handler-test";

    private final EventLoopGroup group = new DefaultEventLoopGroup(1);
    private final BlockingQueue<Object> events = new LinkedBlockingQueue<>();
    private volatile Function<Frame, Frame> answer = f -> null;
    private volatile Channel client;
    private Channel server;

    @BeforeEach
    void startServer() throws InterruptedException {
        server = new ServerBootstrap().group(group).channel(LocalServerChannel.class)
                .childHandler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(new FrameDecoder(1 << 20), FrameEncoder.INSTANCE, new ChannelInboundHandlerAdapter() {
                            @Override
                            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                                client = ctx.channel();
                                Frame reply = answer.apply((Frame) msg);
                                if (reply == null && msg instanceof Frame.Hello) {
                                    reply = new Frame.AuthMechanisms(List.of(Mechanisms.ANONYMOUS));
                                } else if (reply == null && msg instanceof Frame.Auth) {
                                    reply = new Frame.HelloOk(ProtocolVersion.CURRENT, "QM", "0", 0, 1 << 20, "", new byte[0]);
                                }
                                if (reply != null) {
                                    ctx.writeAndFlush(reply);
                                }
                            }
                        });
                    }
                }).bind(new LocalAddress(NAME)).sync().channel();
    }

    @AfterEach
    void stopServer() throws InterruptedException {
        server.close().sync();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }

    private ConnectedLink open(PendingRequests requests) throws ClientException {
        ConsumerRegistry consumers = new ConsumerRegistry();
        consumers.registerConsumer(3, new DeliveryTarget() {
            @Override
            public void deliver(Frame.Deliver deliver) {
                events.add(deliver);
            }

            @Override
            public void pullDone(long pullId) {
                events.add("pull done " + pullId);
            }
        });
        return LinkHandler.open(BrokerAddress.vm(NAME), ClientTls.of(Map.of()), null, null, "test", 0, 0, 5000,
                ClientConfiguration.DEFAULT_MAX_RECEIVE_LENGTH, () -> 7,
                requests, consumers, new Recorder());
    }

    @Test
    void answersCompleteRequestsAndTheOtherFramesReachTheConnection() throws Exception {
        PendingRequests requests = new PendingRequests();
        ConnectedLink link = open(requests);
        assertEquals(7, link.generation());
        assertEquals("QM", link.serverName());
        assertNull(link.userName(), "anonymous");

        PendingRequests.Request ok = requests.register(requests.nextId(), link);
        PendingRequests.Request refused = requests.register(requests.nextId(), link);
        client.writeAndFlush(new Frame.Ok(ok.id));
        client.writeAndFlush(new Frame.Error(refused.id, ErrorCode.UNKNOWN_DESTINATION, "no queue Q", 0, 0));
        client.writeAndFlush(new Frame.Deliver(3, 1, 1, Unpooled.wrappedBuffer(new byte[]{1, 2})));
        client.writeAndFlush(new Frame.PullDone(3, 9));
        client.writeAndFlush(new Frame.ProducerCredit(2, 100));
        client.writeAndFlush(new Frame.Error(0, ErrorCode.QUEUE_FULL, "full", 2, 5));
        assertNull(ok.answer().get(5, TimeUnit.SECONDS));
        assertEquals(ErrorCode.UNKNOWN_DESTINATION, refused.answer().get(5, TimeUnit.SECONDS).code());
        Frame.Deliver deliver = assertInstanceOf(Frame.Deliver.class, next());
        assertEquals(2, deliver.message().readableBytes());
        deliver.message().release();
        assertEquals("pull done 9", next());
        assertEquals(new Frame.ProducerCredit(2, 100), next());
        assertEquals(ErrorCode.QUEUE_FULL, assertInstanceOf(Frame.Error.class, next()).code());

        client.writeAndFlush(new Frame.Credit(3, 10));
        assertEquals("lost: the server sent CREDIT, a frame only a client sends (reconnect: false)", next());
        link.link().close(1000);
    }

    @Test
    void aRefusedLoginIsTheProtocolsErrorCode() {
        answer = f -> f instanceof Frame.Auth ? new Frame.Error(0, ErrorCode.AUTHENTICATION_FAILED, "not you", 0, 0) : null;
        ClientException e = assertThrows(ClientException.class, () -> open(new PendingRequests()));
        assertEquals(ErrorCode.AUTHENTICATION_FAILED, e.code());
        assertEquals("not you", e.getMessage());
    }

    @Test
    void anUnreachableServerIsNamedWithoutACode() {
        ClientException e = assertThrows(ClientException.class, () -> LinkHandler.open(BrokerAddress.vm("nobody-here"),
                ClientTls.of(Map.of()), null, null, "test", 0, 0, 5000, ClientConfiguration.DEFAULT_MAX_RECEIVE_LENGTH,
                () -> 1, new PendingRequests(), new ConsumerRegistry(),
                new Recorder()));
        assertNull(e.code());
        assertTrue(e.getMessage().contains("no in-VM Wharf server named 'nobody-here'"), e.getMessage());
    }

    private Object next() throws InterruptedException {
        Object event = events.poll(5, TimeUnit.SECONDS);
        assertNotNull(event, "nothing reached the connection");
        return event;
    }

    private final class Recorder implements LinkEvents {
        @Override
        public void onProducerCredit(ConnectedLink on, Frame.ProducerCredit credit) {
            events.add(credit);
        }

        @Override
        public void onAsyncError(ConnectedLink on, Frame.Error error) {
            events.add(error);
        }

        @Override
        public void linkLost(ConnectedLink link, String reason, Throwable cause, boolean mayReconnect) {
            events.add("lost: " + reason + " (reconnect: " + mayReconnect + ")");
        }
    }
}
