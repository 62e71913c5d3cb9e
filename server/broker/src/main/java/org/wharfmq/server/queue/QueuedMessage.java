package org.wharfmq.server.queue;

import io.netty.buffer.ByteBuf;
import org.wharfmq.protocol.message.MessageHeaders;
import org.wharfmq.protocol.selector.SelectorContext;
import org.wharfmq.server.Configuration;
import org.wharfmq.server.store.StoredMessage;

import java.util.Map;

/**
 * A message accepted by a queue: the producer's encoded bytes, kept as the retained slice of the SEND frame they
 * arrived in, plus the header fields the queue routes and selects on. A message handed straight to a consumer is
 * never copied; one that waits is {@linkplain #compact compacted} first when those bytes keep a larger buffer
 * alive ({@link CompactionArena}).
 *
 * <p>Every delivery writes {@code content().retainedDuplicate()}, so all deliveries share these bytes. The one
 * reference this object owns is released when the message leaves the server for good: acknowledged, expired, or
 * discarded with a rolled-back transaction.
 *
 * <p>Properties are decoded only when a selector asks for one, once, and then kept. Link fields and the sequence
 * are guarded by the owning {@link LocalQueue}'s lock; while a message is delivered it belongs to the session that
 * holds the delivery, which alone touches it until it is acknowledged or returned.
 */
public final class QueuedMessage implements SelectorContext, StoredMessage, java.util.function.Supplier<Map<String, Object>> {

    private final LocalQueue queue;
    /** Replaced only by {@link #compact}, under the queue's lock while the message waits. */
    private ByteBuf content;
    /** The bytes are right-sized: waiting will not copy them again. */
    private boolean rightSized;
    private final MessageHeaders headers;
    private volatile Map<String, Object> properties;

    long sequence;
    private int redeliveries;
    /** Why a selector could not decode the properties, or null; guarded by the queue's lock. */
    String undecodable;

    // the queue's list of this priority, in sequence order
    QueuedMessage previous;
    QueuedMessage next;
    // the queue's list of messages with this correlation id, in sequence order
    QueuedMessage previousWithCorrelationId;
    QueuedMessage nextWithCorrelationId;

    /**
     * @param queue   the queue the message is for
     * @param content the encoded message; this object takes over the caller's reference
     * @param headers the headers read from {@code content}
     */
    public QueuedMessage(LocalQueue queue, ByteBuf content, MessageHeaders headers) {
        this(queue, content, headers, null, false);
    }

    /**
     * A copy of a publication for one subscription's queue.
     *
     * @param properties the properties already decoded from {@code content} (shared, never changed), or null
     * @param rightSized whether {@code content} is already right-sized (compacted when the publication was routed,
     *                   or a retained publication's own buffer), so waiting does not copy it again
     */
    public QueuedMessage(LocalQueue queue, ByteBuf content, MessageHeaders headers, Map<String, Object> properties,
                         boolean rightSized) {
        this.queue = queue;
        this.content = content;
        this.headers = headers;
        this.properties = properties;
        this.rightSized = rightSized;
    }

    /** The queue this message is on, or is being delivered from. */
    public LocalQueue queue() {
        return queue;
    }

    @Override
    public String queueName() {
        return queue.name();
    }

    @Override
    public long sequence() {
        return sequence;
    }

    @Override
    public ByteBuf content() {
        return content;
    }

    /**
     * The message goes to the {@link org.wharfmq.server.store.MessageStore}: JMSDeliveryMode is PERSISTENT and its
     * queue is journaled (a temporary queue or a non-durable subscription's queue is not).
     */
    @Override
    public boolean persistent() {
        return headers.persistent() && queue.journaled();
    }

    /**
     * What the memory budgets count for this message: its encoded length (which compaction keeps) and the server's
     * objects for it ({@link Configuration#MESSAGE_OVERHEAD_BYTES}). Read while the message holds its bytes: its queue
     * counts it in and out before it {@linkplain #release releases} them.
     */
    public long memoryBytes() {
        return content.readableBytes() + Configuration.MESSAGE_OVERHEAD_BYTES;
    }

    /** The header fields read when the message arrived. */
    public MessageHeaders headers() {
        return headers;
    }

    /** JMSPriority, 0-9. */
    public int priority() {
        return headers.priority();
    }

    /** JMSCorrelationID as selectors and the correlation index see it (a byte id in its "ID:" and hex form), or null. */
    public String correlationId() {
        return headers.correlationId();
    }

    /** Earliest delivery time in epoch ms, 0 = at once. */
    public long deliveryTime() {
        return headers.deliveryTime();
    }

    /** True when the message has an expiration and {@code now} has reached it. */
    public boolean isExpiredAt(long now) {
        long expiration = headers.expiration();
        return expiration != 0 && now >= expiration;
    }

    /** The count for the next DELIVER: 1 on first delivery, more after counted returns (JMSXDeliveryCount). */
    public int deliveryCount() {
        return redeliveries + 1;
    }

    /**
     * Counts a delivery that came back after the application may have seen it, so the next delivery is marked
     * redelivered. Called by the session that holds the delivery, before it returns the message to the queue.
     */
    public void countRedelivery() {
        redeliveries++;
    }

    /** A message read back from its queue's page files carries the delivery count it had when paged. */
    void readBackWithDeliveryCount(int deliveryCount) {
        redeliveries = deliveryCount - 1;
    }

    /**
     * The message is about to wait: when its bytes keep a larger buffer alive, they are replaced by a right-sized
     * copy from {@code arena} and the larger buffer is let go. Once per message; under the queue's lock.
     */
    void compact(CompactionArena arena) {
        if (rightSized) {
            return;
        }
        rightSized = true;
        if (CompactionArena.pinsMoreThanItself(content)) {
            ByteBuf copy = arena.copy(content);
            content.release();
            content = copy;
        }
    }

    /** Gives up this object's reference to the bytes; called once, when the message leaves the server. */
    void release() {
        content.release();
    }

    @Override
    public Object getValue(String identifier) {
        return valueOf(headers, identifier, deliveryCount(), this);
    }

    /**
     * The value of a selector identifier: a JMS header read from {@code headers}, else a property of
     * {@code propertySource}. Shared with the publication a topic's subscriptions select on.
     */
    public static Object valueOf(MessageHeaders headers, String identifier, int deliveryCount,
                                 java.util.function.Supplier<Map<String, Object>> propertySource) {
        switch (identifier) {
            case "JMSDeliveryMode":
                return headers.persistent() ? "PERSISTENT" : "NON_PERSISTENT";
            case "JMSPriority":
                return headers.priority();
            case "JMSMessageID":
                return headers.messageId();
            case "JMSTimestamp":
                return headers.timestamp();
            case "JMSCorrelationID":
                return headers.correlationId();
            case "JMSType":
                return headers.type();
            case "JMSXDeliveryCount":
                return deliveryCount;
            default:
                return propertySource.get().get(identifier);
        }
    }

    /** The decoded properties (decoded on first use, then kept). */
    @Override
    public Map<String, Object> get() {
        return properties();
    }

    private Map<String, Object> properties() {
        Map<String, Object> decoded = properties;
        if (decoded == null) {
            decoded = headers.readProperties(content);
            if (decoded.isEmpty()) {
                decoded = Map.of();
            }
            properties = decoded;
        }
        return decoded;
    }

    @Override
    public String toString() {
        return "message " + headers.messageId() + " on " + queue.name() + " #" + sequence;
    }
}
