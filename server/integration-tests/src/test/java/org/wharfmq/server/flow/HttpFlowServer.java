package org.wharfmq.server.flow;

import org.wharfmq.server.ServerPlugin;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.http.HttpPlugin;
import org.wharfmq.server.http.HttpSettings;
import org.wharfmq.server.security.file.SecurityFileRealm;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * The fixture of the HTTP flow tests: a queue manager whose flow host serves the flows' paths on its HTTP listener
 * (127.0.0.1), with the users and permission rules of a security file ({@link HttpFlowCallers#realm}: alice and bob),
 * and the callers' requests to it. Closing it stops the server, then the security file's realm.
 */
final class HttpFlowServer implements AutoCloseable {

    private final SecurityFileRealm realm;
    private final HttpPlugin http;
    private FlowHost flowHost;
    private TestServer server;

    private HttpFlowServer(SecurityFileRealm realm, HttpPlugin http) {
        this.realm = realm;
        this.http = http;
    }

    /**
     * Starts it with {@code rules} as {@code dir/security.yaml}; its plugins are the flow host, the HTTP listener, then
     * {@code more}.
     */
    static HttpFlowServer start(Path dir, String rules, ServerPlugin... more) throws Exception {
        HttpFlowServer started = new HttpFlowServer(HttpFlowCallers.realm(dir, rules),
                new HttpPlugin(HttpSettings.on("127.0.0.1")));
        try {
            started.server = TestServer.start(UnaryOperator.identity(), config -> {
                started.flowHost = new FlowHost(FlowHostSettings.defaults(), started.http);
                List<ServerPlugin> plugins = new ArrayList<>(List.of(started.flowHost, started.http));
                plugins.addAll(List.of(more));
                return WharfServer.builder(config).authenticator(started.realm)
                        .accessControl(started.realm.accessControl()).plugins(plugins.toArray(ServerPlugin[]::new))
                        .start();
            });
            return started;
        } catch (Exception | Error e) {
            started.close();
            throw e;
        }
    }

    /** The flow host: the queue manager's own. */
    FlowHost flowHost() {
        return flowHost;
    }

    /** The security file's realm: {@link SecurityFileRealm#reload} takes an edit of the file in at once. */
    SecurityFileRealm realm() {
        return realm;
    }

    /** The running queue manager. */
    WharfServer server() {
        return server.server();
    }

    /** The HTTP listener's port. */
    int httpPort() {
        return http.port();
    }

    /** A request to {@code path} on the HTTP listener as {@code user} (null: anonymous). */
    HttpRequest.Builder request(String path, String user) {
        return HttpFlowCallers.request(http.url() + path, user);
    }

    /** POSTs {@code body} to {@code path} on the HTTP listener as {@code user} (null: anonymous). */
    HttpResponse<String> post(String path, String user, String body) throws Exception {
        return HttpFlowCallers.post(http.url() + path, user, body);
    }

    @Override
    public void close() {
        if (server != null) {
            server.close();
        }
        realm.close();
    }
}
