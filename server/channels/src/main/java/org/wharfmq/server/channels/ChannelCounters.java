package org.wharfmq.server.channels;

import java.util.concurrent.atomic.LongAdder;

/**
 * What one channel has moved since it started: messages, their bytes, batches. Written once per batch or per
 * non-persistent message outside the batches by the threads that move the channel's messages (a sender's thread; a
 * receiver's thread for its batches and its partner's connection's event loop for the messages it puts at once);
 * read by operators and the metrics.
 */
final class ChannelCounters {

    /** A channel that has moved nothing. */
    static final ChannelCounters NONE = new ChannelCounters();

    private final LongAdder messages = new LongAdder();
    private final LongAdder bytes = new LongAdder();
    private final LongAdder batches = new LongAdder();

    /** Counts a batch of {@code count} messages holding {@code size} bytes. */
    void add(int count, long size) {
        messages.add(count);
        bytes.add(size);
        batches.increment();
    }

    /** Counts a non-persistent message of {@code size} bytes that travelled outside the batches. */
    void addOutsideBatch(long size) {
        messages.increment();
        bytes.add(size);
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
