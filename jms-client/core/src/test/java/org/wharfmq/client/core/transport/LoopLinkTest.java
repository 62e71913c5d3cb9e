package org.wharfmq.client.core.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.EventLoop;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioSocketChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslProvider;
import org.wharfmq.client.core.ClientConfiguration;
import org.wharfmq.client.core.ClientException;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.frame.FrameType;

import javax.net.ssl.SSLSocket;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A {@code tcp://} or {@code ssl://} link on a {@link NetworkLoop} (a server's link to another queue manager): its
 * event loop writes it and never waits on the socket. Against a raw peer that stops reading (a plain socket, or the
 * JDK's TLS server socket), the loop goes on writing (what the socket cannot take waits in the link, which reports
 * itself not writable), and every frame arrives in order once the peer reads again.
 */
class LoopLinkTest {
    private static final int FRAME_BYTES = 16 * 1024;
    private final NioEventLoopGroup group = new NioEventLoopGroup(1);

    @TempDir
    Path dir;

    @AfterEach
    void stop() {
        group.shutdownGracefully(0, 0, TimeUnit.SECONDS).syncUninterruptibly();
    }

    @Test
    void itsLoopWritesMoreThanThePeerTakesWithoutWaitingAndEveryFrameArrivesInOrder() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            writesWithoutWaiting(server, BrokerAddress.tcp("127.0.0.1", server.getLocalPort()), null);
        }
    }

    @ParameterizedTest
    @EnumSource(value = ClientTls.Engine.class, names = {"JDK", "OPENSSL"})
    void overTlsWithEachEngineItsLoopWritesMoreThanThePeerTakesWithoutWaitingAndEveryFrameArrivesInOrder(
            ClientTls.Engine engine) throws Exception {
        assertTrue(OpenSsl.isAvailable(), "netty-tcnative loads here: " + OpenSsl.unavailabilityCause());
        SelfSignedServer identity = SelfSignedServer.create(dir);
        ClientTls tls = identity.clientTls("engine", engine.name().toLowerCase(Locale.ROOT));
        assertEquals(engine == ClientTls.Engine.OPENSSL ? SslProvider.OPENSSL : SslProvider.JDK, tls.provider());
        try (ServerSocket server = identity.serverSocket()) {
            // the certificate names 127.0.0.1, which the link checks (verifyHost is on by default)
            writesWithoutWaiting(server, BrokerAddress.ssl("127.0.0.1", server.getLocalPort()), tls);
        }
    }

    /**
     * A burst written before its loop drains: short messages (composites, as a transmission queue holds them) copied
     * into one buffer, a frame without a message and a message past the copy limit between them written as they are;
     * every frame arrives whole and in order, and every message's bytes are let go of.
     */
    @Test
    void aBurstOfShortMessagesCopiedTogetherArrivesWholeAndInOrderBesideOtherFramesAndEveryMessageIsReleased()
            throws Exception {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            EventLoop loop = group.next();
            CompletableFuture<Socket> accepted = CompletableFuture.supplyAsync(() -> {
                try {
                    return server.accept();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            FrameLink link = Transport.connect(BrokerAddress.tcp("127.0.0.1", server.getLocalPort()), null,
                    new IgnoredFrames(), 5000, new NetworkLoop(loop, NioSocketChannel.class));
            try (Socket peer = accepted.get(10, TimeUnit.SECONDS)) {
                int large = ClientConfiguration.COPY_LIMIT_BYTES + 1;
                int[] lengths = {2300, 2300, 10, -1, 2300, large, 2300, 7000, 7000, 7000};
                List<ByteBuf> messages = new ArrayList<>();
                loop.submit(() -> { // one drain takes them all
                    for (int i = 0; i < lengths.length; i++) {
                        if (lengths[i] < 0) {
                            link.write(new Frame.ChannelFastConfirm(i));
                            continue;
                        }
                        ByteBuf message = composite(i, lengths[i]);
                        messages.add(message);
                        link.write(new Frame.ChannelFastMessage(message));
                    }
                }).get(10, TimeUnit.SECONDS);
                DataInputStream in = new DataInputStream(peer.getInputStream());
                for (int i = 0; i < lengths.length; i++) {
                    int length = in.readInt();
                    byte type = in.readByte();
                    if (lengths[i] < 0) {
                        assertEquals(FrameType.CHANNEL_FAST_CONFIRM.code(), type, "frame " + i);
                        assertEquals(5, length, "frame " + i);
                        assertEquals(i, in.readInt(), "frame " + i);
                        continue;
                    }
                    assertEquals(FrameType.CHANNEL_FAST_MESSAGE.code(), type, "frame " + i);
                    assertEquals(1 + lengths[i], length, "frame " + i);
                    byte[] message = new byte[lengths[i]];
                    in.readFully(message);
                    for (int b = 0; b < message.length; b++) {
                        if (message[b] != (byte) (i + b)) {
                            throw new AssertionError("frame " + i + " byte " + b + ": " + message[b]);
                        }
                    }
                }
                for (ByteBuf message : messages) {
                    assertEquals(0, loop.submit(message::refCnt).get(10, TimeUnit.SECONDS), "written and let go of");
                }
            } finally {
                link.close(5000);
            }
        }
    }

    /** {@code length} bytes {@code (byte) (i + b)} in two components, a header's and a body's. */
    private static ByteBuf composite(int i, int length) {
        byte[] bytes = new byte[length];
        for (int b = 0; b < length; b++) {
            bytes[b] = (byte) (i + b);
        }
        int head = length / 8;
        CompositeByteBuf message = Unpooled.compositeBuffer(2);
        message.addComponent(true, Unpooled.directBuffer(head).writeBytes(bytes, 0, head));
        message.addComponent(true, Unpooled.directBuffer(length - head).writeBytes(bytes, head, length - head));
        return message;
    }

    @Test
    void anEngineThatIsNotOneIsRefusedNamingTheOptionAndTheChoices() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ClientTls.of(Map.of("engine", "fastest"), option -> "tls." + option + " of channel QM1.TO.QM2"));
        assertEquals("tls.engine of channel QM1.TO.QM2 is 'fastest', which is not a TLS engine: give auto, jdk or openssl",
                e.getMessage());
    }

    @Test
    void openSslIsRefusedOnABlockingSocketWhoseTlsIsTheJdks() throws Exception {
        ClientTls tls = ClientTls.of(Map.of("engine", "openssl"));
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            ClientException e = assertThrows(ClientException.class, () -> Transport.connect(
                    BrokerAddress.ssl("127.0.0.1", server.getLocalPort()), tls, new IgnoredFrames(), 5000, null));
            assertTrue(e.getMessage().startsWith("The URL option engine is openssl, but this connection's TLS is the "
                    + "JDK's"), e.getMessage());
        }
    }

    @Test
    void autoChoosesOpenSslWhereItLoads() throws Exception {
        assertEquals(SslProvider.OPENSSL, ClientTls.of(Map.of()).provider(), "auto is the default");
    }

    private void writesWithoutWaiting(ServerSocket server, BrokerAddress address, ClientTls tls) throws Exception {
        EventLoop loop = group.next();
        CompletableFuture<Socket> accepted = new CompletableFuture<>();
        Thread acceptor = new Thread(() -> {
            try {
                Socket s = server.accept();
                if (s instanceof SSLSocket ssl) {
                    ssl.startHandshake(); // the link's connect returns once its handshake is done
                }
                accepted.complete(s);
            } catch (Exception e) {
                accepted.completeExceptionally(e);
            }
        });
        acceptor.setDaemon(true);
        acceptor.start();
        FrameLink link = Transport.connect(address, tls, new IgnoredFrames(), 5000, new NetworkLoop(loop, NioSocketChannel.class));
        try (Socket peer = accepted.get(10, TimeUnit.SECONDS)) {
            assertInstanceOf(ChannelLink.class, link, "a Netty channel, whose writes never block");
            if (tls == null) {
                assertNull(link.tls(), "a plain link negotiated no TLS");
            } else { // the JDK's server socket prefers TLS 1.3 too; what it says names the engine that runs it
                String engine = tls.provider() == SslProvider.OPENSSL ? "OpenSSL" : "the JDK";
                assertTrue(link.tls().matches("TLSv1\\.3 TLS_\\w+ on " + engine), link.tls());
            }
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
