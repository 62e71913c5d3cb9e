package org.wharfmq.server.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.server.LogCapture;
import org.wharfmq.server.security.AuditLog;

import javax.jms.Connection;
import javax.jms.JMSException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The web console's JSON API over a real server with the security file's users and the JDK's HTTP client: the admin
 * commands' answers, reads for monitor, actions (purge, move, end a connection) for admin only, POSTs refused without
 * the anti-CSRF header or from another site, bad arguments refused clearly, actions audited, the page served with its
 * Content-Security-Policy.
 */
class ConsoleApiTest {

    @TempDir
    static Path dir;

    private static ConsoleServer server;
    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();
    private static final ObjectMapper JSON = new ObjectMapper();

    @BeforeAll
    static void start() throws Exception {
        server = new ConsoleServer(dir);
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void aMonitorSeesTheQueuesInTheAdminCommandsJson() throws Exception {
        server.send("API.SEEN", 3);
        HttpResponse<String> queues = get("/api/display-queues?pattern=API.SEEN", "alice");
        assertEquals(200, queues.statusCode(), queues.body());
        JsonNode queue = JSON.readTree(queues.body()).get(0);
        assertEquals("API.SEEN", queue.get("name").asText());
        assertEquals(3, queue.get("depth").asLong());
        assertEquals(3, queue.get("enqueued").asLong(), "the counters the page's rates come from");

        JsonNode me = JSON.readTree(get("/api/me", "alice").body());
        assertEquals("alice", me.get("user").asText());
        assertEquals(false, me.get("admin").asBoolean());
        assertEquals(true, JSON.readTree(get("/api/me", "root").body()).get("admin").asBoolean());
        assertEquals(403, get("/api/display-queues", "bob").statusCode(), "bob may only connect");
    }

    @Test
    void anAdminPurgesAQueueWithTheConsolesHeaderAndTheActionIsAudited() throws Exception {
        server.send("API.PURGED", 4);
        List<String> audit;
        HttpResponse<String> purged;
        try (LogCapture capture = LogCapture.of(AuditLog.NAME)) {
            purged = post("/api/clear-queue", "root", "{\"queue\": \"API.PURGED\"}", true);
            audit = capture.messages();
        }
        assertEquals(200, purged.statusCode(), purged.body());
        assertEquals(4, JSON.readTree(purged.body()).get("removed").asLong());
        assertEquals(0, server.browse("API.PURGED"), "the server holds none");
        assertTrue(audit.contains("ADMIN user 'root' ran 'clear-queue' queue=API.PURGED (web console over HTTP): OK"),
                audit.toString());
    }

    @Test
    void aPostWithoutTheAntiCsrfHeaderIsRefusedAndChangesNothing() throws Exception {
        server.send("API.KEPT", 2);
        HttpResponse<String> refused;
        HttpResponse<String> crossSite;
        List<String> audit;
        try (LogCapture capture = LogCapture.of(AuditLog.NAME)) {
            refused = post("/api/clear-queue", "root", "{\"queue\": \"API.KEPT\"}", false);
            crossSite = send(request("/api/clear-queue", "root").header("X-Wharf-Console", "1")
                    .header("Sec-Fetch-Site", "cross-site")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"queue\": \"API.KEPT\"}")).build());
            audit = capture.messages();
        }
        assertEquals(403, refused.statusCode());
        assertTrue(refused.body().startsWith("POST /api/clear-queue refused: it lacks the header X-Wharf-Console: 1,"),
                refused.body());
        assertEquals(403, crossSite.statusCode());
        assertTrue(crossSite.body().contains("comes from another site (Sec-Fetch-Site: cross-site)"), crossSite.body());
        assertEquals(2, server.browse("API.KEPT"));
        // each a forgery tried with an admin's login, for the administrators to see
        assertTrue(audit.stream().anyMatch(line -> line.startsWith("REFUSED user 'root' from /127.0.0.1:")
                && line.contains(": POST /api/clear-queue refused: it lacks the header X-Wharf-Console: 1,")),
                audit.toString());
        assertTrue(audit.stream().anyMatch(line -> line.startsWith("REFUSED user 'root' from /127.0.0.1:")
                && line.contains("comes from another site (Sec-Fetch-Site: cross-site)")), audit.toString());
    }

    @Test
    void aMonitorMayNeitherActNorReadMessages() throws Exception {
        server.send("API.GUARDED", 1);
        HttpResponse<String> purge = post("/api/clear-queue", "alice", "{\"queue\": \"API.GUARDED\"}", true);
        assertEquals(403, purge.statusCode());
        assertTrue(purge.body().startsWith("User 'alice' may not administer the queue manager"), purge.body());
        assertEquals(403, get("/api/browse-queue?queue=API.GUARDED", "alice").statusCode());
        assertEquals(1, server.browse("API.GUARDED"));

        HttpResponse<String> browsed = get("/api/browse-queue?queue=API.GUARDED", "root");
        assertEquals(200, browsed.statusCode(), browsed.body());
        assertEquals("message 0", JSON.readTree(browsed.body()).get(0).get("body").get("text").asText());
    }

    @Test
    void anAdminMovesMessagesAndEndsAConnection() throws Exception {
        server.send("API.FROM", 3);
        assertEquals(200, post("/api/define-queue", "root", "{\"queue\": \"API.TO\"}", true).statusCode());
        HttpResponse<String> moved = post("/api/move", "root", "{\"from\": \"API.FROM\", \"to\": \"API.TO\", "
                + "\"limit\": 2}", true);
        assertEquals(200, moved.statusCode(), moved.body());
        assertEquals(2, JSON.readTree(moved.body()).get("messages").asLong());
        assertEquals(1, server.browse("API.FROM"));
        assertEquals(2, server.browse("API.TO"));

        try (Connection bob = server.connect("bob")) {
            bob.setClientID("console-bob");
            CompletableFuture<JMSException> told = new CompletableFuture<>();
            bob.setExceptionListener(told::complete);
            long id = -1;
            for (JsonNode connection : JSON.readTree(get("/api/display-connections", "alice").body())) {
                if ("console-bob".equals(connection.path("clientId").asText())) {
                    id = connection.get("id").asLong();
                }
            }
            assertTrue(id >= 0, "display-connections lists bob's connection");
            HttpResponse<String> ended = post("/api/end-connection", "root", "{\"connection\": " + id + "}", true);
            assertEquals(200, ended.statusCode(), ended.body());
            assertEquals("bob", JSON.readTree(ended.body()).get("user").asText());
            assertTrue(told.get(30, TimeUnit.SECONDS).getMessage().contains("ended by an administrator (user 'root')"),
                    "bob's client is told who ended it");
        }
    }

    @Test
    void badArgumentsAndUnknownQueuesAreRefusedClearly() throws Exception {
        HttpResponse<String> typo = get("/api/display-queues?patern=X", "alice");
        assertEquals(400, typo.statusCode());
        assertEquals("'display-queues' takes the arguments pattern, not 'patern'.\n", typo.body());

        HttpResponse<String> notJson = post("/api/clear-queue", "root", "queue=X", true);
        assertEquals(400, notJson.statusCode());
        assertTrue(notJson.body().startsWith("The body of POST /api/clear-queue is not JSON"), notJson.body());

        HttpResponse<String> unknown = post("/api/clear-queue", "root", "{\"queue\": \"API.NOWHERE\"}", true);
        assertEquals(404, unknown.statusCode());
        assertTrue(unknown.body().contains("API.NOWHERE"), unknown.body());

        HttpResponse<String> noFlows = get("/api/stats", "alice");
        assertEquals(404, noFlows.statusCode(), "this server has no flow host");
        assertTrue(noFlows.body().startsWith("Unknown admin command 'stats'"), noFlows.body());

        HttpResponse<String> defined = post("/api/define-queue", "root", "{\"queue\": \"API.NEW\", \"maxDepth\": 50}",
                true);
        assertEquals(200, defined.statusCode(), defined.body());
        assertEquals(50, JSON.readTree(defined.body()).get("maxDepth").asLong());

        HttpResponse<String> altered = post("/api/alter-queue", "root",
                "{\"queue\": \"API.NEW\", \"backoutThreshold\": 3, \"backoutQueue\": \"API.BACKOUT\"}", true);
        assertEquals(200, altered.statusCode(), altered.body());
        JsonNode settings = JSON.readTree(altered.body()).get("settings");
        assertEquals(3, settings.get("backoutThreshold").asInt(), altered.body());
        assertEquals("API.BACKOUT", settings.get("backoutQueue").asText(), altered.body());
        assertEquals(200, get("/api/display-prepared", "alice").statusCode(), "the prepared XA branches, for a monitor");
    }

    @Test
    void thePageIsServedWithItsContentSecurityPolicy() throws Exception {
        assertEquals(401, get("/", null).statusCode(), "behind the login");
        HttpResponse<String> page = get("/", "alice");
        assertEquals(200, page.statusCode());
        assertEquals("text/html; charset=utf-8", page.headers().firstValue("Content-Type").orElseThrow());
        String policy = page.headers().firstValue("Content-Security-Policy").orElseThrow();
        assertTrue(policy.contains("script-src 'self'") && policy.contains("frame-ancestors 'none'"), policy);
        assertTrue(page.body().contains("/console/console.js"), page.body());
        assertEquals(200, get("/console/console.js", "alice").statusCode());
        HttpResponse<String> chart = get("/console/uplot/uPlot.iife.min.js", "alice");
        assertEquals(200, chart.statusCode(), "uPlot from its WebJar");
        assertEquals("text/javascript; charset=utf-8", chart.headers().firstValue("Content-Type").orElseThrow());
    }

    @Test
    void anAdminDefinesAltersResetsStopsResolvesAndDeletesChannelsAndAMonitorMayNot() throws Exception {
        String receiver = "{\"channel\": \"CONSOLE.IN\", \"type\": \"receiver\", \"partnerQueueManager\": \"QM9\"}";
        HttpResponse<String> refused = post("/api/define-channel", "alice", receiver, true);
        assertEquals(403, refused.statusCode());
        assertTrue(refused.body().startsWith("User 'alice' may not administer the queue manager"), refused.body());
        assertEquals(403, post("/api/define-channel", "root", receiver, false).statusCode(), "the anti-CSRF header");
        assertEquals(0, channels("alice").size(), "neither defined one");
        assertEquals(403, get("/api/display-chstatus", "bob").statusCode(), "bob may only connect");
        assertEquals(403, get("/api/display-pubsub", "bob").statusCode());

        List<String> audit;
        HttpResponse<String> defined;
        try (LogCapture capture = LogCapture.of(AuditLog.NAME)) {
            defined = post("/api/define-channel", "root", receiver, true);
            audit = capture.messages();
        }
        assertEquals(200, defined.statusCode(), defined.body());
        assertEquals("defined at run time", JSON.readTree(defined.body()).get("origin").asText());
        assertTrue(audit.stream().anyMatch(line -> line.startsWith("ADMIN user 'root' ran 'define-channel'")
                && line.endsWith("(web console over HTTP): OK")), audit.toString());
        assertEquals(200, post("/api/define-channel", "root", "{\"channel\": \"CONSOLE.OUT\", \"type\": \"sender\","
                + " \"connection\": \"tcp://127.0.0.1:1\", \"transmissionQueue\": \"CONSOLE.XMITQ\", \"batchSize\": 7}",
                true).statusCode());
        HttpResponse<String> unknown = post("/api/define-channel", "root", "{\"channel\": \"X\", \"colour\": 1}", true);
        assertEquals(400, unknown.statusCode());
        assertTrue(unknown.body().startsWith("'define-channel' takes the arguments "), unknown.body());
        assertTrue(unknown.body().strip().endsWith(", not 'colour'."), unknown.body());

        HttpResponse<String> altered = post("/api/alter-channel", "root",
                "{\"channel\": \"CONSOLE.OUT\", \"batchSize\": 9}", true);
        assertEquals(200, altered.statusCode(), altered.body());
        assertTrue(JSON.readTree(altered.body()).asText().startsWith("Channel CONSOLE.OUT altered;"), altered.body());
        JsonNode out = JSON.readTree(get("/api/display-channel?channel=CONSOLE.OUT", "alice").body()).get(0);
        assertEquals("9", out.get("batchSize").asText());

        assertEquals(200, post("/api/reset-channel", "root", "{\"channel\": \"CONSOLE.IN\", \"sequence\": 42}", true)
                .statusCode());
        assertEquals(42, status("CONSOLE.IN").get("sequence").asLong());
        assertEquals(200, post("/api/stop-channel", "root", "{\"channel\": \"CONSOLE.IN\"}", true).statusCode());
        assertEquals("operator", status("CONSOLE.IN").get("stopCause").asText());
        assertEquals(200, post("/api/start-channel", "root", "{\"channel\": \"CONSOLE.IN\"}", true).statusCode());
        assertEquals("INACTIVE", status("CONSOLE.IN").get("state").asText());

        HttpResponse<String> running = post("/api/resolve-channel", "root",
                "{\"channel\": \"CONSOLE.OUT\", \"action\": \"commit\"}", true);
        assertEquals(400, running.statusCode());
        assertTrue(running.body().contains("Stop it first ('wharf admin stop channel CONSOLE.OUT') to resolve them by"
                + " hand."), running.body());
        assertEquals(200, post("/api/stop-channel", "root", "{\"channel\": \"CONSOLE.OUT\"}", true).statusCode());
        HttpResponse<String> nothing = post("/api/resolve-channel", "root",
                "{\"channel\": \"CONSOLE.OUT\", \"action\": \"backout\"}", true);
        assertEquals(400, nothing.statusCode());
        assertEquals("Channel 'CONSOLE.OUT' has no batch in doubt: nothing to resolve.", nothing.body().strip());

        assertEquals(200, post("/api/delete-channel", "root", "{\"channel\": \"CONSOLE.OUT\"}", true).statusCode());
        assertEquals(200, post("/api/delete-channel", "root", "{\"channel\": \"CONSOLE.IN\"}", true).statusCode());
        assertEquals(0, channels("root").size());
    }

    private static JsonNode channels(String user) throws Exception {
        HttpResponse<String> channels = get("/api/display-channel", user);
        assertEquals(200, channels.statusCode(), channels.body());
        return JSON.readTree(channels.body());
    }

    private static JsonNode status(String channel) throws Exception {
        for (JsonNode c : JSON.readTree(get("/api/display-chstatus", "alice").body())) {
            if (c.get("name").asText().equals(channel)) {
                return c;
            }
        }
        throw new AssertionError("no " + channel + " in display-chstatus");
    }

    private static HttpResponse<String> get(String path, String user) throws Exception {
        return send(request(path, user).GET().build());
    }

    private static HttpResponse<String> post(String path, String user, String body, boolean consoleHeader)
            throws Exception {
        HttpRequest.Builder builder = request(path, user).header("Content-Type", "application/json");
        if (consoleHeader) {
            builder.header("X-Wharf-Console", "1");
        }
        return send(builder.POST(HttpRequest.BodyPublishers.ofString(body)).build());
    }

    private static HttpRequest.Builder request(String path, String user) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create(server.url() + path))
                .timeout(Duration.ofSeconds(30));
        return user == null ? builder : builder.header("Authorization", ConsoleServer.basic(user));
    }

    private static HttpResponse<String> send(HttpRequest request) throws Exception {
        return CLIENT.send(request, HttpResponse.BodyHandlers.ofString());
    }
}
