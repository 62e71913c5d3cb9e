package org.wharfmq.flow;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * One HTTP request to a flow's HTTPInput node and its answer to come: what the caller sent (and as whom), the reply an
 * HTTPReply node gave during the invocation ({@link #reply}), and the {@link #answer()} the caller gets. The runtime
 * completes the answer once the invocation has ended: with the reply when it committed, else with a 500; the node's
 * timeout completes it first with a 504 when the flow takes too long. The first completion wins.
 *
 * <p>Made by whoever serves the path (the flow host, on the server's HTTP listener); the request's fields are
 * immutable; the pending reply is confined to the invocation's thread.
 */
public final class HttpExchange {

    /**
     * An answer to the caller.
     *
     * @param status      the HTTP status
     * @param contentType the body's media type
     * @param headers     more headers, by name
     * @param body        the body
     */
    public record Reply(int status, String contentType, Map<String, String> headers, byte[] body) {

        public Reply {
            headers = Map.copyOf(headers);
        }

        /** {@code status} with {@code message} as plain text: the runtime's own answers (500, 503, 504). */
        public static Reply text(int status, String message) {
            return new Reply(status, "text/plain; charset=utf-8", Map.of(),
                    (message + "\n").getBytes(StandardCharsets.UTF_8));
        }

        /**
         * 503 Service Unavailable with {@code message} as plain text and {@code Retry-After: seconds}: a request that
         * may succeed later (a database that gives no connection now), not the caller's fault.
         */
        public static Reply retryLater(String message, long seconds) {
            return new Reply(503, "text/plain; charset=utf-8", Map.of("Retry-After", Long.toString(seconds)),
                    (message + "\n").getBytes(StandardCharsets.UTF_8));
        }
    }

    private static final SecureRandom IDS = new SecureRandom();

    private final String id;
    private final String method;
    private final String path;
    private final Map<String, List<String>> query;
    private final Map<String, String> headers;
    private final byte[] body;
    private final String user;
    private final HttpCaller caller;
    private final CompletableFuture<Reply> answer = new CompletableFuture<>();
    /** The reply of this invocation's HTTPReply node; on the invocation's thread. */
    private Reply pending;
    /** Why a send of the invocation was refused for the caller (answered 403), or null; on the invocation's thread. */
    private String refused;

    /**
     * @param method  the request's method
     * @param path    its decoded path, without the query
     * @param query   its query parameters, each with its values in order
     * @param headers its headers by lower-case name
     * @param body    its body (not copied: the caller hands it over)
     * @param caller  the user it logged in as, or null for an anonymous caller
     */
    public HttpExchange(String method, String path, Map<String, List<String>> query, Map<String, String> headers,
                        byte[] body, HttpCaller caller) {
        this.method = method;
        this.path = path;
        this.query = Map.copyOf(query);
        this.headers = Map.copyOf(headers);
        this.body = body;
        this.caller = caller;
        this.user = caller == null ? null : caller.user();
        byte[] random = new byte[16];
        IDS.nextBytes(random);
        this.id = HexFormat.of().formatHex(random);
    }

    /**
     * The request's identifier: 128 random bits in hex, unguessable, so a reply given by identifier (from another
     * flow) reaches this request or none.
     */
    public String id() {
        return id;
    }

    /** The request's method. */
    public String method() {
        return method;
    }

    /** The request's path, without the query. */
    public String path() {
        return path;
    }

    /** The request's query parameters. */
    public Map<String, List<String>> query() {
        return query;
    }

    /** The request's headers, by lower-case name. */
    public Map<String, String> headers() {
        return headers;
    }

    /** The request's body (do not change it). */
    public byte[] body() {
        return body;
    }

    /** The user the caller logged in as; null for an anonymous caller. */
    public String user() {
        return user;
    }

    /** The caller as the queue manager knows it; null for an anonymous caller. */
    public HttpCaller caller() {
        return caller;
    }

    /**
     * Records that a send of the invocation was refused for the caller: the invocation then rolls back and the caller
     * is answered 403 with {@code why}, even when a node caught the failure. For the runtime.
     */
    public void refuse(String why) {
        if (refused == null) {
            refused = why;
        }
    }

    /** Why a send was refused for the caller, or null. For the runtime. */
    public String refusal() {
        return refused;
    }

    /** What the caller gets; completed once. */
    public CompletableFuture<Reply> answer() {
        return answer;
    }

    /**
     * Records the reply of an HTTPReply node, sent when the invocation commits.
     *
     * @throws IllegalStateException when the request was answered already (its timeout's 504) or replied to in this
     *                               invocation
     */
    public void reply(Reply reply) {
        if (answer.isDone()) {
            throw new IllegalStateException(method + " " + path + " was answered already (" + answer.join().status()
                    + (answer.join().status() == 504 ? ", its HTTPInput node's timeout passed" : "") + "): this reply "
                    + "cannot be sent.");
        }
        if (pending != null) {
            throw new IllegalStateException(method + " " + path + " has a reply already (status " + pending.status()
                    + "): one HTTPReply per request.");
        }
        pending = reply;
    }

    /** The reply recorded in the invocation, or null. For the runtime. */
    public Reply pendingReply() {
        return pending;
    }

    /** Forgets the reply of an invocation that rolled back. For the runtime. */
    public void discardReply() {
        pending = null;
    }
}
