package org.wharfmq.server.queue;

import io.netty.buffer.ByteBuf;

/**
 * What may take a non-persistent message put to a queue before the queue does ({@link LocalQueue#handOver}): a sender
 * channel streaming its transmission queue's messages to its partner, which would otherwise take each off the queue
 * as it is delivered. It runs on the thread that puts the message (an event loop), with no lock held.
 */
@FunctionalInterface
public interface HandOff {

    /**
     * Takes {@code message} (the stored bytes of a message for the queue, which it then owns), or leaves it to be put
     * on the queue as any other (false, {@code message} untouched). It must never block, and must take a message only
     * when the queue has nothing for it that the message would overtake: it spends the credit of its consumer for it
     * with {@link LocalQueue#spendForHandOff}, which says so.
     */
    boolean take(ByteBuf message);
}
