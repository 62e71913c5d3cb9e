package org.wharfmq.client.core;

import org.wharfmq.protocol.frame.ErrorCode;
import org.wharfmq.protocol.frame.Frame;

/**
 * Where a connection's {@link ConsumerRegistry} hands the frames for one consumer id: a consumer's buffer, or a queue
 * browser's cursor. Called on the link's reading thread, so an implementation stores and returns: it must neither
 * block nor run application code.
 */
public interface DeliveryTarget {

    /** A message for this consumer; the callee owns its buffer. */
    void deliver(Frame.Deliver deliver);

    /** The answer to this consumer's PULL {@code pullId}, after any message it delivered. */
    void pullDone(long pullId);

    /** The server refused this consumer, created without waiting (its queue was deleted since, say). */
    default void failed(ErrorCode code, String message) {
    }

    /** The link was lost, or the connection for good: a thread waiting for this target's frames looks again. */
    default void wake() {
    }

    /** A reconnection is re-creating the connection: what was asked of the old link will not be answered. */
    default void linkReplaced() {
    }
}
