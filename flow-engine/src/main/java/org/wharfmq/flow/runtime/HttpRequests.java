package org.wharfmq.flow.runtime;

import org.wharfmq.flow.HttpExchange;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The HTTP requests of one server's flows that wait for a reply from any flow (HTTPInput {@code replyLater}), by their
 * identifier: an HTTPReply node of another invocation (of any flow of the server, App Connect's coordinated
 * request/reply) answers one by the identifier the request's message carries. A request is here from when it is
 * accepted until it is answered (its reply, its timeout's 504, a 500 or 503); an identifier that is not (unknown,
 * answered, timed out) finds nothing, so a late reply reaches no one, least of all another caller. Thread-safe.
 */
public final class HttpRequests {

    /** Where there is no HTTP listener: no request ever waits. */
    static final HttpRequests NONE = new HttpRequests();

    private final Map<String, HttpExchange> waiting = new ConcurrentHashMap<>();

    /** Makes {@code request} answerable by its identifier until it is answered. */
    void await(HttpExchange request) {
        waiting.put(request.id(), request);
        request.answer().whenComplete((reply, failure) -> waiting.remove(request.id(), request));
    }

    /** The request with identifier {@code id} that still waits for its answer, or null. */
    HttpExchange waiting(String id) {
        return waiting.get(id);
    }
}
