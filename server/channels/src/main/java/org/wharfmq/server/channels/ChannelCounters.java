package org.wharfmq.server.channels;

import java.util.concurrent.atomic.LongAdder;

/**
 * What one channel has moved since it started: messages, their bytes, batches. Written once per batch or per
 * non-persistent message outside the batches by the threads that move the channel's messages (a sender's thread; a
 * receiver's partner's connection's event loop); read by operators and the metrics. The messages are counted last
 * and should be read first: whoever sees a batch's messages counted sees its bytes and the batch too (a status read
 * while a batch is counted never shows its messages without it).
 */
final class ChannelCounters {

    /** A channel that has moved nothing. */
    static final ChannelCounters NONE = new ChannelCounters();

    private final LongAdder messages = new LongAdder();
    private final LongAdder bytes = new LongAdder();
    private final LongAdder batches = new LongAdder();

    /** Counts a batch of {@code count} messages holding {@code size} bytes. */
    void add(int count, long size) {
        batches.increment();
        bytes.add(size);
        messages.add(count); // last: see the class comment
    }

    /** Counts a non-persistent message of {@code size} bytes that travelled outside the batches. */
    void addOutsideBatch(long size) {
        bytes.add(size);
        messages.increment(); // last: see the class comment
    }

    long messages() {
        return messages.sum();
    }

    long bytes() {
        return bytes.sum();
    }

    long batches() {
        return batches.sum();
    }
}
