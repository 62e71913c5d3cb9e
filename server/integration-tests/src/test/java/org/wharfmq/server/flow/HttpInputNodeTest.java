package org.wharfmq.server.flow;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.flow.Domain;
import org.wharfmq.flow.FlowDefinition;
import org.wharfmq.flow.JavaComputeNode;
import org.wharfmq.flow.MessageAssembly;
import org.wharfmq.flow.node.HttpInputNode;
import org.wharfmq.flow.node.HttpReplyNode;
import org.wharfmq.flow.node.OutputNode;
import org.wharfmq.flow.node.ThrowNode;
import org.wharfmq.jms.WharfConnectionFactory;

import javax.jms.Connection;
import javax.jms.MessageConsumer;
import javax.jms.Session;
import javax.jms.TextMessage;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Flows that serve HTTP paths on a real server's HTTP listener, called by the JDK's HttpClient: the request's body,
 * headers and user reach the flow, the HTTPReply node's status, headers and body reach the caller once the flow's
 * sends have committed; a slow flow is answered 504, a body over the node's limit 413 before it is read, a caller
 * without the {@code call} permission on the path 403, an anonymous one 401; two requests in flight at once each get
 * their own reply; a failed invocation's sends and reply roll back and its failure path answers (else a 500 that
 * tells the caller nothing of the flow's insides).
 */
class HttpInputNodeTest {

    @TempDir
    static Path dir;

    private static HttpFlowServer flows;
    private static FlowHost flowHost;
    private static final HttpClient CLIENT = HttpFlowCallers.CLIENT;
    /** Released by the test once the slow flow's request was answered 504. */
    private static final CountDownLatch SLOW = new CountDownLatch(1);
    /** Counted down when the held flow's instance has taken its first request. */
    private static final CountDownLatch HELD = new CountDownLatch(1);
    /** Released by the test: the held flow's first request may reply. */
    private static final CountDownLatch RELEASE = new CountDownLatch(1);
    /** Both requests of the pair flow are in the flow at once before either replies. */
    private static final CyclicBarrier PAIR = new CyclicBarrier(2);

    @BeforeAll
    static void start() throws Exception {
        flows = HttpFlowServer.start(dir, """
                users: {}
                allowAnonymous: true
                permissions:
                  - path: "/flows/echo"
                    call: [group:apps]
                  - path: "/flows/**"
                    call: [group:apps, user:bob]
                  - queue: "**"
                    send: [anyone]
                    receive: [anyone]
                    create: [anyone]
                  - connect: [anyone]
                """);
        flowHost = flows.flowHost();
        flowHost.deploy(() -> FlowDefinition.builder("echo")
                .node("in", HttpInputNode.path("/flows/echo").domain(Domain.JSON))
                .node("answer", new Answer())
                .node("copy", OutputNode.queue("HTTP.ECHO.OUT"))
                .node("reply", new HttpReplyNode())
                .wire("in", "out", "answer").wire("answer", "out", "copy").wire("copy", "out", "reply")
                .build(), 1);
        flowHost.deploy(() -> FlowDefinition.builder("slow")
                .node("in", HttpInputNode.path("/flows/slow").timeout(Duration.ofMillis(300)))
                .node("wait", new WaitForTest())
                .node("reply", new HttpReplyNode())
                .wire("in", "out", "wait").wire("wait", "out", "reply")
                .build(), 1);
        flowHost.deploy(() -> FlowDefinition.builder("small")
                .node("in", HttpInputNode.path("/flows/small").maxRequestBytes(100))
                .node("reply", new HttpReplyNode())
                .wire("in", "out", "reply")
                .build(), 1);
        flowHost.deploy(() -> FlowDefinition.builder("pair")
                .node("in", HttpInputNode.path("/flows/pair"))
                .node("meet", new Meet())
                .node("reply", new HttpReplyNode())
                .wire("in", "out", "meet").wire("meet", "out", "reply")
                .build(), 2);
        flowHost.deploy(() -> FlowDefinition.builder("strict")
                .node("in", HttpInputNode.path("/flows/strict"))
                .node("copy", OutputNode.queue("HTTP.STRICT.OUT"))
                .node("reply", new HttpReplyNode())
                .node("refuse", new ThrowNode("orders are closed"))
                .node("why", new BadRequest())
                .node("answer", new HttpReplyNode())
                .wire("in", "out", "copy").wire("copy", "out", "reply").wire("reply", "out", "refuse")
                .wire("in", "failure", "why").wire("why", "out", "answer")
                .build(), 1);
        flowHost.deploy(() -> FlowDefinition.builder("failing")
                .node("in", HttpInputNode.path("/flows/failing"))
                .node("refuse", new ThrowNode("out of order"))
                .wire("in", "out", "refuse")
                .build(), 1);
        flowHost.deploy(() -> FlowDefinition.builder("inject")
                .node("in", HttpInputNode.path("/flows/inject"))
                .node("echo", new EchoIntoHeader())
                .node("reply", new HttpReplyNode())
                .wire("in", "out", "echo").wire("echo", "out", "reply")
                .build(), 1);
        flowHost.deploy(() -> FlowDefinition.builder("held")
                .node("in", HttpInputNode.path("/flows/held").maxRequestBytes(40 << 20).timeout(Duration.ofMinutes(2)))
                .node("hold", new HoldFirst())
                .node("reply", new HttpReplyNode())
                .wire("in", "out", "hold").wire("hold", "out", "reply")
                .build(), 1);
        flowHost.deploy(() -> FlowDefinition.builder("silent")
                .node("in", HttpInputNode.path("/flows/silent"))
                .node("copy", OutputNode.queue("HTTP.SILENT.OUT"))
                .wire("in", "out", "copy")
                .build(), 1);
    }

    @AfterAll
    static void stop() {
        SLOW.countDown();
        RELEASE.countDown();
        if (flows != null) {
            flows.close();
        }
    }

    /** Replies 201 with who called, the request's header and body, as JSON; X-Flow: echo. */
    public static final class Answer extends JavaComputeNode {
        @Override
        public void evaluate(MessageAssembly assembly) throws Exception {
            MessageAssembly out = assembly.copy();
            Map<?, ?> headers = (Map<?, ?>) assembly.localEnvironment().get(HttpInputNode.HEADERS);
            String text = "{\"user\": \"" + assembly.localEnvironment().get(HttpInputNode.USER) + "\", \"method\": \""
                    + assembly.localEnvironment().get(HttpInputNode.METHOD) + "\", \"order\": \""
                    + headers.get("x-order") + "\", \"item\": " + assembly.message().json().get("item")
                    + ", \"password seen\": " + headers.containsKey("authorization") + "}";
            out.message().setBody(text);
            out.localEnvironment().set(HttpReplyNode.STATUS, 201)
                    .set(HttpReplyNode.HEADERS, Map.of("X-Flow", "echo"));
            propagate("out", out);
        }
    }

    /** The failure path's answer: 400 with the failure's text. */
    public static final class BadRequest extends JavaComputeNode {
        @Override
        public void evaluate(MessageAssembly assembly) throws Exception {
            MessageAssembly out = assembly.copy();
            String why = assembly.exceptionList().render();
            out.message().setBody("refused: " + why.substring(why.indexOf("orders are closed")));
            out.localEnvironment().set(HttpReplyNode.STATUS, 400);
            propagate("out", out);
        }
    }

    /** Replies with the request's body as the value of its header X-Echo, as a careless flow might. */
    public static final class EchoIntoHeader extends JavaComputeNode {
        @Override
        public void evaluate(MessageAssembly assembly) throws Exception {
            MessageAssembly out = assembly.copy();
            out.localEnvironment().set(HttpReplyNode.HEADERS, Map.of("X-Echo", assembly.message().bodyText()));
            propagate("out", out);
        }
    }

    /** Holds its first request until the test releases it; replies with the length of each request's body. */
    public static final class HoldFirst extends JavaComputeNode {
        private final java.util.concurrent.atomic.AtomicBoolean first = new java.util.concurrent.atomic.AtomicBoolean(
                true);

        @Override
        public void evaluate(MessageAssembly assembly) throws Exception {
            if (first.getAndSet(false)) {
                HELD.countDown();
                assertTrue(RELEASE.await(60, TimeUnit.SECONDS));
            }
            MessageAssembly out = assembly.copy();
            out.message().setBody("took " + assembly.message().bodyBytes().length + " bytes");
            propagate("out", out);
        }
    }

    /** Waits until the test has its 504. */
    public static final class WaitForTest extends JavaComputeNode {
        @Override
        public void evaluate(MessageAssembly assembly) throws Exception {
            assertTrue(SLOW.await(30, TimeUnit.SECONDS));
            propagate("out", assembly);
        }
    }

    /** Waits until the other request is in the flow too, then replies with its own body. */
    public static final class Meet extends JavaComputeNode {
        @Override
        public void evaluate(MessageAssembly assembly) throws Exception {
            PAIR.await(30, TimeUnit.SECONDS);
            propagate("out", assembly);
        }
    }

    private static HttpRequest.Builder request(String path, String user) {
        return flows.request(path, user);
    }

    private static HttpResponse<String> post(String path, String user, String body) throws Exception {
        return flows.post(path, user, body);
    }

    @Test
    void theFlowsReplyReachesTheCallerAfterItsSendsCommitted() throws Exception {
        HttpResponse<String> response = CLIENT.send(request("/flows/echo", "alice").header("X-Order", "42")
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"item\": \"tea\"}")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(201, response.statusCode(), response.body());
        assertEquals("{\"user\": \"alice\", \"method\": \"POST\", \"order\": \"42\", \"item\": \"tea\", "
                + "\"password seen\": false}", response.body());
        assertEquals("echo", response.headers().firstValue("X-Flow").orElse(null));
        assertEquals("application/json", response.headers().firstValue("Content-Type").orElse(null));
        try (Connection connection = new WharfConnectionFactory(flows.server().vmUrl()).createConnection()) {
            connection.start();
            MessageConsumer copies = connection.createSession(false, Session.AUTO_ACKNOWLEDGE)
                    .createConsumer(connection.createSession(false, Session.AUTO_ACKNOWLEDGE)
                            .createQueue("HTTP.ECHO.OUT"));
            TextMessage copy = (TextMessage) copies.receiveNoWait(); // committed before the reply went out
            assertNotNull(copy, "the flow's send committed before the caller got its reply");
            assertTrue(copy.getText().contains("\"tea\""), copy.getText());
        }
    }

    /**
     * The bodies waiting for a flow's instances are bounded by bytes, not by count alone: with the flow's one instance
     * busy, of two requests of 33 MiB the one to arrive first waits, and the other is answered 503 at once, naming the
     * bytes waiting, its own and the limit (64 MiB); a request that finds none waiting is taken whatever its size.
     * Before, 1,000 requests of the node's maxRequestBytes could wait: 1 GiB at the default 1 MiB, here 40 GiB.
     */
    @Test
    void theBodiesWaitingForAFlowAreBoundedInBytes() throws Exception {
        // the callers wait as long as the test does: the held ones are answered only after the release
        Duration patient = Duration.ofMinutes(2);
        CompletableFuture<HttpResponse<String>> first = CLIENT.sendAsync(request("/flows/held", "alice")
                .timeout(patient).POST(HttpRequest.BodyPublishers.ofString("hold")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertTrue(HELD.await(60, TimeUnit.SECONDS), "the flow's instance did not take the first request");
        byte[] body = new byte[33 << 20];
        HttpRequest large33 = request("/flows/held", "alice").timeout(patient)
                .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build();
        List<CompletableFuture<HttpResponse<String>>> large = List.of(
                CLIENT.sendAsync(large33, HttpResponse.BodyHandlers.ofString()),
                CLIENT.sendAsync(large33, HttpResponse.BodyHandlers.ofString()));
        // the one that waits cannot be answered before the release: the first answer is the refusal
        Object answered = CompletableFuture.anyOf(large.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        RELEASE.countDown();
        HttpResponse<?> refused = (HttpResponse<?>) answered;
        assertEquals(503, refused.statusCode(), String.valueOf(refused.body()));
        assertTrue(String.valueOf(refused.body()).startsWith("Flow 'held' is busy: the requests that wait for it hold "
                + (33 << 20) + " bytes of bodies already, and this one's " + (33 << 20) + " would take them past "
                + (64 << 20) + " (the most one HTTPInput node's waiting requests hold). Try again shortly."),
                String.valueOf(refused.body()));
        HttpResponse<String> taken = large.get(0).get(60, TimeUnit.SECONDS) == refused
                ? large.get(1).get(60, TimeUnit.SECONDS) : large.get(0).get(60, TimeUnit.SECONDS);
        assertEquals(200, taken.statusCode(), taken.body());
        assertEquals("took " + (33 << 20) + " bytes", taken.body());
        assertEquals("took 4 bytes", first.get(60, TimeUnit.SECONDS).body());
    }

    @Test
    void aFlowThatDoesNotReplyInTimeIsAnswered504() throws Exception {
        HttpResponse<String> response = post("/flows/slow", "alice", "late");
        assertEquals(504, response.statusCode(), response.body());
        assertTrue(response.body().contains("Flow 'slow' did not answer POST /flows/slow within its HTTPInput node's "
                + "timeout (300 ms). Try again later; if the flow's work takes that long, its owner raises the node's "
                + "timeout."), () -> "names the limit and the fix: " + response.body());
        SLOW.countDown();
    }

    @Test
    void aBodyOverTheNodesLimitIs413AndARequestThatDeclaresOneIsRefusedBeforeItsBodyIsSent() throws Exception {
        HttpResponse<String> response = post("/flows/small", "alice", "x".repeat(1000));
        assertEquals(413, response.statusCode(), response.body());
        assertEquals("Request body too large: POST /flows/small takes at most 100 bytes (this request sent "
                + "Content-Length 1000). Send a smaller body, or raise the limit: the maxRequestBytes of HTTPInput "
                + "'in' in flow 'small' (docs/flows.md, \"HTTP input and reply nodes\"), now 100 bytes (at most "
                + "104857600).\n", response.body(), "names the limit, the setting that raises it and its ceiling");
        assertEquals(200, post("/flows/small", "alice", "x".repeat(100)).statusCode(), "at the limit");

        // a gigabyte declared and none of it sent: answered at once, so the body was never waited for, let alone held
        // (as alice: a caller who may not call the path is refused before its length is looked at, HttpListenerTest)
        String alice = "Authorization: Basic " + java.util.Base64.getEncoder().encodeToString("alice:alice-pw"
                .getBytes(StandardCharsets.UTF_8)) + "\r\n";
        try (Socket socket = new Socket("127.0.0.1", flows.httpPort())) {
            OutputStream out = socket.getOutputStream();
            out.write(("POST /flows/small HTTP/1.1\r\nHost: x\r\n" + alice + "Content-Length: 1000000000\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            socket.setSoTimeout(10_000);
            InputStream in = socket.getInputStream();
            String status = new String(in.readNBytes(12), StandardCharsets.US_ASCII);
            assertEquals("HTTP/1.1 413", status);
        }
        // chunks with no length declared: refused once they pass the limit, with the request's end still to come
        try (Socket socket = new Socket("127.0.0.1", flows.httpPort())) {
            OutputStream out = socket.getOutputStream();
            out.write(("POST /flows/small HTTP/1.1\r\nHost: x\r\n" + alice + "Transfer-Encoding: chunked\r\n\r\n"
                    + "64\r\n" + "x".repeat(100) + "\r\n1\r\ny\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            socket.setSoTimeout(10_000);
            String answer = new String(socket.getInputStream().readNBytes(12), StandardCharsets.US_ASCII);
            assertEquals("HTTP/1.1 413", answer);
        }
    }

    @Test
    void callersWithoutTheCallPermissionOnThePathAreRefused() throws Exception {
        HttpResponse<String> bob = post("/flows/echo", "bob", "{}");
        assertEquals(403, bob.statusCode(), bob.body());
        assertTrue(bob.body().contains("User 'bob' may not call HTTP path '/flows/echo': no 'call' permission is "
                + "granted to it"), bob.body());
        assertEquals(200, post("/flows/small", "bob", "x").statusCode(), "the broader rule lets bob call other paths");

        HttpResponse<String> anonymous = post("/flows/small", null, "x");
        assertEquals(401, anonymous.statusCode(), anonymous.body());
        assertTrue(anonymous.headers().firstValue("WWW-Authenticate").isPresent());
        assertTrue(anonymous.body().contains("no 'call' permission is granted to anonymous clients"),
                anonymous.body());
    }

    @Test
    void twoRequestsInTheFlowAtOnceEachGetTheirOwnReply() throws Exception {
        CompletableFuture<HttpResponse<String>> first = CLIENT.sendAsync(request("/flows/pair", "alice")
                .POST(HttpRequest.BodyPublishers.ofString("first")).build(), HttpResponse.BodyHandlers.ofString());
        CompletableFuture<HttpResponse<String>> second = CLIENT.sendAsync(request("/flows/pair", "alice")
                .POST(HttpRequest.BodyPublishers.ofString("second")).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals("first", first.get(30, TimeUnit.SECONDS).body());
        assertEquals("second", second.get(30, TimeUnit.SECONDS).body());
    }

    @Test
    void aFailedInvocationRollsBackItsSendsAndItsReplyAndTheFailurePathAnswers() throws Exception {
        HttpResponse<String> refused = post("/flows/strict", "alice", "an order");
        assertEquals(400, refused.statusCode(), "the failure path's reply, not the one the failed path gave");
        assertTrue(refused.body().startsWith("refused: orders are closed"), refused.body());
        assertEquals(0, flows.server().queueManager().exists("HTTP.STRICT.OUT")
                ? flows.server().queueManager().depth("HTTP.STRICT.OUT") : 0, "the failed invocation's send rolled back");

        HttpResponse<String> failed = post("/flows/failing", "alice", "x");
        assertEquals(500, failed.statusCode(), failed.body());
        assertEquals("Flow 'failing' failed on POST /flows/failing (the server log has why).\n", failed.body(),
                "the caller learns nothing of the flow's insides");
    }

    @Test
    void aReplyHeaderWithACrOrLfFailsTheFlowAndWritesNoHeaderOfTheCallersMaking() throws Exception {
        HttpResponse<String> plain = post("/flows/inject", "alice", "tea");
        assertEquals(200, plain.statusCode(), plain.body());
        assertEquals("tea", plain.headers().firstValue("X-Echo").orElse(null));

        HttpResponse<String> injected = post("/flows/inject", "alice", "tea\r\nSet-Cookie: session=evil");
        assertEquals(500, injected.statusCode(), injected.body());
        assertEquals("Flow 'inject' failed on POST /flows/inject (the server log has why).\n", injected.body());
        assertTrue(injected.headers().firstValue("Set-Cookie").isEmpty(), injected.headers().toString());
        assertTrue(injected.headers().firstValue("X-Echo").isEmpty(), injected.headers().toString());
    }

    @Test
    void aFlowThatFinishesWithoutReplyingIsAnswered500AtOnce() throws Exception {
        HttpResponse<String> response = post("/flows/silent", "alice", "hello");
        assertEquals(500, response.statusCode(), response.body());
        assertTrue(response.body().contains("Flow 'silent' finished POST /flows/silent without replying"),
                response.body());
    }

    @Test
    void aPathIsServedOnlyWhileItsFlowRuns() throws Exception {
        flowHost.deploy(() -> FlowDefinition.builder("brief")
                .node("in", HttpInputNode.path("/flows/brief"))
                .node("reply", new HttpReplyNode())
                .wire("in", "out", "reply")
                .build(), 1);
        assertEquals("hi", post("/flows/brief", "alice", "hi").body());
        assertTrue(flowHost.undeploy("brief"));
        assertEquals(404, post("/flows/brief", "alice", "hi").statusCode());
        assertNull(flowHost.flow("brief"));

        IllegalStateException taken = assertThrows(IllegalStateException.class, () -> flowHost.deploy(
                () -> FlowDefinition.builder("other")
                        .node("in", HttpInputNode.path("/flows/small"))
                        .node("reply", new HttpReplyNode())
                        .wire("in", "out", "reply")
                        .build(), 1));
        assertEquals("Flow 'other' cannot serve HTTPInput 'in''s path: Path '/flows/small' is served already: choose "
                + "another one.",
                taken.getMessage());
        assertNull(flowHost.flow("other"));
        assertEquals(200, post("/flows/small", "alice", "x").statusCode(), "the flow that serves it goes on");
    }
}
