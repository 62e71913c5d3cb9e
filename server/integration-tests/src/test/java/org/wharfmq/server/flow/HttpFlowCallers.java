package org.wharfmq.server.flow;

import org.wharfmq.protocol.auth.ScramCredential;
import org.wharfmq.server.security.file.SecurityFileRealm;
import org.wharfmq.server.security.file.UsersFileEditor;

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
import java.util.List;
import java.util.Map;

/**
 * The callers of the HTTP flow tests: a security file with users alice (group apps) and bob (group others), each with
 * the password NAME-pw, and their requests over HTTP Basic.
 */
final class HttpFlowCallers {

    static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();

    private HttpFlowCallers() {
    }

    /** The security file {@code dir/security.yaml} with {@code rules} and the users alice and bob, opened. */
    static SecurityFileRealm realm(Path dir, String rules) throws Exception {
        Path security = dir.resolve("security.yaml");
        Files.writeString(security, rules);
        UsersFileEditor users = UsersFileEditor.open(security);
        for (Map.Entry<String, String> user : Map.of("alice", "apps", "bob", "others").entrySet()) {
            users.put(user.getKey(), ScramCredential.create((user.getKey() + "-pw").toCharArray(), 4096,
                    new SecureRandom()), List.of(user.getValue()));
        }
        users.save();
        return SecurityFileRealm.open(security);
    }

    /** A request to {@code url} as {@code user} (null: anonymous). */
    static HttpRequest.Builder request(String url, String user) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30));
        if (user != null) {
            request.header("Authorization", "Basic " + Base64.getEncoder().encodeToString((user + ":" + user + "-pw")
                    .getBytes(StandardCharsets.UTF_8)));
        }
        return request;
    }

    /** POSTs {@code body} to {@code url} as {@code user} (null: anonymous). */
    static HttpResponse<String> post(String url, String user, String body) throws Exception {
        return CLIENT.send(request(url, user).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
