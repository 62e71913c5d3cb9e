package org.wharfmq.server;

import io.netty.buffer.ByteBuf;
import org.wharfmq.server.queue.QueueManager;
import org.wharfmq.server.queue.SystemQueues;
import org.wharfmq.server.store.RecoveryTarget;
import org.wharfmq.server.store.SubscriptionRecord;
import org.wharfmq.server.topic.TopicManager;

/**
 * Where what the store recovers at startup goes, decided by the queue's name ({@link SystemQueues}): durable
 * subscriptions and their queues' messages to the {@link TopicManager}, retained publications' pseudo queues to
 * the {@link TopicManager}, every other queue and message to the {@link QueueManager}. The one
 * {@link RecoveryTarget} of the server; recovery runs on one thread before any client connects.
 */
final class RecoveryRouter implements RecoveryTarget {

    private final QueueManager queues;
    private final TopicManager topics;

    RecoveryRouter(QueueManager queues, TopicManager topics) {
        this.queues = queues;
        this.topics = topics;
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
}
