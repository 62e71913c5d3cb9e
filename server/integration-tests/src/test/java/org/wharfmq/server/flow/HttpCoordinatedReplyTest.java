package org.wharfmq.server.flow;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.wharfmq.flow.FlowDefinition;
import org.wharfmq.flow.JavaComputeNode;
import org.wharfmq.flow.MessageAssembly;
import org.wharfmq.flow.node.HttpInputNode;
import org.wharfmq.flow.node.HttpReplyNode;
import org.wharfmq.flow.node.InputNode;
import org.wharfmq.flow.node.OutputNode;
import org.wharfmq.jms.WharfConnectionFactory;
import org.wharfmq.server.TestServer;
import org.wharfmq.server.WharfServer;
import org.wharfmq.server.http.HttpPlugin;
import org.wharfmq.server.http.HttpSettings;

import javax.jms.Connection;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Session;
import javax.jms.TextMessage;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Coordinated request/reply (seed 002): a front flow takes an HTTP request and puts it to a queue (HTTPInput
 * replyLater); a back-end flow reads it there and its HTTPReply answers the caller, by the request identifier the
 * message carries. A back-end that never replies leaves the caller a 504 at the front's timeout; a reply for an
 * identifier no request waits with is dropped, and a request that is waiting is not answered by it.
 */
class HttpCoordinatedReplyTest {

    private static TestServer server;
    private static final HttpPlugin HTTP = new HttpPlugin(HttpSettings.on("127.0.0.1"));

    @BeforeAll
    static void start() throws Exception {
        server = TestServer.start(UnaryOperator.identity(), config -> {
            FlowHost flowHost = new FlowHost(FlowHostSettings.defaults(), HTTP);
            WharfServer started = WharfServer.builder(config).plugins(flowHost, HTTP).start();
            flowHost.deploy(() -> FlowDefinition.builder("front")
                    .node("in", HttpInputNode.path("/flows/quote").replyLater().runAs(HttpInputNode.RunAs.FLOW))
                    .node("ask", OutputNode.queue("QUOTE.REQUEST"))
                    .wire("in", "out", "ask")
                    .build(), 1);
            flowHost.deploy(() -> FlowDefinition.builder("unanswered")
                    .node("in", HttpInputNode.path("/flows/unanswered").replyLater().timeout(Duration.ofSeconds(2))
                            .runAs(HttpInputNode.RunAs.FLOW))
                    .node("ask", OutputNode.queue("QUOTE.NOWHERE"))
                    .wire("in", "out", "ask")
                    .build(), 1);
            flowHost.deploy(() -> FlowDefinition.builder("backend")
                    .node("in", InputNode.queue("QUOTE.REQUEST"))
                    .node("price", new Price())
                    .node("reply", new HttpReplyNode())
                    .node("done", OutputNode.queue("QUOTE.DONE"))
                    .wire("in", "out", "price").wire("price", "out", "reply").wire("reply", "out", "done")
                    .build(), 1);
            return started;
        });
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    /** The back-end's answer: 201 and "quote for BODY". */
    public static final class Price extends JavaComputeNode {
        @Override
        public void evaluate(MessageAssembly assembly) throws Exception {
            MessageAssembly out = assembly.copy();
            out.message().setBody("quote for " + new String(assembly.message().bodyBytes()));
            out.localEnvironment().set(HttpReplyNode.STATUS, 201);
            propagate("out", out);
        }
    }

    @Test
    void theBackEndFlowsReplyAnswersTheCaller() throws Exception {
        HttpResponse<String> response = HttpFlowCallers.post(HTTP.url() + "/flows/quote", null, "tea");
        assertEquals(201, response.statusCode(), response.body());
        assertEquals("quote for tea", response.body());
    }

    @Test
    void aBackEndThatNeverRepliesGives504AndAReplyForNoWaitingRequestReachesNoOne() throws Exception {
        CompletableFuture<HttpResponse<String>> waiting = HttpFlowCallers.CLIENT.sendAsync(HttpFlowCallers
                .request(HTTP.url() + "/flows/unanswered", null).POST(HttpRequest.BodyPublishers.ofString("coffee"))
                .build(), HttpResponse.BodyHandlers.ofString());
        try (Connection connection = new WharfConnectionFactory(server.server().vmUrl()).createConnection()) {
            connection.start();
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            // the front's send committed: the request waits for a reply
            Message asked = session.createConsumer(session.createQueue("QUOTE.NOWHERE")).receive(30_000);
            assertNotNull(asked, "the front flow put the request");
            String id = asked.getStringProperty(HttpInputNode.REQUEST_ID);
            assertEquals(32, id.length(), "128 random bits in hex: " + id);

            // a reply for an identifier no request waits with: dropped, the back-end goes on
            MessageConsumer done = session.createConsumer(session.createQueue("QUOTE.DONE"));
            MessageProducer requests = session.createProducer(session.createQueue("QUOTE.REQUEST"));
            TextMessage forged = session.createTextMessage("forged");
            forged.setStringProperty(HttpInputNode.REQUEST_ID, "0123456789abcdef0123456789abcdef");
            requests.send(forged);
            TextMessage handled = (TextMessage) done.receive(30_000);
            assertNotNull(handled, "the back-end handled the request with the unknown identifier");
            assertEquals("quote for forged", handled.getText());
        }
        HttpResponse<String> response = waiting.get(30, TimeUnit.SECONDS);
        assertEquals(504, response.statusCode(), "the waiting request got no one else's reply: " + response.body());
        assertTrue(response.body().contains("Flow 'unanswered' did not answer POST /flows/unanswered within its "
                + "HTTPInput node's timeout (2000 ms)"), response.body());
    }
}
