package org.wharfmq.server.store;

import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The journal writer's record of live messages: consuming the oldest message of a deep queue must cost the same
 * as consuming any other (issue 19, items 7 and 8: it cost a walk over the whole queue).
 */
class JournalStateTest {

    /** Netty's LongObjectHashMap places a key at {@code (int) (key ^ (key >>> 32)) & mask} and probes linearly. */
    private static int nettySlot(long key, int mask) {
        return (int) (key ^ (key >>> 32)) & mask;
    }

    /**
     * Removing a key from a linear-probing table walks the run of occupied slots after it. With consecutive
     * sequence numbers as keys the run was the whole queue; the journal's keys must keep every run short.
     * Simulates the map at its fullest (load factor one half) for a 131,072-deep queue, at two starting sequences.
     */
    @Test
    void consecutiveSequencesLeaveOnlyShortRunsInTheMap() {
        int depth = 1 << 17;
        int slots = depth * 2;
        for (long first : new long[] {1, 3_000_000_000L}) {
            boolean[] used = new boolean[slots];
            for (long sequence = first; sequence < first + depth; sequence++) {
                int slot = nettySlot(JournalState.key(sequence), slots - 1);
                while (used[slot]) {
                    slot = (slot + 1) & (slots - 1);
                }
                used[slot] = true;
            }
            int longest = 0;
            int run = 0;
            for (int i = 0; i < 2 * slots; i++) { // twice round: a run may wrap
                run = used[i % slots] ? run + 1 : 0;
                longest = Math.max(longest, Math.min(run, slots));
            }
            // random placement at load 1/2 gives runs of a few dozen at most; consecutive keys gave one of 131,072
            assertTrue(longest < 200, "longest run of occupied slots from sequence " + first + ": " + longest);
        }
    }

    @Test
    void keysOfDistinctSequencesNeverCollide() {
        Set<Long> keys = new HashSet<>();
        for (long sequence = 0; sequence < 100_000; sequence++) {
            assertTrue(keys.add(JournalState.key(sequence)), "two sequences share key of " + sequence);
            assertTrue(keys.add(JournalState.key(Long.MAX_VALUE - sequence)), "two sequences share key of max-" + sequence);
        }
    }

    @Test
    void recordsAreFoundAndRemovedBySequenceInAnyOrder() {
        JournalState state = new JournalState();
        for (long sequence = 1; sequence <= 1000; sequence++) {
            state.put(new JournalState.Live("Q", sequence, 1, sequence, 100, 0));
        }
        assertEquals(100_000, state.liveBytes());
        for (long sequence = 1; sequence <= 1000; sequence += 2) {
            state.remove("Q", sequence);
        }
        state.remove("Q", 5000); // never put: ignored
        state.remove("OTHER", 2);
        for (long sequence = 1; sequence <= 1000; sequence++) {
            if (sequence % 2 == 1) {
                assertNull(state.find("Q", sequence));
            } else {
                assertEquals(sequence, assertNotNullLive(state, sequence).sequence);
            }
        }
        assertEquals(50_000, state.liveBytes());
        assertEquals(500, state.liveIn(1).size());
        assertEquals(2, state.recovered().sequence(0)); // in sequence order
    }

    private static JournalState.Live assertNotNullLive(JournalState state, long sequence) {
        JournalState.Live live = state.find("Q", sequence);
        assertNotNull(live, "sequence " + sequence);
        return live;
    }
}
