package org.wharfmq.server.queue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;

/**
 * A queue's index by JMSCorrelationID, of messages and of consumers, so the requester/responder pattern (many
 * requesters each waiting on a shared reply queue with a {@code JMSCorrelationID = '...'} selector for their one
 * reply) costs O(1) per reply however many replies and requesters there are:
 * <ul>
 *   <li>a consumer whose selector pins a correlation id finds its reply by a map lookup, not a queue scan;</li>
 *   <li>a reply put on the queue finds the consumer waiting for it by a map lookup, visiting no other consumer.</li>
 * </ul>
 * Messages with the same correlation id are chained through the messages themselves, in sequence order (so more
 * than one message per id costs no extra objects). Guarded by the queue's lock.
 */
final class CorrelationIndex {

    /** First and last message with one correlation id. */
    private static final class Chain {
        QueuedMessage first;
        QueuedMessage last;
    }

    private final HashMap<String, Chain> messages = new HashMap<>();
    private final HashMap<String, List<QueueConsumer>> consumers = new HashMap<>();
    private int consumerCount;

    /** Indexes a message that has a correlation id and is being put on the queue's lists. */
    void add(QueuedMessage m) {
        Chain chain = messages.get(m.correlationId());
        if (chain == null) {
            chain = new Chain();
            chain.first = m;
            chain.last = m;
            m.previousWithCorrelationId = null;
            m.nextWithCorrelationId = null;
            messages.put(m.correlationId(), chain);
            return;
        }
        // usually the newest message, so walk from the end
        QueuedMessage after = chain.last;
        while (after != null && after.sequence > m.sequence) {
            after = after.previousWithCorrelationId;
        }
        QueuedMessage before = after == null ? chain.first : after.nextWithCorrelationId;
        m.previousWithCorrelationId = after;
        m.nextWithCorrelationId = before;
        if (after == null) {
            chain.first = m;
        } else {
            after.nextWithCorrelationId = m;
        }
        if (before == null) {
            chain.last = m;
        } else {
            before.previousWithCorrelationId = m;
        }
    }

    /** Removes an indexed message. */
    void remove(QueuedMessage m) {
        QueuedMessage p = m.previousWithCorrelationId;
        QueuedMessage n = m.nextWithCorrelationId;
        if (p == null && n == null) {
            messages.remove(m.correlationId());
            return;
        }
        Chain chain = messages.get(m.correlationId());
        if (p == null) {
            chain.first = n;
        } else {
            p.nextWithCorrelationId = n;
        }
        if (n == null) {
            chain.last = p;
        } else {
            n.previousWithCorrelationId = p;
        }
        m.previousWithCorrelationId = null;
        m.nextWithCorrelationId = null;
    }

    /** The oldest message with {@code correlationId}; follow {@code nextWithCorrelationId} for the others. */
    QueuedMessage first(String correlationId) {
        Chain chain = messages.get(correlationId);
        return chain == null ? null : chain.first;
    }

    /** Registers a consumer whose selector requires {@code correlationId}. */
    void addConsumer(String correlationId, QueueConsumer consumer) {
        consumers.computeIfAbsent(correlationId, id -> new ArrayList<>(1)).add(consumer);
        consumerCount++;
    }

    /** Unregisters a consumer added with {@link #addConsumer}. */
    void removeConsumer(String correlationId, QueueConsumer consumer) {
        List<QueueConsumer> list = consumers.get(correlationId);
        if (list != null && list.remove(consumer)) {
            consumerCount--;
            if (list.isEmpty()) {
                consumers.remove(correlationId);
            }
        }
    }

    /** How many consumers are registered under some correlation id. */
    int consumerCount() {
        return consumerCount;
    }

    /** Adds every consumer registered under some correlation id to {@code out}. */
    void addConsumersTo(List<QueueConsumer> out) {
        for (List<QueueConsumer> list : consumers.values()) {
            out.addAll(list);
        }
    }

    /** The consumers whose selector requires {@code correlationId}, or null when there are none. */
    List<QueueConsumer> consumers(String correlationId) {
        return consumers.get(correlationId);
    }

    /** How many distinct correlation ids have messages on the queue. */
    int indexedCorrelationIds() {
        return messages.size();
    }
}
