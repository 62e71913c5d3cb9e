package org.wharfmq.server.channels;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The sequence numbers operators set on sender channels ({@code wharf admin reset channel} on a sender, IBM MQ's
 * RESET CHANNEL SEQNUM), each given to the receiver when its sender next opens the channel (CHANNEL_OPEN's
 * resetSequence), then forgotten. Kept across restarts in {@link ChannelStore} by {@link ChannelDefinitions}, which sets
 * them; a sender's thread takes them. Thread-safe.
 */
final class SenderResets {

    private final Map<String, Long> pending = new ConcurrentHashMap<>();
    /** Told when a reset was delivered, on the sender's thread: it must not block (the store is rewritten later). */
    private final Runnable delivered;

    SenderResets(Map<String, Long> kept, Runnable delivered) {
        this.pending.putAll(kept);
        this.delivered = delivered;
    }

    /** Channel {@code channel}'s receiver is to take {@code sequence} at the next open (replacing any earlier one). */
    void set(String channel, long sequence) {
        pending.put(channel, sequence);
    }

    /** The sequence number channel {@code channel}'s receiver is to take at the next open; null for none. */
    Long pending(String channel) {
        return pending.get(channel);
    }

    /** Channel {@code channel}'s receiver took {@code sequence}: forgotten, unless an operator set another since. */
    void delivered(String channel, long sequence) {
        if (pending.remove(channel, sequence)) {
            delivered.run();
        }
    }

    /** Forgets channel {@code channel}'s (deleted). */
    void forget(String channel) {
        pending.remove(channel);
    }

    /** Every pending reset, by channel: what the store keeps. */
    Map<String, Long> all() {
        return Map.copyOf(pending);
    }
}
