package org.wharfmq.server.it;

import org.wharfmq.server.TestCertificates;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.protocol.ProtocolVersion;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.frame.FrameType;
import org.wharfmq.server.LogCapture;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.admin.AdminPlugin;
import org.wharfmq.server.config.TlsConfig;
import org.wharfmq.server.flow.FlowHost;
import org.wharfmq.server.security.AuditLog;
import org.wharfmq.server.store.InMemoryMessageStore;

import javax.jms.Connection;
import javax.jms.JMSException;
import javax.jms.MessageConsumer;
import javax.jms.Queue;
import javax.jms.ResourceAllocationException;
import javax.jms.Session;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The connection caps (maxConnections, maxConnectionsPerAddress) against the real server and client: the connection
 * past a cap is refused with an error naming the limit, the count and the setting (over TLS too), and an audit line;
 * another address is not affected by one address's cap; in-VM connections are not counted; a connection that ends,
 * however it ends, frees its place.
 */
@Timeout(60)
class ConnectionLimitsTest {

    private static final int MAX_CONNECTIONS = 4;
    private static final int MAX_PER_ADDRESS = 3;
    /** Another client address: the whole of 127.0.0.0/8 is the loopback interface on Linux. */
    private static final String OTHER_ADDRESS = "127.0.0.2";
    /** How long what the test waits for may take: it bounds a hang only (a loaded machine is slow). */
    private static final long SERVER_NOTICES_CLOSE_MS = 30_000;
    private static final String PER_ADDRESS_REFUSAL = "Connection from 127.0.0.1 refused: queue manager WHARF already"
            + " has 3 connections from that address, its maximum (setting maxConnectionsPerAddress). Close connections"
            + " this address does not need, or raise maxConnectionsPerAddress (clients behind one NAT or proxy share its"
            + " address).";
    private static final String TOTAL_REFUSAL = " refused: queue manager WHARF already has 4 client connections, its"
            + " maximum (setting maxConnections). Close connections that are not needed, or raise maxConnections.";

    @TempDir
    static Path dir;
    private static TestServer testServer;
    private static WharfServer server;
    /** The TLS client's trust store: the CA that issued the server's certificate. */
    private static Path serverCa;
    private static final AtomicInteger QUEUES = new AtomicInteger();

    private final List<AutoCloseable> open = new ArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        TestCertificates.Issued authority = TestCertificates.ca("server CA");
        TestCertificates.Issued certificate = TestCertificates.issue(authority, "CN=wharf-test-server",
                Duration.ofDays(30), "127.0.0.1");
        Path serverStore = certificate.pkcs12(dir.resolve("server.p12"));
        serverCa = TestCertificates.trustStore(dir.resolve("server-ca.p12"), authority.certificate());
        TlsConfig tls = TlsConfig.builder().port(0).engine(TlsConfig.Engine.JDK).keyStore(serverStore)
                .keyStorePassword(TestCertificates.PASSWORD).build();
        // with a flow host and the admin plugin: their in-VM connections must not count
        testServer = TestServer.start(c -> c.maxConnections(MAX_CONNECTIONS).maxConnectionsPerAddress(MAX_PER_ADDRESS)
                .tls(tls), c -> WharfServer.builder(c).store(new InMemoryMessageStore())
                .plugins(new FlowHost(), new AdminPlugin()).start());
        server = testServer.server();
    }

    @AfterAll
    static void stop() {
        Closing.closeWithin(testServer, "server");
    }

    @BeforeEach
    void noConnectionLeftByAnotherTest() {
        awaitNetworkConnections(0);
    }

    @AfterEach
    void closeAll() {
        for (int i = open.size() - 1; i >= 0; i--) {
            Closing.closeWithin(open.get(i), "resource");
        }
    }

    @Test
    void theConnectionPastThePerAddressLimitIsRefusedAndAnotherAddressIsNot() throws Exception {
        List<Connection> local = new ArrayList<>();
        for (int i = 0; i < MAX_PER_ADDRESS; i++) {
            local.add(connect(server.tcpUrl()));
        }
        try (LogCapture audit = LogCapture.of(AuditLog.NAME)) {
            JMSException refused = assertThrows(ResourceAllocationException.class, () -> connect(server.tcpUrl()));
            assertEquals(PER_ADDRESS_REFUSAL, refused.getMessage());
            assertEquals("TOO_MANY_CONNECTIONS", refused.getErrorCode());
            assertTrue(audit.lines().stream().anyMatch(l -> l.startsWith("WARNING connection refused: from /127.0.0.1:")
                    && l.endsWith(PER_ADDRESS_REFUSAL)), () -> "audit line: " + audit.lines());
        }

        RawFrameClient other = track(RawFrameClient.connect(OTHER_ADDRESS, server.tcpPort()));
        other.handshake(); // the other address has room

        // one place freed on 127.0.0.1: the next connection from there is accepted
        local.get(0).close();
        awaitNetworkConnections(MAX_PER_ADDRESS);
        roundTrip(connect(server.tcpUrl()));
        for (Connection connection : local.subList(1, local.size())) {
            roundTrip(connection); // the refusal harmed none of those already connected
        }
    }

    @Test
    void theConnectionPastTheTotalLimitIsRefusedOverTlsTooAndInVmConnectionsAreNotCounted() throws Exception {
        Connection first = connect(server.tcpUrl());
        for (int i = 1; i < MAX_PER_ADDRESS; i++) {
            connect(server.tcpUrl());
        }
        RawFrameClient last = track(RawFrameClient.connect(OTHER_ADDRESS, server.tcpPort()));
        last.handshake();

        try (RawFrameClient refused = RawFrameClient.connect(OTHER_ADDRESS, server.tcpPort())) {
            refused.send(new Frame.Hello(ProtocolVersion.CURRENT, "one-too-many", 0));
            assertEquals("Connection from " + OTHER_ADDRESS + TOTAL_REFUSAL,
                    refused.expectErrorAndClose(ErrorCode.TOO_MANY_CONNECTIONS).message());
        }
        // over TLS the refusal answers the HELLO inside TLS, and the JMS client reads it
        JMSException overTls = assertThrows(ResourceAllocationException.class, () -> connect(tlsUrl()));
        assertEquals("Connection from 127.0.0.1" + TOTAL_REFUSAL, overTls.getMessage());

        roundTrip(connect(server.vmUrl())); // in-process: not counted, not refused
        assertEquals(MAX_CONNECTIONS, server.networkConnections());

        first.close();
        awaitNetworkConnections(MAX_CONNECTIONS - 1);
        roundTrip(connect(tlsUrl()));
    }

    @Test
    void everyWayAConnectionEndsFreesItsPlace() throws Exception {
        try (RawFrameClient garbage = RawFrameClient.connect(server.tcpPort())) { // protocol error
            garbage.sendRaw(new byte[]{0, 0, 0, 2, 99, 1});
            garbage.expectErrorAndClose(ErrorCode.PROTOCOL_ERROR);
        }
        try (RawFrameClient oversize = RawFrameClient.connect(server.tcpPort())) { // a frame too large before HELLO_OK
            oversize.sendRaw(ByteBuffer.allocate(5).putInt(1 << 20).put(FrameType.HELLO.code()).array());
            oversize.expectErrorAndClose(ErrorCode.PROTOCOL_ERROR);
        }
        try (RawFrameClient refusedLogin = RawFrameClient.connect(server.tcpPort())) { // a failed authentication
            refusedLogin.send(new Frame.Hello(ProtocolVersion.CURRENT, "pretender", 0));
            refusedLogin.nextFrame();
            refusedLogin.send(new Frame.Auth("PLAIN", "\0alice\0pw".getBytes(StandardCharsets.UTF_8)));
            refusedLogin.expectErrorAndClose(ErrorCode.AUTHENTICATION_FAILED);
        }
        try (RawFrameClient plainOnTls = RawFrameClient.connect(server.tlsPort())) { // not TLS on the TLS port
            plainOnTls.send(new Frame.Hello(ProtocolVersion.CURRENT, "plain", 0));
            plainOnTls.expectErrorAndClose(ErrorCode.PROTOCOL_ERROR);
        }
        // a failed TLS handshake: the client does not trust the server's certificate (no trust store given)
        assertThrows(JMSException.class, () -> connect(server.tlsUrl()));
        // dropped without CLOSE after the handshake
        try (RawFrameClient dropped = RawFrameClient.connect(server.tcpPort())) {
            dropped.handshake();
        }
        // closed properly
        connect(server.tcpUrl()).close();

        awaitNetworkConnections(0);
        for (int i = 0; i < MAX_PER_ADDRESS; i++) {
            roundTrip(connect(server.tcpUrl())); // every place is free again
        }
    }

    private static String tlsUrl() {
        return server.tlsUrl() + "?trustStore=" + serverCa + "&trustStorePassword=" + TestCertificates.PASSWORD;
    }

    private Connection connect(String url) throws JMSException {
        Connection connection = track(new WharfConnectionFactory(url).createConnection());
        connection.start();
        return connection;
    }

    private <T extends AutoCloseable> T track(T resource) {
        open.add(resource);
        return resource;
    }

    /** Waits for the server's count of network connections, which drops when it has seen a connection close. */
    private static void awaitNetworkConnections(int expected) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(SERVER_NOTICES_CLOSE_MS);
        while (server.networkConnections() != expected) {
            assertTrue(System.nanoTime() < deadline, () -> "the server counts " + server.networkConnections()
                    + " network connections, not " + expected + " (within " + SERVER_NOTICES_CLOSE_MS + " ms)");
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
    }

    /** A message there and back on a queue of its own. */
    private static void roundTrip(Connection connection) throws JMSException {
        Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue queue = session.createQueue("LIMITS." + QUEUES.incrementAndGet());
        MessageConsumer consumer = session.createConsumer(queue);
        session.createProducer(queue).send(session.createTextMessage("through"));
        assertEquals("through", Receive.nextText(consumer).getText());
    }
}
