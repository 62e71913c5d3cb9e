package org.wharfmq.server.session;

import org.junit.jupiter.api.Test;

import java.util.ArrayDeque;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A browse's window in bytes on its own: full once it holds its bytes (the message that crosses them counted), settled
 * oldest first by a CREDIT's count, and saying which of the settled bytes were paged copies, across its ring's growth
 * and wrap.
 */
class BrowseWindowTest {

    @Test
    void fullOnceItHoldsItsBytesAndSettledOldestFirst() {
        BrowseWindow window = new BrowseWindow(100);
        window.shown(30, false);
        window.shown(30, false);
        window.shown(30, false);
        assertFalse(window.full());
        assertEquals(10, window.room());
        window.shown(30, true); // the one that crosses it
        assertTrue(window.full());
        assertEquals(0, window.room());

        assertEquals(0, window.settle(2), "the two oldest were not paged");
        assertFalse(window.full());
        assertEquals(30, window.settle(5), "settling more than it holds settles what it holds: one paged copy");
        assertEquals(100, window.room());
        assertEquals(0, window.settle(1));
    }

    @Test
    void theRingKeepsItsOrderAsItGrowsAndWraps() {
        BrowseWindow window = new BrowseWindow(BrowseWindow.UNBOUNDED);
        ArrayDeque<long[]> expected = new ArrayDeque<>();
        int shown = 0;
        for (int round = 0; round < 50; round++) {
            for (int i = 0; i < 7; i++, shown++) {
                boolean paged = shown % 3 == 0;
                window.shown(shown + 1, paged);
                expected.add(new long[] {shown + 1, paged ? 1 : 0});
            }
            int settle = round % 2 == 0 ? 3 : 6; // the ring holds more each round: it grows, and its head moves
            long paged = 0;
            for (int i = 0; i < settle; i++) {
                long[] e = expected.poll();
                paged += e[1] == 1 ? e[0] : 0;
            }
            assertEquals(paged, window.settle(settle), "round " + round);
        }
        long rest = 0;
        for (long[] e : expected) {
            rest += e[1] == 1 ? e[0] : 0;
        }
        assertEquals(rest, window.settle(Integer.MAX_VALUE));
        assertEquals(0, window.settle(1));
    }
}
