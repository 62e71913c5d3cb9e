package org.wharfmq.jms;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.Frame;

import javax.jms.Connection;
import javax.jms.ConnectionMetaData;
import javax.jms.IllegalStateException;
import javax.jms.JMSException;
import javax.jms.JMSSecurityException;
import javax.jms.MessageConsumer;
import javax.jms.Session;
import java.net.ServerSocket;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertFalse;

class ConnectionTest {
    @Test
    void handshakeSendsHelloWithVersionAndNameThenAuthenticatesAnonymously() throws Exception {
        try (FakeServer server = FakeServer.inVm()) {
            server.recordAuth = true;
            Connection c = new WharfConnectionFactory(server.url() + "?clientName=app1&heartbeat=1234").createConnection();
            Frame.Hello hello = server.expect(Frame.Hello.class);
            assertEquals(3, hello.version()); // consumer windows in bytes (ProtocolVersion.CONSUMER_WINDOW_BYTES)
            assertEquals("app1", hello.clientName());
            assertEquals(1234, hello.heartbeatMillis());
            assertEquals("ANONYMOUS", server.expect(Frame.Auth.class).mechanism());
            c.close();
            server.expect(Frame.Close.class);
        }
    }

    /** With a user, the client runs SCRAM-SHA-256: its first message names the user, and the password never leaves it. */
    @Test
    void aUsersPasswordNeverCrossesTheWire() throws Exception {
        try (FakeServer server = FakeServer.inVm()) {
            server.recordAuth = true;
            server.mechanisms = List.of("SCRAM-SHA-256", "ANONYMOUS");
            server.answer = f -> f instanceof Frame.Auth
                    ? new Frame.Error(0, ErrorCode.AUTHENTICATION_FAILED, "Authentication failed for user 'alice'.", 0, 0) : null;
            JMSSecurityException e = assertThrows(JMSSecurityException.class,
                    () -> new WharfConnectionFactory(server.url()).createConnection("alice", "pencil-secret"));
            assertEquals("AUTHENTICATION_FAILED", e.getErrorCode());
            server.expect(Frame.Hello.class);
            Frame.Auth auth = server.expect(Frame.Auth.class);
            assertEquals("SCRAM-SHA-256", auth.mechanism());
            String first = new String(auth.data(), java.nio.charset.StandardCharsets.UTF_8);
            assertTrue(first.startsWith("n,,n=alice,r="), first);
            assertFalse(first.contains("pencil-secret"));
        }
    }

    /** A user given to a server without users is refused by the client, not silently made anonymous. */
    @Test
    void aUserIsNotQuietlyDroppedWhenTheServerHasNone() throws Exception {
        try (FakeServer server = FakeServer.inVm()) {
            JMSSecurityException e = assertThrows(JMSSecurityException.class,
                    () -> new WharfConnectionFactory(server.url()).createConnection("alice", "pencil-secret"));
            assertTrue(e.getMessage().contains("has no users, so it cannot log in user 'alice'")
                    && e.getMessage().contains("connect without a user name"), e.getMessage());
        }
    }

    /** A server that offers only mechanisms the client cannot use (PLAIN without TLS) is refused by the client. */
    @Test
    void plainIsNeverUsedWithoutTls() throws Exception {
        try (FakeServer server = FakeServer.inVm()) {
            server.mechanisms = List.of("PLAIN");
            JMSSecurityException e = assertThrows(JMSSecurityException.class,
                    () -> new WharfConnectionFactory(server.url()).createConnection("alice", "pencil-secret"));
            assertTrue(e.getMessage().contains("PLAIN is used only over TLS"), e.getMessage());
            server.mechanisms = List.of("SCRAM-SHA-256");
            JMSSecurityException anonymous = assertThrows(JMSSecurityException.class,
                    () -> new WharfConnectionFactory(server.url()).createConnection());
            assertTrue(anonymous.getMessage().contains("requires a user name and password"), anonymous.getMessage());
        }
    }

    @Test
    void authenticationFailureIsSecurityException() throws Exception {
        try (FakeServer server = FakeServer.inVm()) {
            server.answer = f -> f instanceof Frame.Hello
                    ? new Frame.Error(0, ErrorCode.AUTHENTICATION_FAILED, "bad password for u", 0, 0) : null;
            JMSSecurityException e = assertThrows(JMSSecurityException.class,
                    () -> new WharfConnectionFactory(server.url()).createConnection("u", "x"));
            assertEquals("bad password for u", e.getMessage());
        }
    }

    @Test
    void unreachableTcpServerSaysWhatToCheck() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        String url = "tcp://127.0.0.1:" + port;
        JMSException e = assertThrows(JMSException.class, () -> new WharfConnectionFactory(url).createConnection());
        assertEquals("Cannot connect to Wharf at " + url + ": Connection refused. Is `bin/wharf server` running?", e.getMessage());
    }

    @Test
    void missingInVmServerIsNamed() {
        JMSException e = assertThrows(JMSException.class, () -> new WharfConnectionFactory("vm://nobody-here").createConnection());
        assertTrue(e.getMessage().startsWith("Cannot connect to Wharf at vm://nobody-here: no in-VM Wharf server named 'nobody-here'"),
                e.getMessage());
    }

    @Test
    void clientIdOnlyBeforeUse() throws Exception {
        try (FakeServer server = FakeServer.inVm()) {
            Connection c = new WharfConnectionFactory(server.url()).createConnection();
            c.setClientID("me");
            assertEquals("me", c.getClientID());
            assertThrows(IllegalStateException.class, () -> c.setClientID("again"));
            Connection c2 = new WharfConnectionFactory(server.url()).createConnection();
            c2.createSession();
            assertThrows(IllegalStateException.class, () -> c2.setClientID("late"));
            c.close();
            c2.close();
        }
    }

    @Test
    void metaData() throws Exception {
        try (FakeServer server = FakeServer.inVm()) {
            Connection c = new WharfConnectionFactory(server.url()).createConnection();
            ConnectionMetaData md = c.getMetaData();
            assertEquals("Wharf", md.getJMSProviderName());
            c.close(); // the JMS version: JmsxPropertiesTest, against both clients
        }
    }

    @Test
    void lossWakesReceiveAndNotifiesListenerOnceOffTheIoThread() throws Exception {
        try (FakeServer server = FakeServer.tcp()) {
            // reconnection off: the loss is the application's at once (with it on, see server/integration-tests' ReconnectTest)
            Connection c = new WharfConnectionFactory(server.url() + "?reconnectAttempts=0").createConnection();
            AtomicInteger calls = new AtomicInteger();
            CompletableFuture<Thread> listenerThread = new CompletableFuture<>();
            CountDownLatch notified = new CountDownLatch(1);
            c.setExceptionListener(e -> {
                calls.incrementAndGet();
                listenerThread.complete(Thread.currentThread());
                notified.countDown();
            });
            Session s = c.createSession();
            MessageConsumer consumer = s.createConsumer(s.createQueue("Q"));
            c.start();
            CompletableFuture<Throwable> receiveOutcome = CompletableFuture.supplyAsync(() -> {
                try {
                    consumer.receive();
                    return null;
                } catch (Throwable t) {
                    return t;
                }
            });
            server.client().close().sync();
            Throwable t = receiveOutcome.get(5, TimeUnit.SECONDS);
            assertTrue(t instanceof JMSException && t.getMessage().contains("was lost"), String.valueOf(t));
            assertTrue(notified.await(5, TimeUnit.SECONDS));
            assertEquals("wharf-connection-lost", listenerThread.get().getName(), "not the core's own thread for it");
            JMSException send = assertThrows(JMSException.class, () -> s.createProducer(s.createQueue("Q")));
            assertTrue(send.getMessage().contains("was lost"), send.getMessage());
            c.close();
            assertEquals(1, calls.get());
        }
    }

    @Test
    void aFrameOnlyAClientSendsEndsTheConnectionNamingIt() throws Exception {
        try (FakeServer server = FakeServer.inVm()) {
            Connection c = new WharfConnectionFactory(server.url() + "?reconnectAttempts=0").createConnection();
            CompletableFuture<JMSException> lost = new CompletableFuture<>();
            c.setExceptionListener(lost::complete);
            c.createSession(); // the handshake is over
            server.send(new Frame.Credit(1, 10));
            JMSException e = lost.get(5, TimeUnit.SECONDS);
            assertTrue(e.getMessage().contains("the server sent CREDIT, a frame only a client sends"), e.getMessage());
            c.close();
        }
    }

    @Test
    void aFrameOutOfPlaceInTheHandshakeFailsTheConnect() throws Exception {
        try (FakeServer server = FakeServer.inVm()) {
            server.answer = f -> f instanceof Frame.Hello ? new Frame.Ok(1) : null;
            JMSException e = assertThrows(JMSException.class,
                    () -> new WharfConnectionFactory(server.url() + "?reconnectAttempts=0").createConnection());
            assertTrue(String.valueOf(e.getCause()).contains("the server sent OK during the handshake"),
                    e + " caused by " + e.getCause());
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void heartbeatPingsWhenIdleAndDetectsSilentServer(boolean tcp) throws Exception {
        try (FakeServer server = tcp ? FakeServer.tcp() : FakeServer.inVm()) {
            // long enough that a loaded machine's late timer cannot fire the third interval's check before the
            // first interval's PING (at 50 ms a stall of 100 ms did, once, in a full build beside two others)
            server.heartbeatMillis = 250;
            server.recordPings = true;
            Connection c = new WharfConnectionFactory(server.url() + "?reconnectAttempts=0").createConnection();
            CountDownLatch lost = new CountDownLatch(1);
            c.setExceptionListener(e -> {
                if (e.getMessage().contains("3 heartbeat intervals")) {
                    lost.countDown();
                }
            });
            server.expect(Frame.Hello.class);
            server.expect(Frame.Ping.class);
            // the fake server never pings back, so after 3 intervals the client gives up
            assertTrue(lost.await(5, TimeUnit.SECONDS));
            c.close();
        }
    }

    @Test
    void closeIsIdempotentAndRefusesFurtherUse() throws Exception {
        try (FakeServer server = FakeServer.inVm()) {
            Connection c = new WharfConnectionFactory(server.url()).createConnection();
            Session s = c.createSession();
            c.close();
            c.close();
            assertThrows(IllegalStateException.class, c::createSession);
            assertThrows(IllegalStateException.class, () -> s.createQueue("Q"));
            assertThrows(IllegalStateException.class, c::start);
        }
    }

    @Test
    void optionalApplicationServerFacilitiesSaySoWhenCalled() throws Exception {
        try (FakeServer server = FakeServer.inVm()) {
            WharfConnectionFactory f = new WharfConnectionFactory(server.url());
            Connection c = f.createConnection();
            Session s = c.createSession();
            for (org.junit.jupiter.api.function.Executable call : new org.junit.jupiter.api.function.Executable[]{
                    () -> s.setMessageListener(m -> { }),
                    () -> c.createConnectionConsumer(s.createQueue("Q"), null, null, 1)}) {
                JMSException e = assertThrows(JMSException.class, call);
                assertTrue(e.getMessage().endsWith("is not supported yet by Wharf"), e.getMessage());
            }
            c.close();
        }
    }
}
