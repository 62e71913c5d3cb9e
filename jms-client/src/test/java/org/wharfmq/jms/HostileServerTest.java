package org.wharfmq.jms;

import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.wharfmq.client.core.ClientConfiguration;
import org.wharfmq.protocol.ProtocolVersion;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.protocol.message.MessageLengthLimit;

import javax.jms.Connection;
import javax.jms.JMSException;
import javax.jms.JMSSecurityException;
import javax.jms.Session;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a server that breaks the protocol (a hostile one, an impersonator, a man in the middle of a plain TCP
 * connection) can do to the client: {@link FakeServer} speaks real frames over TCP and misbehaves; the client under
 * test is the real one (docs/security.md, "What a hostile server can do to a client").
 */
class HostileServerTest {

    /** Reconnection on, as by default: a server that breaks the protocol must still lose the connection at once. */
    private static final String RECONNECTING = "?reconnectInterval=20&reconnectMaxInterval=50&reconnectAttempts=50";

    @Test
    void aServerThatSkipsTheLoginIsNotTrustedWithAPassword() throws Exception {
        try (FakeServer server = FakeServer.tcp()) {
            server.mechanisms = java.util.List.of("SCRAM-SHA-256");
            // HELLO_OK straight after HELLO: no AUTH_MECHANISMS, no SCRAM exchange, no proof that it knows the key
            server.answer = f -> f instanceof Frame.Hello
                    ? new Frame.HelloOk(ProtocolVersion.CURRENT, "fake", "0", 0, 1 << 20, "alice", new byte[0])
                    : null;
            JMSSecurityException e = assertThrows(JMSSecurityException.class,
                    () -> new WharfConnectionFactory(server.url()).createConnection("alice", "secret").close());
            assertTrue(e.getMessage().contains("accepted the login before it offered its mechanisms"), e.getMessage());
            assertEquals(ErrorCode.AUTHENTICATION_FAILED.name(), e.getErrorCode());
        }
    }

    @Test
    void aHandshakeFrameLongerThanTheHandshakeLimitIsNotRead() throws Exception {
        try (FakeServer server = FakeServer.tcp()) {
            server.answer = f -> f instanceof Frame.Hello ? FakeServer.SILENCE : null;
            CompletableFuture<Connection> connecting = CompletableFuture.supplyAsync(() -> {
                try {
                    return new WharfConnectionFactory(server.url()).createConnection();
                } catch (JMSException e) {
                    throw new IllegalStateException(e);
                }
            });
            server.expect(Frame.Hello.class);
            int length = 16 << 20; // 16 MiB claimed before the login: only the prefix and one byte are sent
            server.client().writeAndFlush(Unpooled.buffer().writeInt(length).writeByte(0)).sync();
            ExecutionException failed = assertThrows(ExecutionException.class, () -> connecting.get(30, TimeUnit.SECONDS));
            JMSException e = assertInstanceOf(JMSException.class, failed.getCause().getCause());
            assertTrue(e.getMessage().contains("sent a frame of " + length + " bytes in the handshake, more than the "
                    + ClientConfiguration.HANDSHAKE_FRAME_BYTES), e.getMessage());
        }
    }

    /** Over TCP the blocking socket link reads the frame; in-VM, as on a NetworkLoop, a Netty decoder does. */
    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void aFrameLongerThanTheServerDeclaredEndsTheConnectionWithoutReconnecting(boolean tcp) throws Exception {
        try (FakeServer server = tcp ? FakeServer.tcp() : FakeServer.inVm()) {
            Connection c = new WharfConnectionFactory(server.url() + RECONNECTING).createConnection();
            CompletableFuture<JMSException> lost = new CompletableFuture<>();
            c.setExceptionListener(lost::complete);
            int limit = MessageLengthLimit.frameLimit(server.maxMessageLength);
            server.client().writeAndFlush(Unpooled.buffer().writeInt(limit + 1).writeByte(0)).sync();
            JMSException e = lost.get(30, TimeUnit.SECONDS);
            assertTrue(e.getMessage().contains("sent a frame of " + (limit + 1) + " bytes, more than the " + limit
                    + " it declared it may send (its maxMessageLength of " + server.maxMessageLength), e.getMessage());
            assertTrue(e.getMessage().contains("does not reconnect"), e.getMessage());
            c.close();
        }
    }

    /**
     * A server that declares the most maxMessageLength there is cannot make the client take frames that long: it reads
     * none longer than its own maxReceiveLength (by default a queue manager's default maxMessageLength) and a frame's
     * fields, and says which option to raise. (An in-VM connection takes what its server declares: that server is in
     * the same process. A Netty link's decoder is held to the bound in ChannelHostileReceiverTest, a channel's.)
     */
    @Test
    void aFrameLongerThanTheClientsMaxReceiveLengthEndsTheConnectionNamingTheOption() throws Exception {
        try (FakeServer server = FakeServer.tcp()) {
            server.maxMessageLength = Integer.MAX_VALUE; // 2 GiB declared in HELLO_OK
            Connection c = new WharfConnectionFactory(server.url() + RECONNECTING).createConnection();
            CompletableFuture<JMSException> lost = new CompletableFuture<>();
            c.setExceptionListener(lost::complete);
            int limit = MessageLengthLimit.frameLimit(ClientConfiguration.DEFAULT_MAX_RECEIVE_LENGTH);
            server.client().writeAndFlush(Unpooled.buffer().writeInt(limit + 1).writeByte(0)).sync();
            JMSException e = lost.get(30, TimeUnit.SECONDS);
            assertTrue(e.getMessage().contains("sent a frame of " + (limit + 1) + " bytes, more than the " + limit
                    + " this client reads (its maxReceiveLength of " + ClientConfiguration.DEFAULT_MAX_RECEIVE_LENGTH
                    + " bytes, lower than the server's maxMessageLength of " + Integer.MAX_VALUE), e.getMessage());
            assertTrue(e.getMessage().contains("raise the broker URL's option maxReceiveLength"), e.getMessage());
            c.close();
        }
    }

    /** An application that raised maxReceiveLength, or lowered it, gets frames up to its own bound, not the default. */
    @Test
    void maxReceiveLengthIsTheApplicationsToChoose() throws Exception {
        try (FakeServer server = FakeServer.tcp()) {
            server.maxMessageLength = 1 << 30;
            Connection c = new WharfConnectionFactory(server.url() + RECONNECTING + "&maxReceiveLength=1000")
                    .createConnection();
            CompletableFuture<JMSException> lost = new CompletableFuture<>();
            c.setExceptionListener(lost::complete);
            Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            javax.jms.MessageConsumer consumer = s.createConsumer(s.createQueue("Q"));
            c.start();
            server.expect(Frame.Hello.class);
            server.expect(Frame.CreateSession.class);
            int consumerId = server.expect(Frame.CreateConsumer.class).consumerId();
            // a frame of 2,000 bytes and more: within the 64 KiB of a frame's fields beyond 1000 bytes, so taken
            server.deliver(consumerId, 1, 1, FakeServer.text("x".repeat(2000)));
            assertEquals("x".repeat(2000), ((javax.jms.TextMessage) consumer.receive(30_000)).getText());
            int limit = MessageLengthLimit.frameLimit(1000);
            server.client().writeAndFlush(Unpooled.buffer().writeInt(limit + 1).writeByte(0)).sync();
            JMSException e = lost.get(30, TimeUnit.SECONDS);
            assertTrue(e.getMessage().contains("more than the " + limit + " this client reads (its maxReceiveLength"
                    + " of 1000 bytes"), e.getMessage());
            c.close();
        }
    }

    /**
     * ERRORs for requests that no longer wait, and refusals of consumers the client does not have, are what a server
     * can send without end: the application's log gets the first, then at most one line a minute, not one each.
     */
    @Test
    void answersForWhatNoLongerWaitsAreLoggedOnceNotOneLineEach() throws Exception {
        java.util.logging.Logger logger = java.util.logging.Logger.getLogger(
                org.wharfmq.client.core.LinkHandler.class.getName());
        java.util.List<String> warnings = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.logging.Handler capture = new java.util.logging.Handler() {
            @Override
            public void publish(java.util.logging.LogRecord r) {
                if (r.getLevel() == java.util.logging.Level.WARNING) {
                    warnings.add(r.getMessage());
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        logger.addHandler(capture);
        try (FakeServer server = FakeServer.tcp()) {
            Connection c = new WharfConnectionFactory(server.url() + RECONNECTING).createConnection();
            server.expect(Frame.Hello.class);
            int flood = 1000;
            for (int i = 1; i <= flood; i++) {
                server.client().write(new Frame.Error(1_000_000 + i, ErrorCode.UNKNOWN_DESTINATION, "flood " + i, 0,
                        0));
                server.client().write(new Frame.ConsumerFailed(1_000_000 + i, ErrorCode.UNKNOWN_DESTINATION, "flood"));
            }
            server.client().flush();
            // the barrier: the link reads in order, so the session's answer comes after every frame of the flood
            c.createSession(false, Session.AUTO_ACKNOWLEDGE).close();
            assertEquals(1, warnings.size(), "one line, not one per frame: " + warnings.size() + " lines, the first "
                    + warnings.stream().limit(3).toList());
            assertTrue(warnings.get(0).contains("reported UNKNOWN_DESTINATION for request 1000001, which no longer"
                    + " waits: flood 1"), warnings.get(0));
            c.close();
        } finally {
            logger.removeHandler(capture);
        }
    }

    @Test
    void deliveriesPastThePrefetchWindowEndTheConnection() throws Exception {
        try (FakeServer server = FakeServer.tcp()) {
            int prefetch = 2;
            Connection c = new WharfConnectionFactory(server.url() + RECONNECTING + "&prefetch=" + prefetch)
                    .createConnection();
            CompletableFuture<JMSException> lost = new CompletableFuture<>();
            c.setExceptionListener(lost::complete);
            Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            s.createConsumer(s.createQueue("Q"));
            server.expect(Frame.Hello.class);
            server.expect(Frame.CreateSession.class);
            int consumerId = server.expect(Frame.CreateConsumer.class).consumerId();
            int allowed = ClientConfiguration.maxBuffered(prefetch);
            for (int i = 1; i <= allowed + 1; i++) {
                server.deliver(consumerId, i, 1, FakeServer.text("flood " + i));
            }
            JMSException e = lost.get(30, TimeUnit.SECONDS);
            assertTrue(e.getMessage().contains("more deliveries than its prefetch window of " + prefetch + " allows: "
                    + allowed + " wait unread"), e.getMessage());
            c.close();
        }
    }

    /**
     * A guard, not a fix: the client never connects to an address a server names. A replica's NOT_ACTIVE names
     * another address; the client must not go there (it would take its SCRAM exchange, or PLAIN's password, along).
     */
    @Test
    void aReplicaNamingAnotherAddressDoesNotSendTheClientThere() throws Exception {
        try (FakeServer replica = FakeServer.tcp(); FakeServer named = FakeServer.tcp()) {
            replica.answer = f -> f instanceof Frame.Hello ? new Frame.Error(0, ErrorCode.NOT_ACTIVE,
                    "Queue manager QM1 at this address is a replica; its active member is " + named.url(), 0, 0) : null;
            JMSException e = assertThrows(JMSException.class,
                    () -> new WharfConnectionFactory(replica.url() + "?reconnectAttempts=0").createConnection());
            assertEquals(ErrorCode.NOT_ACTIVE.name(), e.getErrorCode());
            // the barrier: connections are accepted in order, so if the client had gone there, ours would not be first
            try (java.net.Socket probe = new java.net.Socket("127.0.0.1", Integer.parseInt(named.url().replaceAll(".*:", "")))) {
                assertEquals(probe.getLocalPort(), ((java.net.InetSocketAddress) named.client().remoteAddress()).getPort(),
                        "the client connected to the address the replica named");
            }
        }
    }

    /**
     * A server that closes the connection in the middle of the handshake without a word (as a queue manager whose
     * handshake deadline passed on a busy machine may, when the client's login crosses the close) fails the connect
     * with what happened, the likely why and the fix, not a bare ClosedChannelException.
     */
    @Test
    void aServerThatClosesTheConnectionDuringTheHandshakeIsNamedWithTheLikelyReasonAndTheFix() throws Exception {
        try (FakeServer server = FakeServer.tcp()) {
            server.answer = f -> f instanceof Frame.Hello ? FakeServer.SILENCE : null;
            CompletableFuture<Connection> connecting = CompletableFuture.supplyAsync(() -> {
                try {
                    return new WharfConnectionFactory(server.url() + "?reconnectAttempts=0").createConnection();
                } catch (JMSException e) {
                    throw new IllegalStateException(e);
                }
            });
            server.expect(Frame.Hello.class);
            server.client().close().await(30, TimeUnit.SECONDS);
            ExecutionException failed = assertThrows(ExecutionException.class, () -> connecting.get(30, TimeUnit.SECONDS));
            JMSException e = assertInstanceOf(JMSException.class, failed.getCause().getCause(), String.valueOf(failed.getCause()));
            assertTrue(e.getMessage().contains("closed the connection during the handshake without saying why")
                    && e.getMessage().contains("handshakeTimeoutMillis")
                    && e.getMessage().contains("connect again"), e.getMessage());
        }
    }

    @Test
    void aSecondChallengeFailsTheConnectAndClosesTheLink() throws Exception {
        try (FakeServer server = FakeServer.tcp()) {
            server.mechanisms = java.util.List.of("SCRAM-SHA-256");
            server.recordAuth = true;
            server.answer = f -> f instanceof Frame.Auth ? FakeServer.SILENCE : null;
            CompletableFuture<Connection> connecting = CompletableFuture.supplyAsync(() -> {
                try {
                    return new WharfConnectionFactory(server.url() + "?reconnectAttempts=0").createConnection("alice", "secret");
                } catch (JMSException e) {
                    throw new IllegalStateException(e);
                }
            });
            server.expect(Frame.Hello.class);
            String clientFirst = new String(server.expect(Frame.Auth.class).data(), java.nio.charset.StandardCharsets.UTF_8);
            String nonce = clientFirst.substring(clientFirst.indexOf(",r=") + 3);
            byte[] serverFirst = ("r=" + nonce + "server,s=" + java.util.Base64.getEncoder().encodeToString(new byte[16])
                    + ",i=4096").getBytes(java.nio.charset.StandardCharsets.UTF_8);
            server.send(new Frame.AuthChallenge(serverFirst));
            server.send(new Frame.AuthChallenge(serverFirst)); // the exchange has one
            ExecutionException failed = assertThrows(ExecutionException.class, () -> connecting.get(30, TimeUnit.SECONDS));
            JMSException e = assertInstanceOf(JMSException.class, failed.getCause().getCause(), String.valueOf(failed.getCause()));
            assertTrue(e.getMessage().contains("did not complete the handshake"), e.getMessage());
            assertTrue(String.valueOf(e.getCause()).contains("the server sent AUTH_CHALLENGE during the handshake"),
                    String.valueOf(e.getCause()));
            server.client().closeFuture().await(30, TimeUnit.SECONDS);
            assertTrue(!server.client().isActive(), "the client left the link open");
        }
    }

    @Test
    void anOkWhereTheRequestNeedsItsOwnAnswerIsAClearError() throws Exception {
        try (FakeServer server = FakeServer.tcp()) {
            server.answer = f -> f instanceof Frame.Auth
                    ? new Frame.HelloOk(ProtocolVersion.CURRENT, "fake", "0", 0, 1 << 20, "", new byte[0], Frame.Hello.STATUS_SESSION)
                    : f instanceof Frame.StatusRequest request ? new Frame.Ok(request.requestId()) : null;
            try (WharfStatusSession status = WharfStatusSession.open(BrokerUrl.parse(server.url()), null, null)) {
                JMSException e = assertThrows(JMSException.class, () -> status.request("display-server"));
                assertTrue(e.getMessage().contains("with OK, not the STATUS_REPLY it needs"), e.getMessage());
            }
        }
    }
}
