package org.wharfmq.client.core.transport;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Which cipher suite a client's TLS socket negotiates with its default settings: AES-128-GCM, with a queue manager's
 * OpenSSL listener (in TLS 1.3 BoringSSL takes the client's order among suites it ranks alike; in TLS 1.2 the
 * listener's own order decides) and with a JDK server that follows the client's order; an explicit
 * {@code cipherSuites} option is offered as given.
 */
class ClientTlsCipherOrderTest {

    @TempDir
    Path dir;

    @Test
    void aes256GcmSuitesFollowTheirAes128TwinsAndNothingElseMoves() {
        String[] jdk = {"TLS_AES_256_GCM_SHA384", "TLS_AES_128_GCM_SHA256", "TLS_CHACHA20_POLY1305_SHA256",
                "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384", "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
                "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256", "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
                "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256", "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"};
        assertArrayEquals(new String[]{"TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256",
                "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
                "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256", "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
                "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384"},
                ClientTls.aes128First(jdk));
        String[] alone = {"TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256"}; // no twin: stays where it is
        assertArrayEquals(alone, ClientTls.aes128First(alone));
    }

    @Test
    void withTheOpenSslListenerAClientSocketNegotiatesAes128GcmInTls13() throws Exception {
        assertTrue(OpenSsl.isAvailable(), "netty-tcnative loads here: " + OpenSsl.unavailabilityCause());
        SelfSignedServer identity = SelfSignedServer.create(dir);
        assertEquals("TLSv1.3 TLS_AES_128_GCM_SHA256", negotiatedWithOpenSsl(identity, identity.clientTls()));
        assertEquals("TLSv1.3 TLS_AES_256_GCM_SHA384", negotiatedWithOpenSsl(identity,
                identity.clientTls("cipherSuites", "TLS_AES_256_GCM_SHA384")), "the option is offered as given");
    }

    @Test
    void withTheJdksServerSocketAClientSocketNegotiatesAes128GcmInTls13() throws Exception {
        SelfSignedServer identity = SelfSignedServer.create(dir);
        try (SSLServerSocket server = identity.serverSocket()) {
            server.setUseClientMode(false);
            javax.net.ssl.SSLParameters parameters = server.getSSLParameters();
            parameters.setUseCipherSuitesOrder(false); // the client's order decides, as BoringSSL's among equals
            server.setSSLParameters(parameters);
            CompletableFuture<Socket> accepted = CompletableFuture.supplyAsync(() -> {
                try {
                    SSLSocket s = (SSLSocket) server.accept();
                    s.startHandshake();
                    return s;
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            try (SSLSocket client = handshake(identity.clientTls(), server.getLocalPort());
                 Socket ignored = accepted.get(10, TimeUnit.SECONDS)) {
                assertEquals("TLSv1.3 TLS_AES_128_GCM_SHA256", negotiated(client));
            }
        }
    }

    private String negotiatedWithOpenSsl(SelfSignedServer identity, ClientTls tls) throws Exception {
        KeyStore keys = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(dir.resolve("server.p12"))) {
            keys.load(in, SelfSignedServer.PASSWORD.toCharArray());
        }
        KeyManagerFactory factory = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        factory.init(keys, SelfSignedServer.PASSWORD.toCharArray());
        var context = SslContextBuilder.forServer(factory).sslProvider(SslProvider.OPENSSL)
                .protocols(List.of("TLSv1.3", "TLSv1.2")).build(); // as ServerTls makes a listener's by default
        NioEventLoopGroup group = new NioEventLoopGroup(1);
        try {
            Channel listener = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                    .childHandler(new ChannelInitializer<>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            ch.pipeline().addLast(context.newHandler(ch.alloc()));
                        }
                    }).bind(InetAddress.getLoopbackAddress(), 0).sync().channel();
            try (SSLSocket client = handshake(tls, ((InetSocketAddress) listener.localAddress()).getPort())) {
                return negotiated(client);
            } finally {
                listener.close().sync();
            }
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }

    private static SSLSocket handshake(ClientTls tls, int port) throws Exception {
        Socket socket = ClientTls.newSocket();
        socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 5000);
        return tls.handshake(socket, "127.0.0.1", port, 5000);
    }

    private static String negotiated(SSLSocket socket) {
        return socket.getSession().getProtocol() + " " + socket.getSession().getCipherSuite();
    }
}
