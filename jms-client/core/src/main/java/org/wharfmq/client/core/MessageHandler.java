package org.wharfmq.client.core;

/**
 * What a consumer that hands its deliveries on calls with each message ({@link CoreConsumer#handleWith}): run on its
 * session's dispatch thread, one message at a time per session, in arrival order across the session's consumers, and
 * only while the connection is started. It may use its own session (send, acknowledge, commit, close a consumer) and
 * may block; the session's close and the connection's stop wait for it to return, unless they are called from it. A
 * RuntimeException it throws is logged and, in a session that acknowledges automatically, recovers the session: the
 * message comes again, marked redelivered.
 *
 * @param <M> the user's message, made by the consumer's {@link CoreConsumer.Decoder}
 */
@FunctionalInterface
public interface MessageHandler<M> {
    void onMessage(M message);
}
