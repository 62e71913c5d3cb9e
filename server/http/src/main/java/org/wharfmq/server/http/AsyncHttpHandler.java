package org.wharfmq.server.http;

import java.util.concurrent.CompletionStage;

/**
 * Answers the requests of a route later ({@link HttpRoutes#serve}): returns at once, on the listener's worker thread,
 * with the answer to come, which is written when it completes, from whatever thread completes it. A message flow's
 * HTTPInput node is one: the answer comes when the flow replies, or its timeout answers 504. No listener thread
 * waits for it. A stage completed exceptionally is answered as {@link HttpRoutes} maps exceptions.
 */
@FunctionalInterface
public interface AsyncHttpHandler {

    /** The answer to {@code call}, to come. */
    CompletionStage<HttpAnswer> handle(HttpCall call) throws Exception;
}
