package org.wharfmq.server.store;

import io.netty.buffer.ByteBuf;

import java.util.List;

/**
 * An XA transaction branch recovered in doubt: prepared, neither committed nor rolled back ({@link
 * RecoveryTarget#transactionPrepared}). Its sends were never visible and the messages it consumed were not delivered
 * again: after the restart its sends are to be reserved on their queues and its consumed messages held out of theirs,
 * until its transaction manager commits or rolls it back.
 *
 * @param transactionId the id its commit or rollback marker is written with ({@link Persistence#commit}, {@link
 *                      Persistence#rollback}): the store's own, never one {@link Persistence#newTransactionId} gives
 * @param branch        the Xid, as {@link Persistence#prepare} was given it
 * @param sends         the messages sent in it, delivery count 1
 * @param consumed      the messages it consumed, with the delivery count of the delivery it consumed
 */
public record PreparedTransaction(long transactionId, byte[] branch, List<Message> sends, List<Message> consumed) {

    /**
     * One message of a prepared transaction.
     *
     * @param content the encoded message; whoever receives the transaction takes over this reference
     */
    public record Message(String queueName, long sequence, ByteBuf content, int deliveryCount) {
    }

    /** Releases every message's bytes: for a target that keeps none of them. */
    public void release() {
        sends.forEach(m -> m.content().release());
        consumed.forEach(m -> m.content().release());
    }
}
