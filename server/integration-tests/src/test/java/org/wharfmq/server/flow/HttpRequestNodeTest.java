package org.wharfmq.server.flow;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.flow.Domain;
import org.wharfmq.flow.ExceptionList;
import org.wharfmq.flow.FlowDefinition;
import org.wharfmq.flow.JavaComputeNode;
import org.wharfmq.flow.MessageAssembly;
import org.wharfmq.flow.node.HttpRequestNode;
import org.wharfmq.flow.node.InputNode;
import org.wharfmq.flow.node.OutputNode;
import org.wharfmq.flow.records.CsvFormat;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.server.FreePorts;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;

import javax.jms.Connection;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Session;
import javax.jms.TextMessage;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The HTTP Request node in flows deployed into a real server, calling a real HTTP (and HTTPS) server on loopback:
 * a message from a queue goes to the service and the response to the output queue; 4xx/5xx, timeouts and TLS
 * failures go to the failure terminal; retries; no value of one message reaches another's request.
 */
class HttpRequestNodeTest {

    private static final char[] PASSWORD = "changeit".toCharArray();

    @TempDir
    Path dir;

    private TestServer testServer;
    private FlowHost flowHost;
    private Connection connection;
    private Session session;
    private MessageProducer producer;
    private HttpServer service;
    private ExecutorService serviceThreads;
    private final CountDownLatch release = new CountDownLatch(1);

    @BeforeEach
    void start() throws Exception {
        testServer = TestServer.start(UnaryOperator.identity(), config -> {
            flowHost = new FlowHost(FlowHostSettings.defaults());
            return WharfServer.builder(config).plugins(flowHost).start();
        });
        connection = new WharfConnectionFactory(testServer.server().vmUrl()).createConnection();
        connection.start();
        session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        producer = session.createProducer(null);
        serviceThreads = Executors.newCachedThreadPool();
    }

    @AfterEach
    void stop() throws Exception {
        release.countDown();
        if (service != null) {
            service.stop(0);
        }
        serviceThreads.shutdownNow();
        connection.close();
        testServer.close();
    }

    private String serve(HttpServer server, String path, HttpHandler handler) {
        server.createContext(path, handler);
        server.setExecutor(serviceThreads);
        server.start();
        service = server;
        String scheme = server instanceof HttpsServer ? "https" : "http";
        return scheme + "://127.0.0.1:" + server.getAddress().getPort() + path;
    }

    private String serve(String path, HttpHandler handler) throws IOException {
        return serve(HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0), path, handler);
    }

    private static void answer(HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
        if (bytes.length > 0) {
            exchange.getResponseBody().write(bytes);
        }
        exchange.close();
    }

    private static String requestBody(HttpExchange exchange) throws IOException {
        try (InputStream in = exchange.getRequestBody()) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /** Deploys IN.x -> prepare -> http -> record -> OUT.x, with http's failure -> why -> FAILED.x. */
    private void deploy(String name, HttpRequestNode http, int instances) throws Exception {
        FlowDefinition flow = FlowDefinition.builder(name)
                .node("in", InputNode.queue("IN." + name))
                .node("prepare", new Prepare())
                .node("http", http)
                .node("record", new RecordResponse())
                .node("out", OutputNode.queue("OUT." + name))
                .node("why", new RecordExceptionList())
                .node("failed", OutputNode.queue("FAILED." + name))
                .wire("in", "out", "prepare").wire("prepare", "out", "http")
                .wire("http", "out", "record").wire("record", "out", "out")
                .wire("http", "failure", "why").wire("why", "out", "failed")
                .build();
        flowHost.deploy(() -> flow, instances);
    }

    private void send(String queue, String body, String orderId) throws Exception {
        TextMessage message = session.createTextMessage(body);
        if (orderId != null) {
            message.setStringProperty("orderId", orderId);
        }
        producer.send(session.createQueue(queue), message);
    }

    private Message receive(String queue) throws Exception {
        try (MessageConsumer consumer = session.createConsumer(session.createQueue(queue))) {
            Message message = consumer.receive(FlowFixture.RECEIVE_MILLIS);
            if (message == null) {
                throw new AssertionError("nothing arrived on " + queue + " within " + FlowFixture.RECEIVE_MILLIS
                        + " ms");
            }
            return message;
        }
    }

    private long depth(String queue) {
        WharfServer server = testServer.server();
        return server.queueManager().exists(queue) ? server.queueManager().depth(queue) : 0;
    }

    @Test
    void theMessageGoesToTheServiceAndTheResponseToTheOutputQueue() throws Exception {
        Map<String, String> seen = new HashMap<>();
        String url = serve("/orders", exchange -> {
            synchronized (seen) {
                seen.put("method", exchange.getRequestMethod());
                seen.put("type", exchange.getRequestHeaders().getFirst("Content-Type"));
                seen.put("order", exchange.getRequestHeaders().getFirst("X-Order"));
                seen.put("fixed", exchange.getRequestHeaders().getFirst("X-Fixed"));
            }
            String body = requestBody(exchange);
            exchange.getResponseHeaders().add("X-Service", "orders-1");
            answer(exchange, 201, "{\"echo\":\"" + body + "\"}");
        });
        deploy("A", HttpRequestNode.post(url).header("X-Fixed", "yes").responseDomain(Domain.JSON), 1);
        send("IN.A", "hello", "42");
        Message out = receive("OUT.A");
        assertEquals("{\"echo\":\"hello\"}", FlowFixture.text(out), "the response body leaves as it came");
        assertEquals("hello", out.getStringProperty("echo"), "the response was parsed as JSON");
        assertEquals(201, out.getIntProperty("status"));
        assertEquals("orders-1", out.getStringProperty("service"));
        assertEquals("42", out.getStringProperty("orderId"), "the input's properties are kept");
        synchronized (seen) {
            assertEquals(Map.of("method", "POST", "type", "application/octet-stream", "order", "42", "fixed", "yes"),
                    seen);
        }
    }

    @Test
    void aRecordsResponseIsParsedWithTheNodesFormat() throws Exception {
        String url = serve("/stock", exchange -> answer(exchange, 200, "tea;12\ncoffee;3\n"));
        deploy("R", HttpRequestNode.get(url).responseRecords(CsvFormat.columns("item", "count").delimiter(';')), 1);
        send("IN.R", "stock?", null);
        Message out = receive("OUT.R");
        assertEquals(2, out.getIntProperty("records"));
        assertEquals("coffee", out.getStringProperty("lastItem"), "parsed with the node's columns and delimiter");
    }

    @Test
    void aServerErrorGoesToTheFailureTerminalWithStatusUrlAndBody() throws Exception {
        String url = serve("/broken", exchange -> answer(exchange, 500, "database\ndown"));
        deploy("B", HttpRequestNode.post(url), 1);
        send("IN.B", "hello", null);
        Message failed = receive("FAILED.B");
        assertEquals("hello", FlowFixture.text(failed), "the failure terminal gets the input message");
        String why = failed.getStringProperty(ExceptionList.PROPERTY);
        assertTrue(why.contains("http (HTTPRequest)") && why.contains("HttpStatusException: HTTP 500 from POST "
                + url + ": database?down"), why);
        assertEquals(500, failed.getIntProperty("status"), "the status, for the flow to route or answer on");
        assertEquals(0, depth("OUT.B"));
    }

    @Test
    void aClientErrorGoesToTheFailureTerminalWithItsStatusAndIsNotRetried() throws Exception {
        AtomicInteger attempts = new AtomicInteger();
        String url = serve("/missing", exchange -> {
            attempts.incrementAndGet();
            answer(exchange, 404, "no such order");
        });
        deploy("K", HttpRequestNode.get(url).retries(2, Duration.ZERO), 1);
        send("IN.K", "", null);
        Message failed = receive("FAILED.K");
        assertEquals(404, failed.getIntProperty("status"));
        String why = failed.getStringProperty(ExceptionList.PROPERTY);
        assertTrue(why.contains("HTTP 404 from GET " + url + ": no such order"), why);
        assertEquals(1, attempts.get(), "a 4xx is the caller's mistake: asking again changes nothing");
    }

    @Test
    void oneConnectionServesTheMessagesOneAfterAnother() throws Exception {
        java.util.Set<Integer> clientPorts = java.util.concurrent.ConcurrentHashMap.newKeySet();
        String url = serve("/pooled", exchange -> {
            clientPorts.add(exchange.getRemoteAddress().getPort());
            answer(exchange, 200, "ok");
        });
        deploy("L", HttpRequestNode.post(url), 1);
        for (int i = 0; i < 5; i++) {
            send("IN.L", "m" + i, null);
            assertEquals("ok", FlowFixture.text(receive("OUT.L")));
        }
        assertEquals(1, clientPorts.size(), "the node's connection pool kept its connection open: " + clientPorts);
    }

    @Test
    void aTimeoutGoesToTheFailureTerminalAndAPostIsNotRetried() throws Exception {
        AtomicInteger attempts = new AtomicInteger();
        String url = serve("/slow", exchange -> {
            attempts.incrementAndGet();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            answer(exchange, 200, "late");
        });
        deploy("C", HttpRequestNode.post(url).requestTimeout(Duration.ofMillis(300)).retries(2, Duration.ZERO), 1);
        send("IN.C", "hello", null);
        String why = receive("FAILED.C").getStringProperty(ExceptionList.PROPERTY);
        assertTrue(why.contains("POST " + url + " failed (attempt 1 of 3): java.net.http.HttpTimeoutException: request "
                + "timed out: no response within the node's requestTimeout (300 ms). Raise requestTimeout if the service "
                + "answers that slowly, or check the service."), () -> "names the setting and the fix: " + why);
        assertEquals(1, attempts.get(), "a POST that may have been acted on is not sent again");
    }

    /**
     * A service that sends its headers and then stops in the middle of the body (broken, or hostile) does not hold
     * the flow's instance: past the requestTimeout the body is cut off and the message goes to the failure terminal,
     * and the instance takes the next message.
     */
    @Test
    void aBodyThatStopsComingTimesOutToTheFailureTerminal() throws Exception {
        String url = serve("/stalls", exchange -> {
            exchange.sendResponseHeaders(200, 100);
            exchange.getResponseBody().write("ten bytes.".getBytes(StandardCharsets.US_ASCII));
            exchange.getResponseBody().flush();
            try {
                release.await(); // the other 90 bytes never come
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            exchange.close();
        });
        // the headers must reach the node within the timeout for the body's own timeout to be the one seen: 5 s leaves
        // a loaded CI machine room (500 ms did not: the headers' timeout fired first)
        deploy("S", HttpRequestNode.post(url).requestTimeout(Duration.ofSeconds(5)), 1);
        send("IN.S", "first", null);
        send("IN.S", "second", null);
        for (int i = 0; i < 2; i++) {
            String why = receive("FAILED.S").getStringProperty(ExceptionList.PROPERTY);
            assertTrue(why.contains("POST " + url + " failed (attempt 1 of 1): java.net.http.HttpTimeoutException: The "
                    + "response body from POST " + url + " timed out: it did not arrive within the node's requestTimeout "
                    + "(5000 ms) after its headers"), why);
        }
        assertEquals(0, depth("OUT.S"));
    }

    @Test
    void aRefusedConnectionIsRetriedEvenForAPost() throws Exception {
        int port = FreePorts.one(); // nothing listens there
        String url = "http://127.0.0.1:" + port + "/nobody";
        deploy("J", HttpRequestNode.post(url).retries(2, Duration.ZERO), 1);
        send("IN.J", "hello", null);
        String why = receive("FAILED.J").getStringProperty(ExceptionList.PROPERTY);
        assertTrue(why.contains("POST " + url + " failed (attempt 3 of 3): java.net.ConnectException: cannot connect"),
                why);
        assertTrue(why.contains(". Check that the service runs at http://127.0.0.1:" + port + " and takes connections "
                + "from this server."), () -> "names where and the fix: " + why);
    }

    @Test
    void aGetIsRetriedAndSucceedsOnTheSecondAttempt() throws Exception {
        AtomicInteger attempts = new AtomicInteger();
        String url = serve("/flaky", exchange -> {
            if (attempts.incrementAndGet() == 1) {
                answer(exchange, 503, "busy");
            } else {
                answer(exchange, 200, "ok " + exchange.getRequestMethod());
            }
        });
        deploy("D", HttpRequestNode.get(url).retries(2, Duration.ofMillis(10)), 1);
        send("IN.D", "ignored", null);
        Message out = receive("OUT.D");
        assertEquals("ok GET", FlowFixture.text(out));
        assertEquals(200, out.getIntProperty("status"));
        assertEquals(2, attempts.get());
    }

    @Test
    void httpsTrustsTheConfiguredTrustStoreAndRefusesAnUnknownCertificate() throws Exception {
        Path serverStore = dir.resolve("server.p12");
        Path trustStore = dir.resolve("trust.p12");
        Path certificate = dir.resolve("server.cer");
        keytool("-genkeypair", "-alias", "server", "-keyalg", "EC", "-dname", "CN=localhost",
                "-ext", "san=ip:127.0.0.1,dns:localhost", "-validity", "2", "-storetype", "PKCS12",
                "-keystore", serverStore.toString(), "-storepass", new String(PASSWORD));
        keytool("-exportcert", "-alias", "server", "-keystore", serverStore.toString(),
                "-storepass", new String(PASSWORD), "-file", certificate.toString());
        keytool("-importcert", "-noprompt", "-alias", "server", "-file", certificate.toString(),
                "-storetype", "PKCS12", "-keystore", trustStore.toString(), "-storepass", new String(PASSWORD));

        HttpsServer https = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        https.setHttpsConfigurator(new HttpsConfigurator(serverContext(serverStore)));
        String url = serve(https, "/secure", exchange -> answer(exchange, 200, "secret " + requestBody(exchange)));

        deploy("E", HttpRequestNode.post(url).trustStore(trustStore, PASSWORD), 1);
        deploy("F", HttpRequestNode.post(url), 1); // the JVM's default trust store does not know the certificate
        send("IN.E", "hello", null);
        send("IN.F", "hello", null);
        assertEquals("secret hello", FlowFixture.text(receive("OUT.E")));
        String why = receive("FAILED.F").getStringProperty(ExceptionList.PROPERTY);
        assertTrue(why.contains("POST " + url + " failed") && why.contains("SSLHandshakeException"), why);
    }

    @Test
    void noMessageValueReachesAnotherMessagesRequest() throws Exception {
        String url = serve("/echo", exchange -> {
            String order = exchange.getRequestHeaders().getFirst("X-Order");
            answer(exchange, 200, requestBody(exchange) + "|" + (order == null ? "none" : order) + "|"
                    + exchange.getRequestURI().getPath());
        });
        deploy("G", HttpRequestNode.post(url), 2);
        int count = 40;
        for (int i = 0; i < count; i++) {
            TextMessage message = session.createTextMessage("m" + i);
            if (i % 2 == 0) {
                message.setStringProperty("orderId", "order-" + i);
                message.setStringProperty("url", url);
            }
            producer.send(session.createQueue("IN.G"), message);
        }
        try (MessageConsumer consumer = session.createConsumer(session.createQueue("OUT.G"))) {
            for (int i = 0; i < count; i++) {
                Message out = consumer.receive(FlowFixture.RECEIVE_MILLIS);
                if (out == null) {
                    throw new AssertionError("only " + i + " of " + count + " responses arrived on OUT.G");
                }
                String[] echo = FlowFixture.text(out).split("\\|");
                int seq = Integer.parseInt(echo[0].substring(1));
                assertEquals(seq % 2 == 0 ? "order-" + seq : "none", echo[1], "request of message " + seq);
                assertEquals(seq % 2 == 0 ? "/echo/order-" + seq : "/echo", echo[2], "URL of message " + seq);
            }
        }
    }

    @Test
    void aUrlFromTheMessageMayNameOnlyTheOriginsTheNodeAllows() throws Exception {
        String url = serve("/orders", exchange -> answer(exchange, 200, "the node's service"));
        AtomicInteger elsewhere = new AtomicInteger();
        HttpServer other = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        other.createContext("/", exchange -> {
            elsewhere.incrementAndGet();
            answer(exchange, 200, "another service");
        });
        other.start();
        try {
            String otherOrigin = "http://127.0.0.1:" + other.getAddress().getPort();
            deploy("SSRF", HttpRequestNode.post(url), 1);
            deploy("ALLOWED", HttpRequestNode.post(url).allowOrigins(otherOrigin + "/anything"), 1);
            String[] steered = {otherOrigin + "/internal", "http://127.0.0.1:" + service.getAddress().getPort() + "@"
                    + otherOrigin.substring("http://".length()) + "/internal", "https://127.0.0.1:"
                    + service.getAddress().getPort() + "/orders"};
            for (String target : steered) {
                sendTo("IN.SSRF", target, "o-1");
                String why = receive("FAILED.SSRF").getStringProperty(ExceptionList.PROPERTY);
                assertTrue(why.contains(target + "/o-1") && why.contains("allowOrigins"), why);
            }
            sendTo("IN.SSRF", url, "o-2");
            assertEquals("the node's service", FlowFixture.text(receive("OUT.SSRF")), "the node's own origin is called");
            sendTo("IN.ALLOWED", otherOrigin + "/internal", "o-3");
            assertEquals("another service", FlowFixture.text(receive("OUT.ALLOWED")), "an allowed origin is called");
            assertEquals(1, elsewhere.get(), "only the allowed call reached the other service");
        } finally {
            other.stop(0);
        }
    }

    /** Sends a message whose url and orderId properties make Prepare call {@code url/orderId}. */
    private void sendTo(String queue, String url, String orderId) throws Exception {
        TextMessage message = session.createTextMessage("hello");
        message.setStringProperty("orderId", orderId);
        message.setStringProperty("url", url);
        producer.send(session.createQueue(queue), message);
    }

    @Test
    void aResponseLargerThanTheLimitGoesToTheFailureTerminal() throws Exception {
        String url = serve("/big", exchange -> answer(exchange, 200, "x".repeat(1000)));
        deploy("H", HttpRequestNode.get(url).maxResponseBytes(999), 1);
        deploy("I", HttpRequestNode.get(url).maxResponseBytes(1000), 1);
        send("IN.H", "", null);
        send("IN.I", "", null);
        assertEquals(1000, FlowFixture.text(receive("OUT.I")).length());
        String why = receive("FAILED.H").getStringProperty(ExceptionList.PROPERTY);
        assertTrue(why.contains("larger than the node's maxResponseBytes (999; Content-Length 1000)"), why);
    }

    private static void keytool(String... args) throws Exception {
        String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
        List<String> command = new java.util.ArrayList<>(List.of(keytool));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        assertEquals(0, process.waitFor(), "keytool " + String.join(" ", args));
    }

    private static SSLContext serverContext(Path store) throws Exception {
        KeyStore keys = KeyStore.getInstance(new File(store.toString()), PASSWORD);
        KeyManagerFactory factory = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        factory.init(keys, PASSWORD);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(factory.getKeyManagers(), null, null);
        return context;
    }

    /**
     * Sends the message's orderId property, when it has one, as the header X-Order, and to the URL in its url
     * property followed by /orderId when it has that too (both through the LocalEnvironment).
     */
    private static final class Prepare extends JavaComputeNode {
        @Override
        public void evaluate(MessageAssembly assembly) throws Exception {
            Object order = assembly.message().userProperty("orderId");
            if (order == null) {
                propagate("out", assembly);
                return;
            }
            MessageAssembly out = assembly.copy();
            out.localEnvironment().set(HttpRequestNode.REQUEST_HEADERS, Map.of("X-Order", order));
            Object url = assembly.message().userProperty("url");
            if (url != null) {
                out.localEnvironment().set(HttpRequestNode.REQUEST_URL, url + "/" + order);
            }
            propagate("out", out);
        }
    }

    /** Copies the response's status, a header and (for JSON) a field into user properties. */
    private static final class RecordResponse extends JavaComputeNode {
        @Override
        @SuppressWarnings("unchecked")
        public void evaluate(MessageAssembly assembly) throws Exception {
            MessageAssembly out = assembly.copy();
            out.message().setUserProperty("status", assembly.localEnvironment().get(HttpRequestNode.RESPONSE_STATUS));
            Map<String, List<String>> headers =
                    (Map<String, List<String>>) assembly.localEnvironment().get(HttpRequestNode.RESPONSE_HEADERS);
            headers.entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase("X-Service")).findFirst()
                    .ifPresent(e -> out.message().setUserProperty("service", e.getValue().get(0)));
            if (assembly.message().domain() == Domain.JSON) {
                out.message().setUserProperty("echo", assembly.message().json().get("echo").asText());
            }
            if (assembly.message().domain() == Domain.RECORDS) {
                var records = assembly.message().records();
                out.message().setUserProperty("records", records.size());
                out.message().setUserProperty("lastItem", records.get(records.size() - 1).get("item").asText());
            }
            propagate("out", out);
        }
    }

    private static final class RecordExceptionList extends JavaComputeNode {
        @Override
        public void evaluate(MessageAssembly assembly) throws Exception {
            MessageAssembly out = assembly.copy();
            out.message().setUserProperty(ExceptionList.PROPERTY, assembly.exceptionList().render());
            out.message().setUserProperty("status", assembly.localEnvironment().get(HttpRequestNode.RESPONSE_STATUS));
            propagate("out", out);
        }
    }
}
