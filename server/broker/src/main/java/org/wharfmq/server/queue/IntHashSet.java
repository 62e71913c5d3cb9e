package org.wharfmq.server.queue;

/**
 * A set of non-zero ints by open addressing (linear probing), 4 to 8 bytes per element and no object per element:
 * the correlation-id hashes of a page segment ({@link PageStore}). Elements are never removed (a segment's set lives
 * as long as the segment). Not thread-safe.
 */
final class IntHashSet {

    private int[] slots = new int[16];
    private int size;

    /** Adds {@code value}, which must not be 0 (the empty slot). */
    void add(int value) {
        if (2 * (size + 1) > slots.length) {
            grow();
        }
        if (insert(slots, value)) {
            size++;
        }
    }

    /** Whether {@code value} was added. */
    boolean contains(int value) {
        return slots[slotOf(slots, value)] == value;
    }

    /** How many distinct values were added. */
    int size() {
        return size;
    }

    private static boolean insert(int[] table, int value) {
        int slot = slotOf(table, value);
        if (table[slot] == value) {
            return false;
        }
        table[slot] = value;
        return true;
    }

    /** Where {@code value} is in {@code table}, else the empty slot where it would go. */
    private static int slotOf(int[] table, int value) {
        int mask = table.length - 1;
        for (int i = mix(value) & mask; ; i = (i + 1) & mask) {
            int v = table[i];
            if (v == value || v == 0) {
                return i;
            }
        }
    }

    private void grow() {
        int[] bigger = new int[slots.length * 2];
        for (int v : slots) {
            if (v != 0) {
                insert(bigger, v);
            }
        }
        slots = bigger;
    }

    /** Spreads a String hash's low bits (murmur3's finaliser). */
    private static int mix(int h) {
        h ^= h >>> 16;
        h *= 0x85ebca6b;
        h ^= h >>> 13;
        return h;
    }
}
