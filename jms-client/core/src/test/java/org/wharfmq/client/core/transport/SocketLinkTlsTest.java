package org.wharfmq.client.core.transport;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The TCP link over TLS against a raw TLS server socket (the JDK's): what differs from a plain socket. The server end
 * reads nothing unless a test says so, so a large write blocks.
 */
class SocketLinkTlsTest {

    @TempDir
    static Path dir;
    private static SelfSignedServer identity;
    private SSLServerSocket server;
    private final CompletableFuture<SSLSocket> peer = new CompletableFuture<>();
    private final CountDownLatch closed = new CountDownLatch(1);
    private SocketLink link;

    @BeforeAll
    static void certificate() throws Exception {
        identity = SelfSignedServer.create(dir);
    }

    @BeforeEach
    void connect() throws Exception {
        server = identity.serverSocket();
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
        link = SocketLink.connect("127.0.0.1", server.getLocalPort(), identity.clientTls(),
                new IgnoredFrames(closed::countDown), 5000);
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
