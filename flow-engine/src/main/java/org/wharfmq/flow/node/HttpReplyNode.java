package org.wharfmq.flow.node;

import org.wharfmq.flow.FlowContext;
import org.wharfmq.flow.HttpExchange;
import org.wharfmq.flow.MessageAssembly;
import org.wharfmq.flow.Node;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Answers the HTTP request the invocation began with (at an {@link HttpInputNode}), as App Connect's HTTP Reply node:
 * the body is the message's body as its domain writes it, the status {@link #STATUS} of the LocalEnvironment (default
 * 200), the headers {@link #HEADERS} (a {@code Content-Type} there wins over the domain's: JSON
 * {@code application/json}, XML {@code application/xml}, BLOB {@code application/octet-stream}). The answer goes to
 * the caller once the invocation has committed (so a flow that fails after replying answers 500, not the reply); the
 * assembly then goes on to {@code out}.
 *
 * <p>No request to answer (the invocation began elsewhere), a request answered already (its timeout's 504, or another
 * HTTPReply), or a status outside 200-599 go to {@code failure}, or fail the path when it is unwired.
 */
public final class HttpReplyNode extends Node {

    /** LocalEnvironment field: the answer's status (an Integer, 200 to 599; default 200). */
    public static final String STATUS = "HttpReplyStatus";
    /** LocalEnvironment field: the answer's headers, a {@code Map<String, ?>} of a String (or a List of them) each. */
    public static final String HEADERS = "HttpReplyHeaders";

    public HttpReplyNode() {
        super("HTTPReply", List.of("in"), List.of("out", "failure"));
    }

    @Override
    public void receive(String terminal, MessageAssembly assembly, FlowContext context) throws Exception {
        try {
            reply(assembly, context.httpExchange());
        } catch (IllegalStateException | IllegalArgumentException e) {
            propagateFailure(assembly, e, context);
            return;
        }
        context.propagate(this, "out", assembly);
    }

    private static void reply(MessageAssembly assembly, HttpExchange exchange) {
        if (exchange == null) {
            throw new IllegalStateException("no HTTP request to reply to: the invocation did not begin at an HTTPInput "
                    + "node.");
        }
        Object statusField = assembly.localEnvironment().get(STATUS);
        int status = statusField == null ? 200 : statusField instanceof Number n ? n.intValue()
                : Integer.parseInt(statusField.toString().trim());
        if (status < 200 || status > 599) {
            throw new IllegalArgumentException("LocalEnvironment." + STATUS + " must be an HTTP status from 200 to 599, "
                    + "was " + statusField + ".");
        }
        Map<String, String> headers = new LinkedHashMap<>();
        Object headerField = assembly.localEnvironment().get(HEADERS);
        if (headerField instanceof Map<?, ?> map) {
            map.forEach((name, value) -> {
                if (value != null) {
                    headers.put(String.valueOf(name), value instanceof List<?> values
                            ? values.stream().map(String::valueOf).collect(Collectors.joining(", "))
                            : String.valueOf(value));
                }
            });
        } else if (headerField != null) {
            throw new IllegalArgumentException("LocalEnvironment." + HEADERS + " must be a Map of header name to value, "
                    + "not a " + headerField.getClass().getName() + ".");
        }
        String contentType = HttpRequestNode.contentType(assembly.message().domain());
        for (var it = headers.entrySet().iterator(); it.hasNext(); ) {
            var header = it.next();
            if (header.getKey().equalsIgnoreCase("Content-Type")) {
                contentType = header.getValue();
                it.remove();
            }
        }
        exchange.reply(new HttpExchange.Reply(status, contentType, headers, assembly.message().bodyBytes()));
    }
}
