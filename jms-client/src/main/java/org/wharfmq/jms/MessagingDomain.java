package org.wharfmq.jms;

import javax.jms.IllegalStateException;

/**
 * The messaging domain a connection or session was created for. JMS 1.1 kept point-to-point and publish/subscribe
 * apart (QueueConnection and QueueSession, TopicConnection and TopicSession), and its section 4.11 with the JMS 2.0
 * javadoc of QueueConnection, QueueSession and TopicSession require each of those to refuse the other domain's
 * methods with IllegalStateException. A Wharf connection and session implement both domains' interfaces, so every
 * method that belongs to one domain asks its object's domain first.
 */
enum MessagingDomain {
    /** Created by {@code createConnection} or {@code createSession}: both domains. */
    BOTH(null, null),
    /** Created by {@code createQueueConnection} or {@code createQueueSession}. */
    QUEUE("Queue", "queues"),
    /** Created by {@code createTopicConnection} or {@code createTopicSession}. */
    TOPIC("Topic", "topics");

    private final String prefix;
    private final String destinations;

    MessagingDomain(String prefix, String destinations) {
        this.prefix = prefix;
        this.destinations = destinations;
    }

    /**
     * Refuses {@code method}, which belongs to the {@code needed} domain, unless an object of this domain may call it.
     *
     * @param kind {@code "Session"} or {@code "Connection"}, for the message
     * @throws IllegalStateException naming the method, the object's domain, and what to use instead
     */
    void require(MessagingDomain needed, String method, String kind) throws IllegalStateException {
        if (this != BOTH && this != needed) {
            String object = prefix + kind;
            throw new IllegalStateException(method + " is not allowed on a " + object + " (JMS 1.1: a " + object
                    + " is for " + destinations + " only); use a " + kind + " from create" + kind);
        }
    }
}
