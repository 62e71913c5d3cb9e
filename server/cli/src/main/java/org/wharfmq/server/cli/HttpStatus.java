package org.wharfmq.server.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Locale;

/**
 * {@code wharf admin --url http://HOST:PORT} (or {@code https://}): a member's own status over its HTTP listener,
 * one of the two ways a replica of a replicated queue manager answers (the other is a status session on its client
 * address, {@link StatusClient}; docs/resilience.md, "A member's own status"). One request, {@code GET /api/display-server}, as the user (HTTP Basic,
 * checked against the member's security file; the {@code monitor} permission, as on the admin command queue). Any
 * other command is refused here, before it is sent, naming the active member (as this member's status says) and the
 * fix. No new entry point on the server: the route is the one the console and the replica's listener serve.
 */
final class HttpStatus {

    /** The route: the admin command {@code display-server} as the console's API answers it. */
    static final String PATH = "/api/display-server";
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final ObjectMapper JSON = new ObjectMapper();

    private HttpStatus() {
    }

    /** Whether {@code url} names a member's HTTP listener rather than its client listener. */
    static boolean isHttp(String url) {
        String lower = url.toLowerCase(Locale.ROOT);
        return lower.startsWith("http://") || lower.startsWith("https://");
    }

    /**
     * Asks the member {@code server} names for its status.
     *
     * @throws IllegalArgumentException when the URL is not host:port, or would send a password in clear to another
     *                                  host (http:// to an address that is not this machine's loopback)
     * @throws IOException              when the member cannot be reached
     */
    static AdminClient.Reply displayServer(ServerOption server) throws IOException {
        URI uri = URI.create(server.url.replaceAll("/+$", "") + PATH);
        if (uri.getHost() == null) {
            throw new IllegalArgumentException("--url " + server.url + " names no host: give http://HOST:PORT (the "
                    + "member's http: block).");
        }
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(TIMEOUT).GET();
        if (server.user != null) {
            if (uri.getScheme().equalsIgnoreCase("http") && !InetAddress.getByName(uri.getHost()).isLoopbackAddress()) {
                throw new IllegalArgumentException("--url " + server.url + " would send the password of user '"
                        + server.user + "' in clear (HTTP Basic) to another host: use https:// (the member's http: "
                        + "block with TLS), or run wharf admin on that host.");
            }
            request.header("Authorization", server.basicAuthorization());
        }
        HttpResponse<String> answer;
        try {
            answer = HttpClient.newBuilder().connectTimeout(TIMEOUT).build()
                    .send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
        ObjectNode reply = JSON.createObjectNode();
        reply.put("command", "display-server");
        if (answer.statusCode() == 200) {
            reply.put("ok", true);
            reply.set("result", JSON.readTree(answer.body()));
        } else {
            reply.put("ok", false);
            reply.put("error", answer.body().strip() + " (HTTP " + answer.statusCode() + " from " + uri + ")");
            reply.put("reason", answer.statusCode() == 401 || answer.statusCode() == 403 ? "NOT_AUTHORISED" : "REFUSED");
        }
        try {
            return AdminClient.Reply.of(JSON.writeValueAsString(reply));
        } catch (javax.jms.JMSException e) {
            throw new IOException(e.getMessage(), e); // our own JSON: not reached
        }
    }

    /**
     * Why {@code command} is not run over HTTP, and where to run it: the active member, as {@code status} (this
     * member's answer, null when it had none) names it.
     */
    static String refusal(String command, String url, AdminClient.Reply status) {
        String active = "";
        if (status != null && status.ok()) {
            JsonNode replication = status.result().path("replication");
            String id = replication.path("active").asText("");
            if (!id.isEmpty()) {
                active = " This member (" + replication.path("member").asText() + ", " + replication.path("role")
                        .asText() + ") says the active member is " + id + " (replication address "
                        + replication.path("members").path(id).asText("?") + ").";
            } else if (replication.isMissingNode() || replication.isNull()) {
                active = " This queue manager is not replicated: give its client address.";
            } else {
                active = " This member knows of no active member now (an election is under way): ask again.";
            }
        }
        return "'" + command + "' is not run over HTTP (--url " + url + "): there wharf admin asks a member only for "
                + "its own status ('display server', which every member answers, a replica too). Run it with --url "
                + "naming the active member's client address (tcp://HOST:PORT)." + active;
    }
}
