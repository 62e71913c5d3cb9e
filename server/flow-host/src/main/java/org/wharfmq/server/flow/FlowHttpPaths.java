package org.wharfmq.server.flow;

import org.wharfmq.flow.HttpExchange;
import org.wharfmq.flow.node.HttpInputNode;
import org.wharfmq.flow.runtime.HttpEndpoints;
import org.wharfmq.flow.runtime.HttpRequests;
import org.wharfmq.server.http.HttpAnswer;
import org.wharfmq.server.http.HttpPlugin;
import org.wharfmq.server.security.Permission;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * The flows' HTTPInput paths on the server's HTTP listener: each a route of every method that needs the {@code call}
 * permission on its path and takes bodies up to its node's limit; a request becomes an {@link HttpExchange} (its
 * caller with it ({@link HttpCallers}: the flow's sends can be made as the caller), its {@code Authorization} header without), and the flow's reply the answer. The route's handler returns at once: no listener thread
 * waits for the flow.
 */
final class FlowHttpPaths implements HttpEndpoints {

    /** Headers the listener has used to log the caller in: a flow (and its Trace nodes) never sees the password. */
    private static final Set<String> CREDENTIALS = Set.of("authorization", "proxy-authorization");

    private final HttpPlugin http;
    /** The requests of every flow of this flow host that wait for a reply from any flow. */
    private final HttpRequests requests = new HttpRequests();
    /** Set by {@link #attach} when the flow host starts, before any flow serves a path. */
    private volatile HttpCallers callers;

    FlowHttpPaths(HttpPlugin http) {
        this.http = http;
    }

    /** The queue manager whose users call: their flows' sends are made as them. */
    void attach(HttpCallers callers) {
        this.callers = callers;
    }

    @Override
    public AutoCloseable serve(String flow, HttpInputNode node,
                               Function<HttpExchange, CompletableFuture<HttpExchange.Reply>> requests) {
        if (!http.listens()) {
            throw new IllegalStateException("Flow '" + flow + "' has " + node + " (path " + node.servedPath()
                    + "), but the server has no HTTP listener: add an http: block to its configuration (docs/flows.md, "
                    + "\"HTTP input and reply nodes\").");
        }
        try {
            String limitSetting = "the maxRequestBytes of " + node + " in flow '" + flow + "' (docs/flows.md, "
                    + "\"HTTP input and reply nodes\")";
            return http.routes().serve(node.servedPath(), Permission.CALL, node.maxRequestBytes(), limitSetting,
                    call -> requests
                    .apply(new HttpExchange(call.method(), call.path(), call.query(), withoutCredentials(call.headers()),
                            call.body(), call.who().anonymous() ? null : callers.of(call.who())))
                    .thenApply(reply -> new HttpAnswer(reply.status(), reply.contentType(), reply.headers(),
                            reply.body())));
        } catch (IllegalStateException | IllegalArgumentException e) {
            throw new IllegalStateException("Flow '" + flow + "' cannot serve " + node + "'s path: " + e.getMessage(),
                    e);
        }
    }

    @Override
    public HttpRequests requests() {
        return requests;
    }

    private static Map<String, String> withoutCredentials(Map<String, String> headers) {
        if (CREDENTIALS.stream().noneMatch(headers::containsKey)) {
            return headers;
        }
        Map<String, String> rest = new HashMap<>(headers);
        rest.keySet().removeAll(CREDENTIALS);
        return rest;
    }
}
