package org.wharfmq.client.core;

import org.wharfmq.protocol.frame.Frame;

/**
 * What a connection's {@link LinkHandler} hands on, once a link is handshaken: the frames for its sessions, and the end
 * of the link. Called on the link's reading thread, one call at a time, so an implementation
 * routes and returns: it must neither block nor run application code. The answers to requests ({@code OK},
 * {@code ERROR} with a request id, {@code XA_RESULT}) do not come here: the handler completes them in the connection's
 * {@link PendingRequests}, and those for consumers (DELIVER, PULL_DONE, CONSUMER_FAILED) go to its
 * {@link ConsumerRegistry}.
 */
public interface LinkEvents {

    /** A session's producers may send more on {@code on} (producer flow control). */
    void onProducerCredit(ConnectedLink on, Frame.ProducerCredit credit);

    /**
     * The server reported the failure of a fire-and-forget request (request id 0): an asynchronous send (its session
     * and producer named) or a request of no one's in particular.
     */
    void onAsyncError(ConnectedLink on, Frame.Error error);

    /**
     * {@code link} has ended: {@code reason} says why, {@code cause} is the I/O failure if any. {@code mayReconnect} is
     * false when connecting again would only meet the same end (a protocol error, an administrator ending the
     * connection).
     */
    void linkLost(ConnectedLink link, String reason, Throwable cause, boolean mayReconnect);
}
