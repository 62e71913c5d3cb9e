package org.wharfmq.server.it;

import org.wharfmq.server.TestCertificates;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.protocol.auth.ScramCredential;
import org.wharfmq.server.LogCapture;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.config.TlsConfig;
import org.wharfmq.server.http.HttpAnswer;
import org.wharfmq.server.http.HttpPlugin;
import org.wharfmq.server.http.HttpSettings;
import org.wharfmq.server.security.AuditLog;
import org.wharfmq.server.security.Permission;
import org.wharfmq.server.security.file.SecurityFileRealm;
import org.wharfmq.server.security.file.UsersFileEditor;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The HTTP listener over a real server and the JDK's HTTP client: HTTP Basic against the users file, the permission
 * rules (monitor, admin includes it), refusals that say why, bad requests answered and the listener unharmed, HTTPS
 * with the TLS listener's key, anonymous callers from this machine when there are no users.
 */
class HttpListenerTest {

    @TempDir
    static Path dir;

    private static SecurityFileRealm realm;
    private static TestServer secured;
    private static HttpPlugin http;
    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();

    @BeforeAll
    static void start() throws Exception {
        Path security = dir.resolve("security.yaml");
        Files.writeString(security, """
                users: {}
                allowAnonymous: false
                permissions:
                  - connect: [anyone]
                  - monitor: [group:ops]
                  - admin: [group:admins]
                """);
        UsersFileEditor users = UsersFileEditor.open(security);
        for (Map.Entry<String, String> user : Map.of("alice", "ops", "bob", "apps", "root", "admins").entrySet()) {
            users.put(user.getKey(), ScramCredential.create((user.getKey() + "-pw").toCharArray(), 4096,
                    new SecureRandom()), List.of(user.getValue()));
        }
        users.save();
        realm = SecurityFileRealm.open(security);
        http = new HttpPlugin(HttpSettings.on("127.0.0.1"));
        http.routes().get("/test/who", Permission.MONITOR, call -> HttpAnswer.json(Map.of("user", call.who().user(),
                "mechanism", call.who().mechanism())));
        http.routes().post("/test/echo", Permission.MONITOR, call -> HttpAnswer.text(HttpAnswer.TEXT,
                call.bodyText().length() + " characters, name=" + call.parameter("name")));
        http.routes().get("/test/admin", Permission.ADMIN, call -> HttpAnswer.json(List.of("done")));
        http.routes().resources("/static/", Permission.MONITOR, HttpListenerTest.class.getClassLoader(),
                "org/wharfmq/server/it/http-static/");
        http.routes().get("/test/bad", Permission.MONITOR, call -> {
            throw new IllegalArgumentException("Parameter 'limit' must be a number, not 'x'.");
        });
        secured = TestServer.start(UnaryOperator.identity(),
                config -> WharfServer.builder(config).authenticator(realm).accessControl(realm.accessControl())
                        .plugins(http).start());
    }

    @AfterAll
    static void stop() {
        secured.close();
        realm.close();
    }

    @Test
    void withoutCredentialsTheListenerAsksForALogin() throws Exception {
        HttpResponse<String> answer = get("/test/who", null);
        assertEquals(401, answer.statusCode());
        assertTrue(answer.headers().firstValue("WWW-Authenticate").orElse("").startsWith("Basic realm="),
                answer.headers().map().toString());
        assertTrue(answer.body().contains("accepts no anonymous HTTP clients from 127.0.0.1: log in"), answer.body());
    }

    /**
     * The caller is decided from the request's head: one that cannot log in, or may not call the route, is answered
     * at once and the connection closed, its body never waited for (the old listener read it first, up to the route's
     * limit: these waited for their 60000 bytes, and a gigabyte declared was answered 413).
     */
    @Test
    void aCallerWhoMayNotIsRefusedFromTheHeadBeforeItsBodyIsRead() throws Exception {
        String anonymous = refusedUnread("POST /test/echo HTTP/1.1\r\nHost: x\r\nContent-Length: 60000\r\n\r\n");
        assertTrue(anonymous.startsWith("HTTP/1.1 401 Unauthorized\r\n"), anonymous);
        assertTrue(anonymous.toLowerCase(java.util.Locale.ROOT).contains("\r\nconnection: close\r\n"), anonymous);
        assertTrue(anonymous.endsWith("accepts no anonymous HTTP clients from 127.0.0.1: log in with a user of its"
                + " users file (HTTP Basic; bin/wharf user add).\n"), anonymous);

        String wrong = refusedUnread("POST /test/echo HTTP/1.1\r\nHost: x\r\nAuthorization: " + basic("alice", "guess")
                + "\r\nContent-Length: 1000000000\r\nExpect: 100-continue\r\n\r\n");
        assertTrue(wrong.startsWith("HTTP/1.1 401 Unauthorized\r\n"), "not 413, nor 100 Continue: " + wrong);
        assertTrue(wrong.endsWith("\r\n\r\nAuthentication failed for user 'alice'.\n"), wrong);

        String forbidden = refusedUnread("POST /test/echo HTTP/1.1\r\nHost: x\r\nAuthorization: "
                + basic("bob", "bob-pw") + "\r\nTransfer-Encoding: chunked\r\n\r\n7d0\r\n"); // 2000 bytes
        assertTrue(forbidden.startsWith("HTTP/1.1 403 Forbidden\r\n"), forbidden);
        assertTrue(forbidden.contains("User 'bob' may not"), forbidden);

        assertEquals(200, post("/test/echo", basic("alice", "alice-pw"), "x".repeat(60_000)).statusCode(),
                "a caller who may sends its body as before");
    }

    /**
     * Sends a request's head and the first 1000 bytes of its body, never the rest, and returns what the listener
     * answers before it ends the connection.
     */
    private static String refusedUnread(String head) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", http.port())) {
            socket.setSoTimeout(10_000); // the old listener waited 20 s for the rest of the body
            OutputStream out = socket.getOutputStream();
            out.write((head + "x".repeat(1000)).getBytes(StandardCharsets.US_ASCII));
            out.flush();
            return new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void aWrongPasswordOrAnUnknownUserIsRefusedTheSameWayAndAudited() throws Exception {
        List<String> audit;
        try (LogCapture capture = LogCapture.of(AuditLog.NAME)) {
            HttpResponse<String> wrong = get("/test/who", basic("alice", "guess"));
            HttpResponse<String> unknown = get("/test/who", basic("mallory", "alice-pw"));
            assertEquals(401, wrong.statusCode());
            assertEquals("Authentication failed for user 'alice'.\n", wrong.body());
            assertEquals(401, unknown.statusCode());
            assertEquals("Authentication failed for user 'mallory'.\n", unknown.body());
            audit = capture.messages();
        }
        assertTrue(audit.stream().anyMatch(l -> l.matches("login failed: user 'alice' from /127\\.0\\.0\\.1:\\d+ "
                + "mechanism HTTP-BASIC: wrong user name or password \\(HTTP Basic\\)")), audit.toString());
        assertTrue(audit.stream().anyMatch(l -> l.startsWith("login failed: user 'mallory'")), audit.toString());
    }

    @Test
    void theRightPasswordLogsInAndThePermissionRulesDecide() throws Exception {
        HttpResponse<String> alice = get("/test/who", basic("alice", "alice-pw"));
        assertEquals(200, alice.statusCode(), alice.body());
        assertEquals("application/json; charset=utf-8", alice.headers().firstValue("Content-Type").orElseThrow());
        assertTrue(alice.body().contains("\"user\":\"alice\""), alice.body());
        assertTrue(alice.body().contains("\"mechanism\":\"HTTP-BASIC\""), alice.body());

        assertEquals(200, get("/test/who", basic("root", "root-pw")).statusCode(), "admin includes monitor");

        HttpResponse<String> bob = get("/test/who", basic("bob", "bob-pw"));
        assertEquals(403, bob.statusCode());
        assertTrue(bob.body().startsWith("User 'bob' may not monitor the queue manager: no 'monitor' permission is "
                + "granted to it. Ask an administrator to grant 'monitor' to user:bob in the security file's "
                + "permissions."), bob.body());
        HttpResponse<String> aliceAdmin = get("/test/admin", basic("alice", "alice-pw"));
        assertEquals(403, aliceAdmin.statusCode());
        assertTrue(aliceAdmin.body().startsWith("User 'alice' may not administer the queue manager: no 'admin'"),
                aliceAdmin.body());
        assertEquals(200, get("/test/admin", basic("root", "root-pw")).statusCode());
    }

    @Test
    void badRequestsAreAnsweredClearlyAndTheListenerGoesOn() throws Exception {
        String alice = basic("alice", "alice-pw");
        HttpResponse<String> unknown = get("/nothing/here", alice);
        assertEquals(404, unknown.statusCode());
        assertTrue(unknown.body().startsWith("No resource at '/nothing/here'"), unknown.body());

        HttpResponse<String> wrongMethod = get("/test/echo", alice);
        assertEquals(405, wrongMethod.statusCode());
        assertEquals("POST", wrongMethod.headers().firstValue("Allow").orElseThrow());
        assertEquals("'/test/echo' answers POST, not GET.\n", wrongMethod.body());

        HttpResponse<String> badInput = get("/test/bad", alice);
        assertEquals(400, badInput.statusCode());
        assertEquals("Parameter 'limit' must be a number, not 'x'.\n", badInput.body());

        HttpResponse<String> tooLarge = post("/test/echo", alice, "x".repeat(70 * 1024));
        assertEquals(413, tooLarge.statusCode());
        assertEquals("Request body too large: POST /test/echo takes at most 65536 bytes (this request sent "
                + "Content-Length 71680). The limit of the listener's own pages (the console, the admin API, the "
                + "metrics) is fixed (HttpConfiguration.MAX_REQUEST_BYTES): send a smaller body.\n", tooLarge.body(),
                "names the limit and the fix");

        assertTrue(raw("GARBAGE\r\n\r\n").startsWith("HTTP/1.1 400 Bad Request"), "not HTTP");
        assertTrue(raw("GET /test/who HTTP/1.1\r\nHost: x\r\nX-Big: " + "y".repeat(20_000) + "\r\n\r\n")
                .startsWith("HTTP/1.1 431"), "a header past the codec's limit");

        HttpResponse<String> echo = post("/test/echo?name=caf%C3%A9", alice, "hello");
        assertEquals(200, echo.statusCode(), "the listener still serves: " + echo.body());
        assertEquals("5 characters, name=café", echo.body());
    }

    @Test
    void pipelinedRequestsAreAnsweredInTheirOrderAndConnectionCloseIsHonoured() throws Exception {
        String answers = raw("GET /test/who HTTP/1.1\r\nHost: x\r\nAuthorization: " + basic("alice", "alice-pw")
                + "\r\n\r\nGET /nothing/here HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        int who = answers.indexOf("HTTP/1.1 200 OK");
        int missing = answers.indexOf("HTTP/1.1 404 Not Found");
        assertTrue(who >= 0 && missing > who, "the first request's answer first, then the connection closes after the"
                + " second's: " + answers);
    }

    @Test
    void aPasswordOverPlainHttpFromAnotherMachineIsRefusedUnread() throws Exception {
        InetAddress lan = nonLoopbackAddress();
        Assumptions.assumeTrue(lan != null, "this machine has no address but loopback");
        HttpPlugin everywhere = new HttpPlugin(HttpSettings.on("0.0.0.0"));
        everywhere.routes().get("/test/who", Permission.MONITOR, call -> HttpAnswer.json(List.of(call.who().user())));
        try (TestServer server = TestServer.start(UnaryOperator.identity(),
                config -> WharfServer.builder(config).authenticator(realm).accessControl(realm.accessControl())
                        .plugins(everywhere).start())) {
            URI fromLan = URI.create("http://" + lan.getHostAddress() + ":" + everywhere.port() + "/test/who");
            HttpResponse<String> refused = CLIENT.send(HttpRequest.newBuilder(fromLan)
                    .header("Authorization", basic("alice", "alice-pw")).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(401, refused.statusCode());
            assertTrue(refused.body().startsWith("Queue manager WHARF takes passwords over HTTPS only: this request sent"
                    + " one in clear over plain HTTP from " + lan.getHostAddress()), refused.body());
            URI local = URI.create("http://127.0.0.1:" + everywhere.port() + "/test/who");
            assertEquals(200, CLIENT.send(HttpRequest.newBuilder(local).header("Authorization", basic("alice",
                    "alice-pw")).build(), HttpResponse.BodyHandlers.ofString()).statusCode(), "from this machine");
        }
    }

    /** An address of this machine other than loopback, or null. */
    private static InetAddress nonLoopbackAddress() throws IOException {
        for (NetworkInterface nic : java.util.Collections.list(NetworkInterface.getNetworkInterfaces())) {
            if (nic.isUp() && !nic.isLoopback()) {
                for (InetAddress address : java.util.Collections.list(nic.getInetAddresses())) {
                    if (address instanceof Inet4Address) {
                        return address;
                    }
                }
            }
        }
        return null;
    }

    @Test
    void classPathResourcesAreServedWithTheirTypeAndNothingOutsideTheirDirectory() throws Exception {
        String alice = basic("alice", "alice-pw");
        HttpResponse<String> hello = get("/static/hello.txt", alice);
        assertEquals(200, hello.statusCode());
        assertEquals("Hello from the class path.\n", hello.body());
        assertEquals("text/plain; charset=utf-8", hello.headers().firstValue("Content-Type").orElseThrow());
        assertEquals(401, get("/static/hello.txt", null).statusCode(), "the route's permission applies");
        assertEquals(404, get("/static/missing.txt", alice).statusCode());
        assertEquals(404, get("/static/..%2Fnot-served.txt", alice).statusCode(), "no way out of the directory");
        assertTrue(raw("GET /static/../not-served.txt HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                + "Authorization: " + alice + "\r\n\r\n").startsWith("HTTP/1.1 404"), "nor with a raw ..");
    }

    @Test
    void httpsUsesTheTlsListenersKeyAndAnonymousCallersComeFromThisMachineWithoutUsers() throws Exception {
        TestCertificates.Issued ca = TestCertificates.ca("HTTP CA");
        Path serverStore = TestCertificates.issue(ca, "CN=localhost", Duration.ofDays(30), "127.0.0.1", "localhost")
                .pkcs12(dir.resolve("server.p12"));
        Path trust = TestCertificates.trustStore(dir.resolve("trust.p12"), ca.certificate());
        HttpPlugin https = new HttpPlugin(new HttpSettings("127.0.0.1", 0, true));
        https.routes().get("/test/who", Permission.MONITOR, call -> HttpAnswer.json(Map.of("anonymous",
                call.who().anonymous())));
        try (TestServer server = TestServer.start(c -> c.tls(TlsConfig.builder().port(0).keyStore(serverStore)
                        .keyStorePassword(TestCertificates.PASSWORD).build()), config -> WharfServer.start(config, https))) {
            assertTrue(https.url().startsWith("https://"), https.url());
            HttpClient tlsClient = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                    .sslContext(trusting(trust)).build();
            HttpResponse<String> answer = tlsClient.send(HttpRequest.newBuilder(
                            URI.create("https://127.0.0.1:" + https.port() + "/test/who")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, answer.statusCode(), answer.body());
            assertEquals("{\"anonymous\":true}", answer.body());
            assertThrows(IOException.class, () -> CLIENT.send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + https.port() + "/test/who")).build(),
                    HttpResponse.BodyHandlers.ofString()), "plain HTTP on the HTTPS port");
        }
    }

    private static SSLContext trusting(Path trustStore) throws Exception {
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(trustStore)) {
            store.load(in, TestCertificates.PASSWORD.toCharArray());
        }
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(store);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, trust.getTrustManagers(), null);
        return context;
    }

    private static String basic(String user, String password) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    private static HttpResponse<String> get(String path, String authorization) throws Exception {
        return CLIENT.send(request(path, authorization).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> post(String path, String authorization, String body) throws Exception {
        return CLIENT.send(request(path, authorization).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static HttpRequest.Builder request(String path, String authorization) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create(http.url() + path))
                .timeout(Duration.ofSeconds(30));
        return authorization == null ? builder : builder.header("Authorization", authorization);
    }

    /** Sends {@code bytes} on a socket of its own and returns what the listener answers before it closes. */
    private static String raw(String bytes) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", http.port())) {
            socket.setSoTimeout(30_000);
            OutputStream out = socket.getOutputStream();
            out.write(bytes.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            return new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
        }
    }
}
