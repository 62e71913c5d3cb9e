package org.wharfmq.server.store;

import java.util.Arrays;

/**
 * The messages recovery found live, in the order they go back on their queues (each queue's in sequence order),
 * as positions in the journal: 28 bytes a message in parallel arrays rather than an object each, since a journal
 * may hold millions (their bytes are read back one by one by the {@link JournalReader}).
 *
 * <p>Not thread-safe: built by recovery, then read by the thread that hands the messages to the queues.
 */
final class RecoveredMessages {

    private String[] queues = new String[16];
    private long[] sequences = new long[16];
    private int[] segments = new int[16];
    private long[] indexes = new long[16];
    private int[] deliveryCounts = new int[16];
    private int size;

    void add(String queue, long sequence, int segment, long index, int deliveryCount) {
        if (size == queues.length) {
            int capacity = size * 2;
            queues = Arrays.copyOf(queues, capacity);
            sequences = Arrays.copyOf(sequences, capacity);
            segments = Arrays.copyOf(segments, capacity);
            indexes = Arrays.copyOf(indexes, capacity);
            deliveryCounts = Arrays.copyOf(deliveryCounts, capacity);
        }
        queues[size] = queue;
        sequences[size] = sequence;
        segments[size] = segment;
        indexes[size] = index;
        deliveryCounts[size] = deliveryCount;
        size++;
    }

    int size() {
        return size;
    }

    String queue(int i) {
        return queues[i];
    }

    long sequence(int i) {
        return sequences[i];
    }

    int segment(int i) {
        return segments[i];
    }

    long index(int i) {
        return indexes[i];
    }

    /** The deliveries the journal recorded (0: never delivered). */
    int deliveryCount(int i) {
        return deliveryCounts[i];
    }
}
