package org.wharfmq.server.flow;

import org.junit.jupiter.api.Test;
import org.wharfmq.flow.FlowDefinition;
import org.wharfmq.flow.JavaComputeNode;
import org.wharfmq.flow.MessageAssembly;
import org.wharfmq.flow.node.DatabaseNode;
import org.wharfmq.flow.node.DatabaseRetrieveNode;
import org.wharfmq.flow.node.HttpInputNode;
import org.wharfmq.flow.node.HttpReplyNode;
import org.wharfmq.flow.runtime.FlowConfiguration;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.http.HttpPlugin;
import org.wharfmq.server.http.HttpSettings;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An HTTP flow whose data source gives no connection (its pool all in use for the whole connection timeout, or its
 * database down) answers 503 Service Unavailable with Retry-After, naming the data source and the timeout, not 500
 * (the flow's fault) nor 400 (the caller's): the same request may succeed later.
 */
class HttpDatabaseUnavailableTest {

    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    /** Counted down by the held request once it holds the pool's only connection. */
    private static final CountDownLatch HOLDING = new CountDownLatch(1);
    /** Counted down by the test to let the held request finish. */
    private static final CountDownLatch RELEASE = new CountDownLatch(1);

    /** Holds its invocation (and the connection it took) until the test releases it, when the body says "hold". */
    public static final class Hold extends JavaComputeNode {
        @Override
        public void evaluate(MessageAssembly assembly) throws Exception {
            if ("hold".equals(assembly.message().bodyText())) {
                HOLDING.countDown();
                if (!RELEASE.await(30, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("the test never released the held request");
                }
            }
            MessageAssembly out = assembly.copy();
            out.message().setBody("done");
            propagate("out", out);
        }
    }

    @Test
    void aPoolHeldWholeByAnotherRequestAnswers503WithRetryAfter() throws Exception {
        String url = "jdbc:h2:mem:wharf-held-" + System.nanoTime() + ";DB_CLOSE_DELAY=-1";
        try (Connection opened = DriverManager.getConnection(url, "sa", "")) { // the database made before the flow
            opened.createStatement().execute("CREATE TABLE t (id INTEGER)");
        }
        DataSourceConfig one = new DataSourceConfig("one", url, "sa", "", 1, 1000);
        try (Served served = Served.start(one)) {
            served.host.deploy(() -> FlowDefinition.builder("held")
                    .node("in", HttpInputNode.path("/flows/held"))
                    .node("read", new DatabaseRetrieveNode("one", "SELECT COUNT(*) AS \"n\" FROM t"))
                    .node("hold", new Hold())
                    .node("reply", new HttpReplyNode())
                    .wire("in", "out", "read").wire("read", "out", "hold").wire("hold", "out", "reply")
                    .build(), 2);
            CompletableFuture<HttpResponse<String>> held = CLIENT.sendAsync(served.post("/flows/held", "hold"),
                    HttpResponse.BodyHandlers.ofString());
            assertTrue(HOLDING.await(30, TimeUnit.SECONDS), "the first request holds the pool's only connection");

            HttpResponse<String> waited = CLIENT.send(served.post("/flows/held", "go"),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(503, waited.statusCode(), waited.body());
            assertEquals(String.valueOf(FlowConfiguration.DATABASE_RETRY_AFTER_SECONDS),
                    waited.headers().firstValue("Retry-After").orElse(null));
            assertTrue(waited.body().startsWith("Flow 'held' cannot serve POST /flows/held now: Data source 'one' gave "
                    + "no connection within 1000 ms (its connectionTimeoutMillis)"), waited.body());
            assertFalse(waited.body().contains("Connection is not available"), "the pool's own text stays in the log: "
                    + waited.body());

            RELEASE.countDown();
            HttpResponse<String> done = held.get(30, TimeUnit.SECONDS);
            assertEquals(200, done.statusCode(), done.body());
            assertEquals("done", done.body());
        }
    }

    @Test
    void aDatabaseThatDoesNotAnswerAnswers503WithRetryAfter() throws Exception {
        // a port nothing listens on (the tests' own PostgreSQL driver): every connection is refused
        DataSourceConfig down = new DataSourceConfig("down", "jdbc:postgresql://127.0.0.1:1/nothing", "wharf",
                "secret", 2, 250);
        try (Served served = Served.start(down)) {
            served.host.deploy(() -> FlowDefinition.builder("unlucky")
                    .node("in", HttpInputNode.path("/flows/unlucky"))
                    .node("insert", new DatabaseNode("down", "INSERT INTO orders (note) VALUES (?)", "Body"))
                    .node("reply", new HttpReplyNode())
                    .wire("in", "out", "insert").wire("insert", "out", "reply")
                    .build(), 1);

            HttpResponse<String> answer = CLIENT.send(served.post("/flows/unlucky", "an order"),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(503, answer.statusCode(), answer.body());
            assertEquals(String.valueOf(FlowConfiguration.DATABASE_RETRY_AFTER_SECONDS),
                    answer.headers().firstValue("Retry-After").orElse(null));
            assertTrue(answer.body().contains("Data source 'down' gave no connection within 250 ms"), answer.body());
            assertFalse(answer.body().contains("127.0.0.1:1"), "the driver's text (the database's address) stays in "
                    + "the log: " + answer.body());
        }
    }

    /** A server whose flow host has {@code dataSource} and serves the flows' paths on its HTTP listener. */
    private record Served(TestServer server, FlowHost host, HttpPlugin http) implements AutoCloseable {

        static Served start(DataSourceConfig dataSource) throws Exception {
            HttpPlugin http = new HttpPlugin(HttpSettings.on("127.0.0.1"));
            FlowHost host = new FlowHost(FlowHostSettings.defaults().withDataSources(List.of(dataSource)), http);
            return new Served(TestServer.start(c -> c, config -> WharfServer.start(config, host, http)), host, http);
        }

        /** A POST of {@code body} to {@code path}, anonymous from this machine (no security file: allowed). */
        HttpRequest post(String path, String body) {
            return HttpRequest.newBuilder(URI.create(http.url() + path)).POST(HttpRequest.BodyPublishers.ofString(body))
                    .build();
        }

        @Override
        public void close() {
            server.close();
        }
    }
}
