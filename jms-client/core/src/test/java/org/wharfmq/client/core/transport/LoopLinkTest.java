package org.wharfmq.client.core.transport;

import io.netty.buffer.Unpooled;
import io.netty.channel.EventLoop;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioSocketChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.wharfmq.client.core.ClientConfiguration;
import org.wharfmq.protocol.frame.Frame;

import java.io.DataInputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A {@code tcp://} link on a {@link NetworkLoop} (a server's link to another queue manager): its event loop writes it
 * and never waits on the socket. Against a raw peer that stops reading, the loop goes on writing (what the socket
 * cannot take waits in the link, which reports itself not writable), and every frame arrives in order once the peer
 * reads again.
 */
class LoopLinkTest {
    private static final int FRAME_BYTES = 16 * 1024;
    private final NioEventLoopGroup group = new NioEventLoopGroup(1);

    @AfterEach
    void stop() {
        group.shutdownGracefully(0, 0, TimeUnit.SECONDS).syncUninterruptibly();
    }

    @Test
    void itsLoopWritesMoreThanThePeerTakesWithoutWaitingAndEveryFrameArrivesInOrder() throws Exception {
        EventLoop loop = group.next();
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            FrameLink link = Transport.connect(BrokerAddress.tcp("127.0.0.1", server.getLocalPort()), null,
                    new IgnoredFrames(), 5000, new NetworkLoop(loop, NioSocketChannel.class));
            try (Socket peer = server.accept()) {
                assertTrue(link.writesWithoutBlocking());
                // far more than the socket's buffers at both ends hold while the peer reads nothing: a blocking
                // socket written from the loop would stop the loop here for good
                int frames = 2048; // 32 MiB
                boolean writable = loop.submit(() -> {
                    for (int i = 0; i < frames; i++) {
                        byte[] body = new byte[FRAME_BYTES];
                        body[0] = (byte) i;
                        link.write(new Frame.ChannelFastMessage(Unpooled.wrappedBuffer(body)));
                    }
                    return true;
                }).get(30, TimeUnit.SECONDS);
                assertTrue(writable);
                // a later task on the same loop: the writes above have been handed to the channel by then
                assertFalse(loop.submit(link::isWritable).get(30, TimeUnit.SECONDS),
                        "over " + ClientConfiguration.LOOP_LINK_WATER_MARK_BYTES + " bytes wait unwritten");
                DataInputStream in = new DataInputStream(peer.getInputStream());
                for (int i = 0; i < frames; i++) {
                    int length = in.readInt();
                    byte[] frame = new byte[length];
                    in.readFully(frame);
                    assertEquals((byte) i, frame[length - FRAME_BYTES], "frame " + i);
                }
                assertTrue(loop.submit(link::isWritable).get(30, TimeUnit.SECONDS), "all written: writable again");
            } finally {
                link.close(5000);
            }
        }
    }
}
