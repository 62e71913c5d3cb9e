package org.wharfmq.server.session;

import org.wharfmq.server.queue.QueuedMessage;

/**
 * One message sent (or about to be sent) to a consumer and not yet acknowledged: what an ACK, COMMIT, ROLLBACK or
 * CLOSE_CONSUMER names by its delivery id. Guarded by the session's lock.
 */
final class Delivery {

    final ServerConsumer consumer;
    final long deliveryId;
    final int deliveryCount;
    final QueuedMessage message;
    /** Acknowledged or returned: if its DELIVER has not been written yet, it never will be. */
    boolean settled;

    Delivery(ServerConsumer consumer, long deliveryId, int deliveryCount, QueuedMessage message) {
        this.consumer = consumer;
        this.deliveryId = deliveryId;
        this.deliveryCount = deliveryCount;
        this.message = message;
    }
}
