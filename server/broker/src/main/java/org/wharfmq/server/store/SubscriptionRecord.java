package org.wharfmq.server.store;

/**
 * The definition of a durable subscription as the store keeps it, so that recovery recreates the subscription
 * before its messages (which are stored on {@code queueName} like any queue's).
 *
 * @param queueName the subscription's queue ({@code SYSTEM.SUB.D…}), unique per subscription ever created
 * @param name      the subscription name
 * @param clientId  the client ID it belongs to, or null (shared subscriptions may have none)
 * @param topic     the topic filter
 * @param selector  the message selector, or null
 * @param noLocal   whether publications of its own client ID are left out
 * @param shared    whether it is a JMS 2.0 shared durable subscription
 * @param owner     the user who created it, the only one who may resume or delete it; null when an anonymous
 *                  client created it (or it was created before Wharf had users): anyone may
 */
public record SubscriptionRecord(String queueName, String name, String clientId, String topic, String selector,
                                 boolean noLocal, boolean shared, String owner) {
}
