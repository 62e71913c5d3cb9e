package org.wharfmq.client.core.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
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
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntUnaryOperator;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
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
    /** A body size that stands for a PING frame instead of a message. */
    private static final int PING = -1;
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
     * A burst written before its loop drains, copied into runs of the staging size ({@link FrameRuns}): short messages
     * (composites, as a transmission queue holds them), a frame without a message, and a message longer than a run,
     * of which what does not complete a run is written as it is; every frame arrives whole and in order, and every
     * message's bytes are let go of.
     */
    @Test
    void aBurstOfShortMessagesCopiedTogetherArrivesWholeAndInOrderBesideOtherFramesAndEveryMessageIsReleased()
            throws Exception {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            EventLoop loop = group.next();
            CompletableFuture<Socket> accepted = accepting(server);
            FrameLink link = plainLink(server, loop);
            try (Socket peer = accepted.get(10, TimeUnit.SECONDS)) {
                int large = 4 * ClientConfiguration.STAGED_BUFFER_BYTES + 1;
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

    /**
     * A frame that a task of the loop queues after a drain became due, before the loop's next pass, goes in the same
     * write as the frames before it: the drain lets the loop look once more for what is ready (its next pass, which
     * polls without waiting) before it writes. One flush of the socket, where there were two; both frames arrive
     * whole and in order.
     */
    @Test
    void aFrameQueuedBeforeTheLoopsNextPassGoesInTheSameWriteAsTheFramesBeforeIt() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            EventLoop loop = group.next();
            CompletableFuture<Socket> accepted = accepting(server);
            FrameLink link = plainLink(server, loop);
            try (Socket peer = accepted.get(10, TimeUnit.SECONDS)) {
                AtomicInteger flushes = new AtomicInteger();
                ((ChannelLink) link).channel().pipeline().addFirst(new ChannelOutboundHandlerAdapter() {
                    @Override
                    public void flush(ChannelHandlerContext ctx) {
                        flushes.incrementAndGet();
                        ctx.flush();
                    }
                });
                loop.submit(() -> {
                    link.write(new Frame.ChannelFastMessage(Unpooled.wrappedBuffer(body(0, 2300)))); // the drain due
                    loop.execute(() -> link.write(new Frame.ChannelFastMessage(Unpooled.wrappedBuffer(body(1, 2300)))));
                }).get(10, TimeUnit.SECONDS);
                DataInputStream in = new DataInputStream(peer.getInputStream());
                for (int i = 0; i < 2; i++) {
                    assertEquals(1 + 2300, in.readInt(), "frame " + i + "'s length");
                    assertEquals(FrameType.CHANNEL_FAST_MESSAGE.code(), in.readByte(), "frame " + i + "'s type");
                    byte[] message = new byte[2300];
                    in.readFully(message);
                    assertArrayEquals(body(i, 2300), message, "frame " + i + "'s message");
                }
                assertEquals(1, loop.submit(flushes::get).get(10, TimeUnit.SECONDS), "both frames in one write");
            } finally {
                link.close(5000);
            }
        }
    }

    /** The next connection {@code server} accepts, on a thread of the common pool. */
    private static CompletableFuture<Socket> accepting(ServerSocket server) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return server.accept();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }

    /** A plain link to {@code server} on {@code loop}. */
    private static FrameLink plainLink(ServerSocket server, EventLoop loop) throws Exception {
        return Transport.connect(BrokerAddress.tcp("127.0.0.1", server.getLocalPort()), null, new IgnoredFrames(),
                5000, new NetworkLoop(loop, NioSocketChannel.class));
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

    /**
     * A TLS link copies a drain's frames into buffers of one record each, splitting frames across them, and passes a
     * message longer than a record as it is ({@link FrameRuns}): frames of every size, pings and empty messages
     * among them, written in one burst to a peer that reads only once the link holds more than it takes, arrive
     * whole, byte for byte, in order.
     */
    @ParameterizedTest
    @EnumSource(value = ClientTls.Engine.class, names = {"JDK", "OPENSSL"})
    void overTlsWithEachEngineFramesOfEverySizeJoinedIntoRecordsArriveIntactAndInOrderAtAPeerThatReadsLate(
            ClientTls.Engine engine) throws Exception {
        SelfSignedServer identity = SelfSignedServer.create(dir);
        ClientTls tls = identity.clientTls("engine", engine.name().toLowerCase(Locale.ROOT));
        int[] sizes = {2048, 17, PING, 40_000, 16_384, 16_385, 0, 5_000, 100, 16_379, 16_378};
        try (ServerSocket server = identity.serverSocket()) {
            writesWithoutWaiting(server, BrokerAddress.ssl("127.0.0.1", server.getLocalPort()), tls, 400,
                    i -> sizes[i % sizes.length], false);
        }
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
        writesWithoutWaiting(server, address, tls, 2048, i -> FRAME_BYTES, true); // 32 MiB
    }

    /**
     * Writes {@code frames} frames from the link's loop, frame {@code i} a CHANNEL_FAST_MESSAGE of
     * {@code bodyBytes(i)} bytes (each its own pattern) or a PING for {@link #PING}, to a peer that reads nothing
     * until they are all handed to the link; then reads them, checking each byte. With {@code overfill} (frames far
     * beyond what the sockets' buffers hold), the link must meanwhile report itself not writable.
     */
    private void writesWithoutWaiting(ServerSocket server, BrokerAddress address, ClientTls tls, int frames,
                                      IntUnaryOperator bodyBytes, boolean overfill) throws Exception {
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
            // while the peer reads nothing: with overfill far more than the sockets' buffers at both ends hold, and
            // a blocking socket written from the loop would stop the loop here for good
            boolean writable = loop.submit(() -> {
                for (int i = 0; i < frames; i++) {
                    int size = bodyBytes.applyAsInt(i);
                    link.write(size == PING ? Frame.Ping.INSTANCE
                            : new Frame.ChannelFastMessage(Unpooled.wrappedBuffer(body(i, size))));
                }
                return true;
            }).get(30, TimeUnit.SECONDS);
            assertTrue(writable);
            if (overfill) { // a later task on the same loop: the writes above have been handed to the channel by then
                assertFalse(loop.submit(link::isWritable).get(30, TimeUnit.SECONDS),
                        "over " + ClientConfiguration.LOOP_LINK_WATER_MARK_BYTES + " bytes wait unwritten");
            }
            DataInputStream in = new DataInputStream(peer.getInputStream());
            for (int i = 0; i < frames; i++) {
                int size = bodyBytes.applyAsInt(i);
                assertEquals(size == PING ? 1 : 1 + size, in.readInt(), "frame " + i + "'s length");
                assertEquals((size == PING ? FrameType.PING : FrameType.CHANNEL_FAST_MESSAGE).code(), in.readByte(),
                        "frame " + i + "'s type");
                if (size != PING) {
                    byte[] body = new byte[size];
                    in.readFully(body);
                    assertArrayEquals(body(i, size), body, "frame " + i + "'s message");
                }
            }
            assertTrue(loop.submit(link::isWritable).get(30, TimeUnit.SECONDS), "all written: writable again");
        } finally {
            link.close(5000);
        }
    }

    /** Frame {@code i}'s message bytes: {@code size} of them, a pattern of its own. */
    private static byte[] body(int i, int size) {
        byte[] body = new byte[size];
        for (int j = 0; j < size; j++) {
            body[j] = (byte) (i * 31 + j);
        }
        return body;
    }
}
