package org.wharfmq.client.core.transport;

import io.netty.buffer.Unpooled;
import io.netty.channel.EventLoop;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioSocketChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.client.core.ClientConfiguration;
import org.wharfmq.protocol.frame.Frame;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import java.io.DataInputStream;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A {@code tcp://} or {@code ssl://} link on a {@link NetworkLoop} (a server's link to another queue manager): its
 * event loop writes it and never waits on the socket. Against a raw peer that stops reading (a plain socket, or the
 * JDK's TLS server socket), the loop goes on writing (what the socket cannot take waits in the link, which reports
 * itself not writable), and every frame arrives in order once the peer reads again.
 */
class LoopLinkTest {
    private static final int FRAME_BYTES = 16 * 1024;
    private static final String PASSWORD = "changeit";
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

    @Test
    void overTlsItsLoopWritesMoreThanThePeerTakesWithoutWaitingAndEveryFrameArrivesInOrder() throws Exception {
        Path store = dir.resolve("server.p12");
        Process keytool = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair", "-alias", "server", "-keyalg", "EC", "-dname", "CN=localhost", "-ext", "san=ip:127.0.0.1",
                "-validity", "1", "-storetype", "PKCS12", "-keystore", store.toString(), "-storepass", PASSWORD)
                .redirectErrorStream(true).start();
        String output = new String(keytool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, keytool.waitFor(), output);
        KeyStore keys = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(store)) {
            keys.load(in, PASSWORD.toCharArray());
        }
        KeyManagerFactory factory = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        factory.init(keys, PASSWORD.toCharArray());
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(factory.getKeyManagers(), null, null);
        try (ServerSocket server = context.getServerSocketFactory().createServerSocket(0, 1,
                InetAddress.getLoopbackAddress())) {
            // the certificate names 127.0.0.1, which the link checks (verifyHost is on by default)
            writesWithoutWaiting(server, BrokerAddress.ssl("127.0.0.1", server.getLocalPort()),
                    ClientTls.of(Map.of("trustStore", store.toString(), "trustStorePassword", PASSWORD)));
        }
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
