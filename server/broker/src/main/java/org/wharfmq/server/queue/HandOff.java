package org.wharfmq.server.queue;

import org.wharfmq.protocol.message.TransmissionHeader;

/**
 * What may take a non-persistent message put to a queue before the queue does ({@link LocalQueue#handOver}): a sender
 * channel streaming its transmission queue's messages to its partner, which would otherwise take each off the queue
 * as it is delivered. It runs on the thread that puts the message (an event loop), with no lock held.
 */
@FunctionalInterface
public interface HandOff {

    /**
     * Takes {@code message} (a message for the transmission queue as it was put, and the transmission header it is to
     * carry, not yet written: the taker owns the message's buffer then, and writes the header where it sends it), or
     * leaves it to be put on the queue as any other (false, {@code message} untouched). It must never block, and must
     * take a message only when the queue has nothing for it that the message would overtake: it spends the credit of
     * its consumer for it with {@link LocalQueue#spendForHandOff}, which says so.
     */
    boolean take(TransmissionHeader.Addressed message);
}
