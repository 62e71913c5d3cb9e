package org.wharfmq.server.channels;

/**
 * What one channel has moved since it started: messages, their bytes, batches. Written by the one thread that moves
 * the channel's batches (a sender's thread, the receivers' worker), once per batch or per non-persistent message
 * outside the batches; read by operators and the metrics.
 */
final class ChannelCounters {

    /** A channel that has moved nothing. */
    static final ChannelCounters NONE = new ChannelCounters();

    private volatile long messages;
    private volatile long bytes;
    private volatile long batches;

    /** Counts a batch of {@code count} messages holding {@code size} bytes; by the channel's one writer. */
    void add(int count, long size) {
        messages += count;
        bytes += size;
        batches++;
    }

    /** Counts a non-persistent message of {@code size} bytes that travelled outside the batches; by the one writer. */
    void addOutsideBatch(long size) {
        messages++;
        bytes += size;
    }

    long messages() {
        return messages;
    }

    long bytes() {
        return bytes;
    }

    long batches() {
        return batches;
    }
}
