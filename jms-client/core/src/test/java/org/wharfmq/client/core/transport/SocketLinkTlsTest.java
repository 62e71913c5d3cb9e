package org.wharfmq.client.core.transport;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import java.io.InputStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The TCP link over TLS against a raw TLS server socket (the JDK's): what differs from a plain socket. The server end
 * reads nothing unless a test says so, so a large write blocks.
 */
class SocketLinkTlsTest {

    private static final String PASSWORD = "changeit";

    @TempDir
    static Path dir;
    private static Path store;
    private SSLServerSocket server;
    private final CompletableFuture<SSLSocket> peer = new CompletableFuture<>();
    private final CountDownLatch closed = new CountDownLatch(1);
    private SocketLink link;

    @BeforeAll
    static void certificate() throws Exception {
        store = dir.resolve("server.p12");
        Process keytool = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair", "-alias", "server", "-keyalg", "EC", "-dname", "CN=localhost", "-validity", "1",
                "-storetype", "PKCS12", "-keystore", store.toString(), "-storepass", PASSWORD).redirectErrorStream(true).start();
        String output = new String(keytool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, keytool.waitFor(), output);
    }

    @BeforeEach
    void connect() throws Exception {
        KeyStore keys = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(store)) {
            keys.load(in, PASSWORD.toCharArray());
        }
        KeyManagerFactory factory = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        factory.init(keys, PASSWORD.toCharArray());
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(factory.getKeyManagers(), null, null);
        server = (SSLServerSocket) context.getServerSocketFactory().createServerSocket(0, 1, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(() -> {
            try {
                SSLSocket accepted = (SSLSocket) server.accept();
                accepted.startHandshake();
                peer.complete(accepted);
            } catch (Exception e) {
                peer.completeExceptionally(e);
            }
        });
        acceptor.setDaemon(true);
        acceptor.start();
        ClientTls tls = ClientTls.of(Map.of("trustStore", store.toString(), "trustStorePassword", PASSWORD,
                "verifyHost", "false"));
        link = SocketLink.connect("127.0.0.1", server.getLocalPort(), tls, new IgnoredFrames(closed::countDown), 5000);
        peer.get(5, TimeUnit.SECONDS);
    }

    @AfterEach
    void close() throws Exception {
        server.close();
        peer.get().close();
    }

    @Test
    void closingWhileAWriterIsBlockedOnAFullSocketEndsTheWriterInsteadOfWaitingBehindIt() throws Exception {
        // the JDK's SSLSocket sends close_notify under the record lock its blocked writer holds: closing it alone hangs
        Thread writer = BlockedWriter.start(link);
        CompletableFuture.runAsync(() -> link.close(1000)).get(10, TimeUnit.SECONDS);
        writer.join(10_000);
        assertFalse(writer.isAlive(), "the blocked writer was released");
        assertTrue(closed.await(10, TimeUnit.SECONDS), "the link reported its end");
    }
}
