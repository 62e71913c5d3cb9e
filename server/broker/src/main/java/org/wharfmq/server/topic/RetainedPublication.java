package org.wharfmq.server.topic;

import io.netty.buffer.ByteBuf;
import org.wharfmq.protocol.message.MessageHeaders;
import org.wharfmq.protocol.selector.SelectorContext;
import org.wharfmq.server.queue.QueuedMessage;
import org.wharfmq.server.queue.SystemQueues;
import org.wharfmq.server.store.StoredMessage;

import java.util.Map;
import java.util.function.Supplier;

/**
 * A topic's retained publication: the last message published to it with {@link TopicManager#RETAIN_PROPERTY},
 * given to every new subscription that matches the topic. A persistent one is stored like a message on the pseudo
 * queue {@code SYSTEM.RETAINED.<topic>}, so the journal keeps and recovers it with no record type of its own.
 * Immutable once made; the {@link TopicManager} owns its one reference to the bytes.
 */
final class RetainedPublication implements StoredMessage, SelectorContext, Supplier<Map<String, Object>> {

    final String topic;
    final ByteBuf content;
    final MessageHeaders headers;
    private final long sequence;
    private volatile Map<String, Object> properties;

    RetainedPublication(String topic, long sequence, ByteBuf content, MessageHeaders headers) {
        this.topic = topic;
        this.sequence = sequence;
        this.content = content;
        this.headers = headers;
    }

    @Override
    public String queueName() {
        return SystemQueues.retainedQueue(topic);
    }

    @Override
    public long sequence() {
        return sequence;
    }

    @Override
    public ByteBuf content() {
        return content;
    }

    /** A retained publication is stored when it is JMS PERSISTENT. */
    @Override
    public boolean persistent() {
        return headers.persistent();
    }

    @Override
    public Map<String, Object> get() {
        Map<String, Object> decoded = properties;
        if (decoded == null) {
            decoded = headers.readProperties(content);
            properties = decoded;
        }
        return decoded;
    }

    @Override
    public Object getValue(String identifier) {
        return QueuedMessage.valueOf(headers, identifier, 1, this);
    }
}
