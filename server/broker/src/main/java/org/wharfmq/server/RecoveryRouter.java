package org.wharfmq.server;

import io.netty.buffer.ByteBuf;
import org.wharfmq.server.queue.QueueManager;
import org.wharfmq.server.queue.QueuedMessage;
import org.wharfmq.server.queue.SystemQueues;
import org.wharfmq.server.session.XaBranches;
import org.wharfmq.server.store.PreparedTransaction;
import org.wharfmq.server.store.RecoveryTarget;
import org.wharfmq.server.store.SubscriptionRecord;
import org.wharfmq.server.topic.TopicManager;

import java.util.ArrayList;
import java.util.List;

/**
 * Where what the store recovers at startup goes, decided by the queue's name ({@link SystemQueues}): durable
 * subscriptions and their queues' messages to the {@link TopicManager}, retained publications' pseudo queues to
 * the {@link TopicManager}, every other queue and message to the {@link QueueManager}; prepared XA branches, their
 * messages held on those queues, to the {@link XaBranches}. The one {@link RecoveryTarget} of the server; recovery
 * runs on one thread before any client connects.
 */
final class RecoveryRouter implements RecoveryTarget {

    private final QueueManager queues;
    private final TopicManager topics;
    private final XaBranches xaBranches;

    RecoveryRouter(QueueManager queues, TopicManager topics, XaBranches xaBranches) {
        this.queues = queues;
        this.topics = topics;
        this.xaBranches = xaBranches;
    }

    @Override
    public void subscriptionRecovered(SubscriptionRecord subscription) {
        topics.subscriptionRecovered(subscription);
    }

    @Override
    public void queueRecovered(String queueName, long lastSequence) {
        if (SystemQueues.isSubscriptionQueue(queueName)) {
            topics.subscriptionQueueRecovered(queueName, lastSequence);
        } else if (SystemQueues.isRetainedQueue(queueName)) {
            topics.retainedSequenceRecovered(SystemQueues.retainedTopic(queueName), lastSequence);
        } else {
            queues.queueRecovered(queueName, lastSequence);
        }
    }

    @Override
    public void messageRecovered(String queueName, long sequence, ByteBuf content, int deliveryCount) {
        if (SystemQueues.isSubscriptionQueue(queueName)) {
            topics.subscriptionMessageRecovered(queueName, sequence, content, deliveryCount);
        } else if (SystemQueues.isRetainedQueue(queueName)) {
            topics.retainedRecovered(SystemQueues.retainedTopic(queueName), sequence, content);
        } else {
            queues.messageRecovered(queueName, sequence, content, deliveryCount);
        }
    }

    /**
     * An XA branch in doubt: its sends reserved and its consumed messages held on their queues (neither offered),
     * and the branch PREPARED under its Xid.
     */
    @Override
    public void transactionPrepared(PreparedTransaction transaction) {
        xaBranches.recovered(transaction.branch(), transaction.transactionId(), held(transaction.sends()),
                held(transaction.consumed()));
    }

    /** A branch prepared twice in an older version's journal: the older PREPARE, rolled back by the store, logged. */
    @Override
    public void transactionSuperseded(byte[] branch, long rolledBack, long kept) {
        xaBranches.superseded(branch);
    }

    /** Each message on its queue (a queue's, or a durable subscription's), counted in its depth but not offered. */
    private List<QueuedMessage> held(List<PreparedTransaction.Message> messages) {
        List<QueuedMessage> held = new ArrayList<>(messages.size());
        for (PreparedTransaction.Message m : messages) {
            QueuedMessage message = SystemQueues.isSubscriptionQueue(m.queueName())
                    ? topics.subscriptionMessageHeld(m.queueName(), m.sequence(), m.content(), m.deliveryCount())
                    : queues.messageHeld(m.queueName(), m.sequence(), m.content(), m.deliveryCount());
            if (message != null) { // null: its subscription is gone, or it cannot be decoded (dead-lettered)
                held.add(message);
            }
        }
        return held;
    }
}
