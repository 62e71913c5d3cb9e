package org.wharfmq.server.http;

/**
 * Answers the requests of one route ({@link HttpRoutes}). Runs on one of the HTTP listener's worker threads, never on
 * an event loop, so it may call the management view and block briefly; several requests run at once, so a handler
 * is thread-safe. The caller is already authenticated and holds the route's permission ({@link HttpCall#who()}).
 */
@FunctionalInterface
public interface HttpHandler {

    /**
     * The answer to one request.
     *
     * @throws HttpRefusal for a refusal with a status of the handler's choice; other exceptions as {@link HttpRoutes}
     *                     maps them (bad input 400, unknown thing 404, refused change 409)
     */
    HttpAnswer handle(HttpCall call) throws Exception;
}
