package org.wharfmq.server.topic;

import org.wharfmq.protocol.selector.Selector;
import org.wharfmq.server.queue.LocalQueue;

import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One subscription to a topic filter: which publications it wants (filter, selector, noLocal) and the
 * {@link LocalQueue} that holds them until its consumers take them (a "subscription queue", as IBM MQ's managed
 * queues and Artemis's queues bound to an address). Everything a queue does (credit, transactions, acknowledgement,
 * redelivery, the journal, recovery) therefore works for subscriptions unchanged.
 *
 * <p>The queue has a reserved name ({@link org.wharfmq.server.queue.SystemQueues#SUBSCRIPTION_PREFIX}) that clients cannot address.
 * The consumer count is guarded by the {@link TopicManager}'s lock (its methods assert that the caller holds it);
 * the rest is fixed at creation.
 */
public final class Subscription {

    private final String queueName;
    private final String name;
    private final String clientId;
    /** The user who created a named subscription, the only one who may resume or delete it; null: anyone may. */
    private final String owner;
    private final String filter;
    private final String selectorText;
    private final Selector selector;
    private final boolean noLocal;
    private final boolean durable;
    private final boolean shared;
    private final boolean temporary;
    /** The connection whose publications a non-durable noLocal subscription ignores; null otherwise. */
    private final Object localConnection;
    private final LocalQueue queue;
    private final AtomicLong missed = new AtomicLong();
    /** The topic manager whose lock guards {@link #consumers}. */
    private final TopicManager manager;
    /** Open consumers; under the manager's lock. */
    private int consumers;

    Subscription(String queueName, String name, String clientId, String owner, String filter, String selectorText,
                 Selector selector, boolean noLocal, boolean durable, boolean shared, boolean temporary,
                 Object localConnection, LocalQueue queue, TopicManager manager) {
        this.queueName = queueName;
        this.name = name;
        this.clientId = clientId;
        this.owner = owner;
        this.filter = filter;
        this.selectorText = selectorText;
        this.selector = selector;
        this.noLocal = noLocal;
        this.durable = durable;
        this.shared = shared;
        this.temporary = temporary;
        this.localConnection = localConnection;
        this.queue = queue;
        this.manager = manager;
    }

    /** Open consumers; under the topic manager's lock. */
    int consumers() {
        assert manager.lockHeldByCurrentThread() : "the consumers of " + this + " are counted under the topic manager's lock";
        return consumers;
    }

    /** Its first consumer attached (it was just created); under the topic manager's lock. */
    void firstConsumer() {
        assert manager.lockHeldByCurrentThread() : "the consumers of " + this + " are counted under the topic manager's lock";
        consumers = 1;
    }

    /** One more consumer attached; under the topic manager's lock. */
    void addConsumer() {
        assert manager.lockHeldByCurrentThread() : "the consumers of " + this + " are counted under the topic manager's lock";
        consumers++;
    }

    /** A consumer detached; under the topic manager's lock. @return how many are left */
    int removeConsumer() {
        assert manager.lockHeldByCurrentThread() : "the consumers of " + this + " are counted under the topic manager's lock";
        return --consumers;
    }

    /** The name of its queue, {@code SYSTEM.SUB.…}; the key of its messages in the journal. */
    public String queueName() {
        return queueName;
    }

    /** The subscription name (durable and shared subscriptions), else null. */
    public String name() {
        return name;
    }

    /** The client ID it belongs to, or null. */
    public String clientId() {
        return clientId;
    }

    /** The user who created it, the only one who may resume or delete it; null when anyone may. */
    public String owner() {
        return owner;
    }

    /** The topic filter, possibly with wildcards. */
    public String filter() {
        return filter;
    }

    /** The selector text, or null. */
    public String selectorText() {
        return selectorText;
    }

    /** Publications it accepts. */
    Selector selector() {
        return selector;
    }

    /** Whether publications from its own connection (durable: its own client ID) are left out. */
    public boolean noLocal() {
        return noLocal;
    }

    /** Whether it outlives its consumers and the server (JMS durable subscription). */
    public boolean durable() {
        return durable;
    }

    /** Whether several consumers share its messages (JMS 2.0 shared subscription). */
    public boolean shared() {
        return shared;
    }

    /** Whether it subscribes to a temporary topic (exact name, a tree of its own). */
    public boolean temporary() {
        return temporary;
    }

    /** The queue holding its messages. */
    public LocalQueue queue() {
        return queue;
    }

    /** Publications it missed because its queue was full (non-persistent ones; see {@link TopicManager}). */
    public long missed() {
        return missed.get();
    }

    void countMissed() {
        missed.incrementAndGet();
    }

    /** Whether a publication from {@code connection} with client ID {@code publisherClientId} is left out by noLocal. */
    boolean excludes(Object connection, String publisherClientId) {
        if (!noLocal) {
            return false;
        }
        if (durable) {
            return clientId != null && clientId.equals(publisherClientId);
        }
        return localConnection == connection;
    }

    /** Whether this subscription was defined with the same topic, selector and noLocal (else a change replaces it). */
    boolean sameDefinition(String filter, String selectorText, boolean noLocal) {
        return this.filter.equals(filter) && Objects.equals(this.selectorText, selectorText) && this.noLocal == noLocal;
    }

    @Override
    public String toString() {
        return describe(durable, shared, name, clientId, filter);
    }

    /** How a subscription is named in messages: "durable subscription 'audit' of client 'c1' on 'prices/#'". */
    static String describe(boolean durable, boolean shared, String name, String clientId, String filter) {
        return (durable ? "durable " : "") + (shared ? "shared " : "") + "subscription"
                + (name != null ? " '" + name + "'" : "") + (clientId != null ? " of client '" + clientId + "'" : "")
                + " on '" + filter + "'";
    }
}
