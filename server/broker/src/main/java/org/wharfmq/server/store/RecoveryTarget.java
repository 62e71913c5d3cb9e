package org.wharfmq.server.store;

import io.netty.buffer.ByteBuf;

/**
 * Receives the state a {@link MessageStore} recovers at startup: the server's {@code RecoveryRouter} hands it to
 * the queues and topics it belongs to, before any client connects. Calls come from one thread, durable subscriptions first, then queues before their messages, and each
 * queue's messages in sequence order.
 */
public interface RecoveryTarget {

    /** A durable subscription that existed when the server stopped; called before any queue or message. */
    default void subscriptionRecovered(SubscriptionRecord subscription) {
    }

    /**
     * A queue that must exist: defined at run time before the restart, or holding recovered messages.
     *
     * @param lastSequence the highest sequence number the store has seen on this queue; new messages must be
     *                     numbered above it so that no journal record is ever ambiguous
     */
    void queueRecovered(String queueName, long lastSequence);

    /**
     * A committed persistent message that was not consumed.
     *
     * @param content       the encoded message; the target takes over this reference
     * @param deliveryCount the JMSXDeliveryCount its next delivery carries: 1 if it was never delivered, more
     *                      (and JMSRedelivered) if it had been delivered and not acknowledged
     */
    void messageRecovered(String queueName, long sequence, ByteBuf content, int deliveryCount);

    /**
     * An XA transaction branch that was prepared and neither committed nor rolled back: in doubt. Called after every
     * {@link #messageRecovered}; the messages it consumed are not among those.
     */
    default void transactionPrepared(PreparedTransaction transaction) {
        transaction.release();
    }

    /**
     * A prepared XA transaction branch the store rolled back at recovery, its branch having been prepared again by a
     * later transaction that is kept ({@link #transactionPrepared}, or completed before the restart): a journal written
     * by a version that left the rollback of a branch restored after a restart unrecorded. Called before
     * {@link #transactionPrepared}; for the log.
     *
     * @param branch     the Xid, as {@link Persistence#prepare} was given it
     * @param rolledBack the transaction id of the older PREPARE, rolled back (recorded)
     * @param kept       the transaction id of the later one
     */
    default void transactionSuperseded(byte[] branch, long rolledBack, long kept) {
    }
}
