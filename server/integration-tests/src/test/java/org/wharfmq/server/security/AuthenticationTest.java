package org.wharfmq.server.security;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.protocol.ProtocolVersion;
import org.wharfmq.protocol.auth.Mechanisms;
import org.wharfmq.protocol.auth.ScramCredential;
import org.wharfmq.protocol.auth.ScramClient;
import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.Frame;
import org.wharfmq.server.FrameClient;
import org.wharfmq.server.HostCapture;
import org.wharfmq.server.LogCapture;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.TestUsers;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.http.HttpSettings;
import org.wharfmq.server.http.HttpAnswer;
import org.wharfmq.server.http.HttpPlugin;
import org.wharfmq.server.security.file.SecurityFileRealm;
import org.wharfmq.server.security.file.UsersFileEditor;

import javax.jms.Connection;
import javax.jms.JMSSecurityException;
import javax.jms.Message;
import javax.jms.Queue;
import javax.jms.Session;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Logging in through the real client to a real server: SCRAM-SHA-256 with the right password, and every way a login
 * is refused (wrong password, unknown user, no credentials, a replayed exchange, an anonymous client from another
 * machine under the secure defaults), each with a clear error, an audit line, and slower answers after repeated
 * failures.
 */
@Timeout(60)
class AuthenticationTest {

    private static TestServer usersOnly;

    @BeforeAll
    static void start() throws Exception {
        usersOnly = TestServer.start(c -> c, config -> WharfServer.builder(config)
                .authenticator(TestUsers.withAnonymous(Authenticator.AnonymousAccess.NOWHERE, "alice")).start());
    }

    @AfterAll
    static void stop() {
        usersOnly.close();
    }

    private static WharfConnectionFactory factory(WharfServer server) {
        return new WharfConnectionFactory(server.tcpUrl());
    }

    @Test
    void theRightPasswordLogsInAndMessagesCarryTheUser() throws Exception {
        try (Connection alice = factory(usersOnly.server()).createConnection("alice", TestUsers.password("alice"))) {
            alice.start();
            Session session = alice.createSession(false, Session.AUTO_ACKNOWLEDGE);
            Queue queue = session.createQueue("AUTH.RIGHT");
            session.createProducer(queue).send(session.createTextMessage("hi"));
            Message received = session.createConsumer(queue).receive(10_000);
            assertEquals("alice", received.getStringProperty("JMSXUserID"));
        }
    }

    @Test
    void aWrongPasswordAndAnUnknownUserGetTheSameAnswer() {
        JMSSecurityException wrong = assertThrows(JMSSecurityException.class,
                () -> factory(usersOnly.server()).createConnection("alice", "not-her-password"));
        assertEquals("Authentication failed for user 'alice'.", wrong.getMessage());
        assertEquals("AUTHENTICATION_FAILED", wrong.getErrorCode());
        JMSSecurityException unknown = assertThrows(JMSSecurityException.class,
                () -> factory(usersOnly.server()).createConnection("mallory", "whatever"));
        assertEquals("Authentication failed for user 'mallory'.", unknown.getMessage(),
                "never says whether the user exists");
    }

    @Test
    void noCredentialsWhenAnonymousIsNotAllowed() {
        JMSSecurityException e = assertThrows(JMSSecurityException.class, () -> factory(usersOnly.server()).createConnection());
        assertTrue(e.getMessage().contains("requires a user name and password") && e.getMessage().contains("SCRAM-SHA-256"),
                e.getMessage());
    }

    /**
     * Users whose verifiers have more iterations than the default ({@code bin/wharf user add --iterations 10000}, as
     * the threat model advises for weak passwords): an unknown user's challenge asks for as many, so the challenge
     * does not say who exists. (It asked for 4096, the minimum, whatever the users had.)
     */
    @Test
    void anUnknownUsersChallengeAsksForTheIterationsTheUsersHave(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("security.yaml");
        Files.writeString(file, "users: {}\n");
        UsersFileEditor users = UsersFileEditor.open(file);
        for (String user : List.of("alice", "bob")) {
            users.put(user, ScramCredential.create((user + "-pw").toCharArray(), 10_000, new SecureRandom()),
                    List.of("apps"));
        }
        users.save();
        try (SecurityFileRealm realm = SecurityFileRealm.open(file);
             TestServer server = TestServer.start(c -> c, config -> WharfServer.builder(config).authenticator(realm)
                     .start())) {
            assertEquals("10000", challengeIterations(server.server(), "alice"));
            assertEquals("10000", challengeIterations(server.server(), "mallory"), "an unknown user's decoy asks for "
                    + "what the users have");
        }
    }

    /** The iteration count the server's SCRAM challenge asks {@code user} for. */
    private static String challengeIterations(WharfServer server, String user) throws Exception {
        try (FrameClient client = FrameClient.tcp(server)) {
            client.send(new Frame.Hello(ProtocolVersion.CURRENT, "decoy", 0));
            client.expect(Frame.AuthMechanisms.class);
            client.send(new Frame.Auth(Mechanisms.SCRAM_SHA_256, new ScramClient(user, "guess".toCharArray())
                    .clientFirst()));
            String challenge = new String(client.expect(Frame.AuthChallenge.class).data(), StandardCharsets.UTF_8);
            return challenge.substring(challenge.indexOf(",i=") + 3);
        }
    }

    /** An eavesdropper who recorded a login replays its messages on a new connection: the server's nonce differs. */
    @Test
    void aReplayedScramExchangeIsRefused() throws Exception {
        Frame.Auth first;
        Frame.AuthResponse last;
        try (FrameClient recorded = FrameClient.tcp(usersOnly.server())) {
            recorded.send(new Frame.Hello(ProtocolVersion.CURRENT, "victim", 0));
            assertEquals(List.of(Mechanisms.SCRAM_SHA_256), recorded.expect(Frame.AuthMechanisms.class).mechanisms());
            ScramClient scram = new ScramClient("alice", TestUsers.password("alice").toCharArray());
            first = new Frame.Auth(Mechanisms.SCRAM_SHA_256, scram.clientFirst());
            recorded.send(first);
            last = new Frame.AuthResponse(scram.clientFinal(recorded.expect(Frame.AuthChallenge.class).data()));
            recorded.send(last);
            assertEquals("alice", recorded.expect(Frame.HelloOk.class).user());
        }
        try (FrameClient replay = FrameClient.tcp(usersOnly.server())) {
            replay.send(new Frame.Hello(ProtocolVersion.CURRENT, "replay", 0));
            replay.expect(Frame.AuthMechanisms.class);
            replay.send(first);
            replay.expect(Frame.AuthChallenge.class);
            replay.send(last);
            Frame.Error error = replay.expect(Frame.Error.class);
            assertEquals(ErrorCode.AUTHENTICATION_FAILED, error.code());
            assertEquals("Authentication failed for user 'alice'.", error.message());
            replay.awaitClosed();
        }
    }

    /**
     * Each failure is an audit line naming the user, the address and the reason; after 5 failures from one address the
     * answers to it are held back (250 ms, then doubling). A fresh server: the throttle counts per server.
     */
    /**
     * A client that keeps failing as app2 (over the wire and over HTTP) slows app2 from its address, not app1 from the
     * same address: the server's throttle holds no delay for app1, whose logins, right and wrong, are answered at once
     * (the audit line of app1's typo says no delay), while app2's answers wait.
     */
    @Test
    void aClientFailingForOneUserDoesNotSlowAnotherUserOnTheSameAddress() throws Exception {
        HttpPlugin http = new HttpPlugin(HttpSettings.on("127.0.0.1"));
        http.routes().get("/who", Permission.CONNECT, call -> HttpAnswer.text(HttpAnswer.TEXT, call.who().user()));
        HostCapture queueManager = new HostCapture();
        try (TestServer fresh = TestServer.start(c -> c,
                config -> WharfServer.builder(config).authenticator(TestUsers.of("app1", "app2"))
                        .plugins(queueManager, http)
                        .start());
             LogCapture audit = LogCapture.of(AuditLog.NAME)) {
            WharfConnectionFactory factory = factory(fresh.server());
            InetAddress local = InetAddress.getByName("127.0.0.1");
            LoginThrottle throttle = queueManager.host().logins().throttle();
            for (int i = 1; i <= 6; i++) {
                assertThrows(JMSSecurityException.class, () -> factory.createConnection("app2", "guess"));
            }
            assertEquals(401, httpGet(http.url() + "/who", "app2", "guess").statusCode());
            assertEquals(1_000, throttle.delayMillis("app2", local), "app2 is slowed from 127.0.0.1");
            assertEquals(0, throttle.delayMillis("app1", local), "app1 is not, from the same address");

            assertThrows(JMSSecurityException.class, () -> factory.createConnection("app1", "typo"));
            String typo = audit.messages().get(audit.messages().size() - 1);
            assertTrue(typo.contains("login failed: user 'app1'") && !typo.contains("delayed"), typo);
            try (Connection app1 = factory.createConnection("app1", TestUsers.password("app1"))) {
                app1.createSession(false, Session.AUTO_ACKNOWLEDGE).close();
            }
            HttpResponse<String> who = httpGet(http.url() + "/who", "app1", TestUsers.password("app1"));
            assertEquals(200, who.statusCode(), who.body());
            assertEquals("app1", who.body());
            assertEquals(0, throttle.delayMillis("app1", local), "a typo is not five");
        }
    }

    private static HttpResponse<String> httpGet(String url, String user, String password) throws Exception {
        String basic = Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url)).header("Authorization",
                "Basic " + basic).timeout(Duration.ofSeconds(30)).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void failuresAreAuditedAndSlowedAfterFive() throws Exception {
        List<LogRecord> audit = new CopyOnWriteArrayList<>();
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord record) {
                audit.add(record);
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        Logger auditLogger = Logger.getLogger(AuditLog.NAME);
        auditLogger.addHandler(capture);
        try (TestServer fresh = TestServer.start(c -> c, config -> WharfServer.builder(config).authenticator(TestUsers.of("bob")).start())) {
            WharfConnectionFactory factory = factory(fresh.server());
            for (int i = 1; i <= 5; i++) {
                assertThrows(JMSSecurityException.class, () -> factory.createConnection("bob", "guess"));
            }
            assertEquals(5, audit.size(), "one audit line per failure");
            String line = audit.get(0).getMessage();
            assertTrue(line.contains("login failed: user 'bob' from /127.0.0.1:") && line.contains("SCRAM-SHA-256")
                    && line.contains("wrong password"), line);
            assertFalse(line.contains("delayed"), line);

            long started = System.nanoTime();
            assertThrows(JMSSecurityException.class, () -> factory.createConnection("bob", "guess"));
            long tookMillis = (System.nanoTime() - started) / 1_000_000;
            assertTrue(tookMillis >= 250, "the sixth answer was held back, took " + tookMillis + " ms");
            assertTrue(audit.get(5).getMessage().contains("answer delayed 250 ms"), audit.get(5).getMessage());
        } finally {
            auditLogger.removeHandler(capture);
        }
    }

    /**
     * The secure default (no users): a client from another address of this machine is refused at HELLO, told why and
     * what to change; a local one connects.
     */
    @Test
    void anAnonymousClientFromAnotherAddressIsRefusedUnderTheDefaults() throws Exception {
        InetAddress external = nonLoopbackAddress();
        Assumptions.assumeTrue(external != null, "this machine has no non-loopback IPv4 address to connect from");
        try (TestServer defaults = TestServer.start(c -> c.host("0.0.0.0"))) {
            factory(defaults.server()).createConnection().close(); // from 127.0.0.1: allowed
            WharfConnectionFactory remote = new WharfConnectionFactory("tcp://" + external.getHostAddress() + ":"
                    + defaults.server().tcpPort());
            JMSSecurityException e = assertThrows(JMSSecurityException.class, remote::createConnection);
            assertTrue(e.getMessage().contains("accepts only local clients (127.0.0.1, ::1); this connection comes from "
                    + external.getHostAddress()), e.getMessage());
            assertTrue(e.getMessage().contains("bin/wharf user add") && e.getMessage().contains("allowAnonymous: true"),
                    e.getMessage());
        }
    }

    private static InetAddress nonLoopbackAddress() throws Exception {
        for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
            if (!nic.isUp() || nic.isLoopback()) {
                continue;
            }
            for (InetAddress address : Collections.list(nic.getInetAddresses())) {
                if (address instanceof Inet4Address && !address.isLoopbackAddress() && !address.isLinkLocalAddress()) {
                    return address;
                }
            }
        }
        return null;
    }
}
