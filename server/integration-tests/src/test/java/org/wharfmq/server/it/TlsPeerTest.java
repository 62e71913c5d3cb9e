package org.wharfmq.server.it;

import org.wharfmq.server.TestCertificates;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.server.config.TlsConfig;
import org.wharfmq.server.transport.ServerTls;
import org.wharfmq.server.transport.TlsPeer;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the handshake learns from {@link TlsPeer}: the verified client certificate of a TLS connection, from the
 * listener's real {@code SslContext} ({@link ServerTls}) after a real TLS handshake between two embedded channels.
 */
class TlsPeerTest {

    @TempDir
    static Path dir;
    private static TestCertificates.Issued server;
    private static TestCertificates.Issued client;
    private static SslContext listener;

    @BeforeAll
    static void listener() throws Exception {
        TestCertificates.Issued serverCa = TestCertificates.ca("server CA");
        TestCertificates.Issued clientCa = TestCertificates.ca("client CA");
        server = TestCertificates.issue(serverCa, "CN=wharf,O=Wharf Test", Duration.ofDays(1), "127.0.0.1");
        client = TestCertificates.issue(clientCa, "CN=billing,O=Example", Duration.ofDays(1));
        listener = ServerTls.serverContext(TlsConfig.builder().engine(TlsConfig.Engine.JDK)
                .keyStore(server.pkcs12(dir.resolve("server.p12"))).keyStorePassword(TestCertificates.PASSWORD)
                .clientAuth(TlsConfig.ClientAuth.OPTIONAL)
                .trustCertificates(clientCa.certificatePem(dir.resolve("client-ca.crt"))).build());
    }

    @Test
    void theClientsVerifiedCertificateAndItsSubject() throws Exception {
        SslContext withCertificate = SslContextBuilder.forClient().trustManager(server.issuer())
                .keyManager(client.keys().getPrivate(), client.certificate(), client.issuer()).build();
        EmbeddedChannel connection = handshake(withCertificate);
        assertTrue(TlsPeer.isTls(connection));
        assertEquals(client.certificate(), TlsPeer.certificate(connection).orElseThrow());
        assertEquals(Optional.of(client.certificate().getSubjectX500Principal().getName()), TlsPeer.subject(connection));
    }

    @Test
    void nothingWithoutAClientCertificateOrWithoutTls() throws Exception {
        EmbeddedChannel connection = handshake(SslContextBuilder.forClient().trustManager(server.issuer()).build());
        assertTrue(TlsPeer.isTls(connection));
        assertEquals(Optional.empty(), TlsPeer.certificate(connection));

        EmbeddedChannel plain = new EmbeddedChannel();
        assertFalse(TlsPeer.isTls(plain));
        assertEquals(Optional.empty(), TlsPeer.subject(plain));
    }

    /** The server's end of a connection whose TLS handshake with a client of {@code clientContext} has completed. */
    private static EmbeddedChannel handshake(SslContext clientContext) {
        EmbeddedChannel serverEnd = new EmbeddedChannel(listener.newHandler(ByteBufAllocator.DEFAULT));
        EmbeddedChannel clientEnd = new EmbeddedChannel(clientContext.newHandler(ByteBufAllocator.DEFAULT));
        for (int flights = 0; flights < 20; flights++) {
            boolean moved = pass(clientEnd, serverEnd) | pass(serverEnd, clientEnd);
            if (!moved) {
                break;
            }
        }
        assertTrue(serverEnd.pipeline().get(SslHandler.class).handshakeFuture().isSuccess(), "the handshake completed");
        return serverEnd;
    }

    private static boolean pass(EmbeddedChannel from, EmbeddedChannel to) {
        boolean moved = false;
        for (ByteBuf bytes = from.readOutbound(); bytes != null; bytes = from.readOutbound()) {
            to.writeInbound(bytes);
            moved = true;
        }
        return moved;
    }
}
