package org.wharfmq.server.flow;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.flow.FlowDefinition;
import org.wharfmq.flow.JavaComputeNode;
import org.wharfmq.flow.MessageAssembly;
import org.wharfmq.flow.node.HttpInputNode;
import org.wharfmq.flow.node.HttpReplyNode;

import java.net.http.HttpHeaders;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A flow's HTTP paths share the web console's origin, so the security headers the HTTP listener sets on every answer
 * (Content-Security-Policy, X-Frame-Options, X-Content-Type-Options, Referrer-Policy, Cache-Control) are not a
 * flow's to replace: a flow whose reply names one (here a CSP that lets inline script run, and framing by any site)
 * fails at its HTTP Reply node, whose failure path answers the reason, and every answer carries the listener's
 * headers; a flow that adds a header of its own gets it through; a flow's answer is sandboxed (its bytes may be a
 * caller's: in a browser they get an origin of their own, and no script of theirs runs), the console's are not.
 * Called by the JDK's HttpClient on a real server.
 * Before, the flow's headers replaced the listener's.
 */
class FlowSecurityHeadersTest {

    private static final String LISTENER_CSP = "default-src 'none'; script-src 'self'; style-src 'self'; "
            + "img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
            + "; sandbox"; // a flow's reply opens in an origin of its own: none of its script runs as the console's

    @TempDir
    static Path dir;

    private static HttpFlowServer flows;

    @BeforeAll
    static void start() throws Exception {
        flows = HttpFlowServer.start(dir, """
                users: {}
                permissions:
                  - path: "/flows/**"
                    call: [user:alice]
                  - connect: [anyone]
                """);
        flows.flowHost().deploy(() -> FlowDefinition.builder("page")
                .node("in", HttpInputNode.path("/flows/page"))
                .node("html", new LooseHeaders())
                .node("reply", new HttpReplyNode())
                .node("why", new Why())
                .node("refused", new HttpReplyNode())
                .wire("in", "out", "html").wire("html", "out", "reply")
                .wire("reply", "failure", "why").wire("why", "out", "refused")
                .build(), 1);
        flows.flowHost().deploy(() -> FlowDefinition.builder("added")
                .node("in", HttpInputNode.path("/flows/added"))
                .node("own", new OwnHeader())
                .node("reply", new HttpReplyNode())
                .wire("in", "out", "own").wire("own", "out", "reply")
                .build(), 1);
    }

    @AfterAll
    static void stop() {
        if (flows != null) {
            flows.close();
        }
    }

    /** Answers HTML with a CSP that lets inline script run, framing by anyone, and a header of its own. */
    public static final class LooseHeaders extends JavaComputeNode {
        @Override
        public void evaluate(MessageAssembly assembly) throws Exception {
            MessageAssembly out = assembly.copy();
            out.message().setBody("<script>alert(document.cookie)</script>");
            Map<String, String> headers = new LinkedHashMap<>();
            headers.put("Content-Type", "text/html");
            headers.put("X-Flow", "page");
            headers.put("Content-Security-Policy", "script-src 'unsafe-inline'");
            headers.put("X-Frame-Options", "ALLOWALL");
            out.localEnvironment().set(HttpReplyNode.HEADERS, headers);
            propagate("out", out);
        }
    }

    /** The reply node's failure path: 500 with why, in text/plain. */
    public static final class Why extends JavaComputeNode {
        @Override
        public void evaluate(MessageAssembly assembly) throws Exception {
            MessageAssembly out = assembly.copy();
            out.message().setBody(assembly.exceptionList().render());
            out.localEnvironment().set(HttpReplyNode.STATUS, 500).set(HttpReplyNode.HEADERS,
                    Map.of("Content-Type", "text/plain"));
            propagate("out", out);
        }
    }

    /** Adds a header of its own. */
    public static final class OwnHeader extends JavaComputeNode {
        @Override
        public void evaluate(MessageAssembly assembly) throws Exception {
            MessageAssembly out = assembly.copy();
            out.localEnvironment().set(HttpReplyNode.HEADERS, Map.of("X-Flow", "added"));
            propagate("out", out);
        }
    }

    @Test
    void aFlowCannotReplaceTheListenersSecurityHeaders() throws Exception {
        HttpResponse<String> response = flows.post("/flows/page", "alice", "hello");
        assertEquals(500, response.statusCode(), response.body());
        assertTrue(response.body().contains("LocalEnvironment.HttpReplyHeaders names header 'Content-Security-Policy',"
                + " which the HTTP listener sets on every answer itself: a flow's paths share the web console's"
                + " origin"), response.body());
        assertTrue(response.body().contains("Take 'Content-Security-Policy' out of HttpReplyHeaders; a flow may add"
                + " headers of its own."), response.body());
        assertListenersHeaders(response.headers());
        assertEquals("text/plain", response.headers().firstValue("Content-Type").orElse(null));
        assertTrue(response.headers().firstValue("X-Flow").isEmpty(), "the refused reply's headers went nowhere");
    }

    @Test
    void aFlowMayAddAHeaderOfItsOwn() throws Exception {
        HttpResponse<String> response = flows.post("/flows/added", "alice", "hello");
        assertEquals(200, response.statusCode(), response.body());
        assertEquals("added", response.headers().firstValue("X-Flow").orElse(null));
        assertListenersHeaders(response.headers());
    }

    @Test
    void onlyAFlowsAnswerIsSandboxed() throws Exception {
        HttpResponse<String> response = flows.post("/not-a-flow", "alice", "hello");
        assertEquals(404, response.statusCode(), response.body());
        // the listener's own answers (the console's pages among them) keep their origin: their script must run
        assertEquals(java.util.List.of(LISTENER_CSP.substring(0, LISTENER_CSP.indexOf("; sandbox"))),
                response.headers().allValues("Content-Security-Policy"));
    }

    private static void assertListenersHeaders(HttpHeaders headers) {
        assertEquals(java.util.List.of(LISTENER_CSP), headers.allValues("Content-Security-Policy"), headers.toString());
        assertEquals(java.util.List.of("DENY"), headers.allValues("X-Frame-Options"), headers.toString());
        assertEquals(java.util.List.of("nosniff"), headers.allValues("X-Content-Type-Options"));
        assertEquals(java.util.List.of("no-referrer"), headers.allValues("Referrer-Policy"));
        assertEquals(java.util.List.of("no-store"), headers.allValues("Cache-Control"));
    }
}
