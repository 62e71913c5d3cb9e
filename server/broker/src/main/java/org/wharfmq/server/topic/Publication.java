package org.wharfmq.server.topic;

import io.netty.buffer.ByteBuf;
import org.wharfmq.protocol.message.MessageHeaders;
import org.wharfmq.protocol.selector.SelectorContext;
import org.wharfmq.server.queue.LocalQueue;
import org.wharfmq.server.queue.QueuedMessage;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * One message published to a topic, once routed: the copies reserved on the queues of the subscriptions that want
 * it (each a retained {@code duplicate()} of the producer's bytes: the body is never copied), and, when the message
 * asks to be retained ({@link TopicManager#RETAIN_PROPERTY}), its own reference to the bytes until the topic keeps
 * it. Selectors of all subscriptions evaluate against this object, which decodes the properties at most once.
 *
 * <p>Owned by the session that routed it (its event loop), like a queue send: outside a transaction the session
 * has the {@link TopicManager} {@linkplain TopicManager#store store} it, then {@linkplain TopicManager#publish
 * publish} it (or {@link #cancel} it), unless its copies were offered as it was routed (nothing to store, no
 * subscription that could refuse it: {@link TopicManager#route}); in a transaction it holds the copies until COMMIT.
 */
public final class Publication implements SelectorContext, Supplier<Map<String, Object>> {

    private final String topic;
    private final MessageHeaders headers;
    private final ByteBuf content;
    private Map<String, Object> properties;
    /** The copies reserved and waiting to be offered (or cancelled); none when it was offered as it was routed. */
    final List<QueuedMessage> copies = new ArrayList<>(2);
    /** How many copies were offered as the publication was routed ({@link LocalQueue#putCopy}). */
    int offered;
    private ByteBuf retainedContent;
    /** The subscription queues its copies went to that are over budget with the policy block; most often none. */
    private List<LocalQueue> blockedBy = List.of();

    Publication(String topic, ByteBuf content, MessageHeaders headers) {
        this.topic = topic;
        this.content = content;
        this.headers = headers;
    }

    /** The topic published to. */
    public String topic() {
        return topic;
    }

    /** The message as the producer encoded it (the publisher's reference; copies hold their own). */
    ByteBuf content() {
        return content;
    }

    /** The header fields of the message. */
    public MessageHeaders headers() {
        return headers;
    }

    /**
     * The copies reserved on the subscriptions' queues, to be offered, stored or cancelled; empty when nobody
     * subscribes (the message is dropped) or when the copies were offered as the publication was routed.
     */
    public List<QueuedMessage> copies() {
        return copies;
    }

    /** How many subscriptions' queues took a copy: those reserved ({@link #copies}) and those already offered. */
    public int copyCount() {
        return copies.size() + offered;
    }

    /**
     * The subscription queues its copies went to that were over their memory budget with the policy block once the
     * copy was reserved: its publisher's credit waits until all of them are under it. Empty (and allocated only when
     * there is one) most of the time.
     */
    public List<LocalQueue> blockedBy() {
        return blockedBy;
    }

    /** A copy went to {@code queue}, which is over its budget with the policy block. */
    void blockedBy(LocalQueue queue) {
        if (blockedBy.isEmpty()) {
            blockedBy = new ArrayList<>(2);
        }
        blockedBy.add(queue);
    }

    /** Whether the message becomes the topic's retained publication. */
    public boolean retains() {
        return retainedContent != null;
    }

    void keepForRetain() {
        retainedContent = content.retainedDuplicate();
    }

    /** Hands over the reference kept for retaining; null when there is none (any more). */
    ByteBuf takeRetainedContent() {
        ByteBuf c = retainedContent;
        retainedContent = null;
        return c;
    }

    /**
     * The publication will not be published (its store failed): the copies give back their places on the
     * subscriptions' queues and the reference kept for retaining is released.
     */
    public void cancel() {
        for (int i = 0; i < copies.size(); i++) {
            QueuedMessage copy = copies.get(i);
            copy.queue().cancel(copy);
        }
        releaseRetained();
    }

    /** Gives up the reference kept for retaining (the publication was rolled back or failed). */
    public void releaseRetained() {
        ByteBuf c = takeRetainedContent();
        if (c != null) {
            c.release();
        }
    }

    /** The properties if something already decoded them, else null. */
    Map<String, Object> decodedProperties() {
        return properties;
    }

    @Override
    public Map<String, Object> get() {
        if (properties == null) {
            Map<String, Object> decoded = headers.readProperties(content);
            properties = decoded.isEmpty() ? Map.of() : decoded;
        }
        return properties;
    }

    @Override
    public Object getValue(String identifier) {
        return QueuedMessage.valueOf(headers, identifier, 1, this);
    }
}
