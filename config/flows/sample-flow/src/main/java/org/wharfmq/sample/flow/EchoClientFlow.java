package org.wharfmq.sample.flow;

import org.wharfmq.flow.FlowDefinition;
import org.wharfmq.flow.FlowFactory;
import org.wharfmq.flow.FlowProperties;
import org.wharfmq.flow.node.HttpInputNode;
import org.wharfmq.flow.node.HttpReplyNode;
import org.wharfmq.flow.node.HttpRequestNode;

import java.time.Duration;

/**
 * The HTTP request sample: {@code /flows/echo-client} on the server's HTTP listener sends the request's body to an HTTP
 * service with an HTTP Request node, and answers with what the service answered. The service is the flow property
 * {@value #SERVICE_PROPERTY} (its entry's {@code properties:} in the configuration); left out, the echo flow
 * ({@link EchoFlow}) on this server's own HTTP listener, at the address its configuration gives it, so that the
 * sample works with no other service, no outside network, and whatever port the listener has:
 * {@code curl --data hi http://localhost:7480/flows/echo-client} answers {@code The echo flow answered 200: hi}. A
 * service that cannot be reached, or that answers 4xx or 5xx, takes the request node's failure terminal: the caller
 * gets 502 with the reason.
 */
public final class EchoClientFlow implements FlowFactory {

    /** The path it serves. */
    public static final String PATH = "/flows/echo-client";
    /** The flow property naming the service it calls (a URL); left out, the echo flow on this server. */
    public static final String SERVICE_PROPERTY = "serviceUrl";

    /** Outside a server: the service must be given, and cannot be here. */
    @Override
    public FlowDefinition create() {
        return create(FlowProperties.NONE);
    }

    @Override
    public FlowDefinition create(FlowProperties properties) {
        return FlowDefinition.builder("echo-client")
                .node("in", HttpInputNode.path(PATH))
                .node("call", HttpRequestNode.post(service(properties))
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

    /** The property {@value #SERVICE_PROPERTY}, else the echo flow on this server's HTTP listener. */
    private static String service(FlowProperties properties) {
        String service = properties.get(SERVICE_PROPERTY);
        if (service != null) {
            return service;
        }
        if (properties.serverHttpUrl() == null) {
            throw new IllegalArgumentException("Flow 'echo-client' calls the echo flow on this server's HTTP listener "
                    + "by default, but the server has none whose address its configuration gives (no http: block, or "
                    + "port 0): give the flow the property " + SERVICE_PROPERTY + " (properties: under its entry in "
                    + "flows:), the URL of the service to call.");
        }
        return properties.serverHttpUrl() + EchoFlow.PATH;
    }
}
