package org.wharfmq.perf.driver;

import java.util.BitSet;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * Which sequence numbers arrived from each source. A number seen twice is a duplicate; the count of distinct
 * numbers per source is compared with what the source says it sent to find losses.
 */
public final class SequenceLedger {

    private final Map<String, BitSet> seen = new HashMap<>();

    /** Records one arrival; false when this source's number had already arrived (a duplicate). */
    public synchronized boolean record(String source, long sequence) {
        if (sequence < 0 || sequence > Integer.MAX_VALUE) {
            return false;
        }
        BitSet bits = seen.computeIfAbsent(source, s -> new BitSet());
        if (bits.get((int) sequence)) {
            return false;
        }
        bits.set((int) sequence);
        return true;
    }

    /** Distinct arrivals per source. */
    public synchronized Map<String, Long> counts() {
        Map<String, Long> counts = new TreeMap<>();
        seen.forEach((source, bits) -> counts.put(source, (long) bits.cardinality()));
        return counts;
    }
}
