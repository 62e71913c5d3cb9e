package org.wharfmq.server.it;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.jms.Connection;
import javax.jms.JMSSecurityException;
import javax.jms.Session;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The HTTP listener lets in exactly whom the wire lets in: once the rule becomes {@code connect: [group:apps,
 * group:ops]}, the admin (group admins) is refused on the wire ("may not connect"), and over HTTP too, from its next
 * request on, for the console's views and its actions alike, though {@code admin} is still granted to it:
 * {@code admin} does not include {@code connect}.
 */
class HttpConnectPermissionTest {

    @TempDir
    static Path dir;

    private static ConsoleServer server;
    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();

    @BeforeAll
    static void start() throws Exception {
        server = new ConsoleServer(dir);
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void anAdminWhoseConnectIsRevokedIsRefusedOverHttpAsOnTheWire() throws Exception {
        assertEquals(200, get("/api/me", "root").statusCode(), "while anyone may connect");
        server.connectRule("[group:apps, group:ops]");

        JMSSecurityException wire = assertThrows(JMSSecurityException.class, () -> server.connect("root").close());
        assertTrue(wire.getMessage().contains("User 'root' may not connect to the queue manager"), wire.getMessage());

        try (Connection bob = server.connect("bob")) { // an application that may connect fills a queue
            Session session = bob.createSession();
            session.createProducer(session.createQueue("HTTP.CONNECT.KEPT")).send(session.createTextMessage("kept"));
        }
        HttpResponse<String> me = get("/api/me", "root");
        assertEquals(403, me.statusCode(), me.body());
        assertTrue(me.body().contains("User 'root' may not connect to the queue manager"), me.body());
        HttpResponse<String> browse = get("/api/browse-queue?queue=HTTP.CONNECT.KEPT", "root");
        assertEquals(403, browse.statusCode(), browse.body());
        assertTrue(browse.body().contains("may not connect"), browse.body());
        HttpResponse<String> clear = send(request("/api/clear-queue", "root").header("X-Wharf-Console", "1")
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"queue\": \"HTTP.CONNECT.KEPT\"}")).build());
        assertEquals(403, clear.statusCode(), clear.body());
        assertTrue(clear.body().contains("may not connect"), clear.body());

        assertEquals(200, get("/api/me", "alice").statusCode(), "a monitor who may connect still sees the console");
        try (Connection bob = server.connect("bob")) {
            bob.start();
            Session session = bob.createSession();
            assertEquals(1, Collections.list(session.createBrowser(session.createQueue("HTTP.CONNECT.KEPT"))
                    .getEnumeration()).size(), "the refused clear removed nothing");
        }
    }

    private static HttpResponse<String> get(String path, String user) throws Exception {
        return send(request(path, user).GET().build());
    }

    private static HttpRequest.Builder request(String path, String user) {
        return HttpRequest.newBuilder(URI.create(server.url() + path)).timeout(Duration.ofSeconds(30))
                .header("Authorization", ConsoleServer.basic(user));
    }

    private static HttpResponse<String> send(HttpRequest request) throws Exception {
        return CLIENT.send(request, HttpResponse.BodyHandlers.ofString());
    }
}
