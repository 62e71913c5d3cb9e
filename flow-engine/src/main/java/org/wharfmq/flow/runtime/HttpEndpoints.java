package org.wharfmq.flow.runtime;

import org.wharfmq.flow.HttpExchange;
import org.wharfmq.flow.node.HttpInputNode;

import java.util.function.Function;

/**
 * Where a flow's HTTPInput nodes serve their paths: the server's HTTP listener, which the flow host gives
 * {@link RunningFlow#start}; or {@link #NONE}, where a flow with an HTTPInput node cannot start.
 */
@FunctionalInterface
public interface HttpEndpoints {

    /** No HTTP listener: a flow with an HTTPInput node is refused. */
    HttpEndpoints NONE = (flow, node, requests) -> {
        throw noListener(flow, node);
    };

    /** The refusal of a flow with an HTTPInput node where there is no HTTP listener. */
    static IllegalStateException noListener(String flow, HttpInputNode node) {
        return new IllegalStateException("Flow '" + flow + "' has " + node + " (path " + node.servedPath() + "), but "
                + "it runs where there is no HTTP listener: deploy it in a server whose configuration has an http: "
                + "block (docs/flows.md, \"HTTP input and reply nodes\").");
    }

    /**
     * Serves {@code node}'s path until the returned handle is closed: each request, from a caller the listener let in,
     * is made an {@link HttpExchange} and given to {@code requests}, which returns the answer to come.
     *
     * @throws IllegalStateException when the path cannot be served (another flow serves it; no listener)
     */
    AutoCloseable serve(String flow, HttpInputNode node,
                        Function<HttpExchange, java.util.concurrent.CompletableFuture<HttpExchange.Reply>> requests);

    /** The requests of these paths that any flow may answer (HTTPInput {@code replyLater}): one per server. */
    default HttpRequests requests() {
        return HttpRequests.NONE;
    }
}
