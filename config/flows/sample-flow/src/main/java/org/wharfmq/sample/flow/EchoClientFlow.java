package org.wharfmq.sample.flow;

import org.wharfmq.flow.FlowDefinition;
import org.wharfmq.flow.FlowFactory;
import org.wharfmq.flow.node.HttpInputNode;
import org.wharfmq.flow.node.HttpReplyNode;
import org.wharfmq.flow.node.HttpRequestNode;

import java.time.Duration;

/**
 * The HTTP request sample: {@code /flows/echo-client} on the server's HTTP listener sends the request's body to an HTTP
 * service with an HTTP Request node, and answers with what the service answered. The service is the echo flow
 * ({@link EchoFlow}) on this server's own listener, so that the sample works with no other service and no outside
 * network: {@code curl --data hi http://localhost:7480/flows/echo-client} answers
 * {@code The echo flow answered 200: hi}. A service that cannot be reached, or that answers 4xx or 5xx, takes the
 * request node's failure terminal: the caller gets 502 with the reason.
 */
public final class EchoClientFlow implements FlowFactory {

    /** The path it serves. */
    public static final String PATH = "/flows/echo-client";
    /**
     * The service it calls: the echo flow on the HTTP listener's port in config/wharf.yaml ({@code http.port}, 7480);
     * change both together.
     */
    public static final String SERVICE = "http://127.0.0.1:7480" + EchoFlow.PATH;

    @Override
    public FlowDefinition create() {
        return FlowDefinition.builder("echo-client")
                .node("in", HttpInputNode.path(PATH))
                .node("call", HttpRequestNode.post(SERVICE)
                        .header("Accept", "text/plain")
                        .connectTimeout(Duration.ofSeconds(2))
                        .requestTimeout(Duration.ofSeconds(10)))
                .node("answer", new EchoClientAnswer())
                .node("failed", new EchoClientFailed())
                .node("reply", new HttpReplyNode())
                .wire("in", "out", "call")
                .wire("call", "out", "answer")
                .wire("answer", "out", "reply")
                .wire("call", "failure", "failed")
                .wire("failed", "out", "reply")
                .build();
    }
}
