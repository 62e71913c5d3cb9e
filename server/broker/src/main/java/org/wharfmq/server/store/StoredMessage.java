package org.wharfmq.server.store;

import io.netty.buffer.ByteBuf;

/**
 * What a {@link MessageStore} needs to know about a message: where it lives and its bytes. A message is identified
 * by its queue name and its sequence number on that queue, which the queue assigns when it accepts the message and
 * never reuses.
 */
public interface StoredMessage {

    /** The queue the message is on. */
    String queueName();

    /** The message's position on its queue: increases with every message the queue accepts. */
    long sequence();

    /**
     * The encoded message, exactly as the producer sent it. The store must not change its indexes, and must
     * {@code retain()} it if it still reads the bytes after the call that passed it has returned.
     */
    ByteBuf content();

    /**
     * Whether the message's records go to the store at all, which {@link Persistence} asks of every message: a
     * queue's message says whether it is JMS PERSISTENT on a journaled queue, a retained publication whether it is
     * PERSISTENT. True by default, for messages read back from the store.
     */
    default boolean persistent() {
        return true;
    }
}
