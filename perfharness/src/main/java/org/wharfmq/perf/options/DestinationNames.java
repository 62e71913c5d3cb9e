package org.wharfmq.perf.options;

/**
 * JMSPerfHarness's allocation of destinations to threads ({@code -d/-db/-dx/-dn}): with none of base, maximum or
 * range set every thread uses the prefix alone; otherwise thread {@code n} gets a number from the range,
 * round-robin, appended to the prefix. Examples for prefix {@code CELL}: {@code -dn 3} gives CELL1..CELL3;
 * {@code -db 6 -dn 3} gives CELL6..CELL8; {@code -dx 6 -dn 3} gives CELL4..CELL6; {@code -db 4 -dx 6 -dn 5} gives
 * CELL4..CELL6 starting with CELL5.
 */
public final class DestinationNames {

    private final int base;
    private final int max;
    private final int range;

    /** {@code base}, {@code max}, {@code range}: the values of -db, -dx and -dn (0 = not set). */
    public DestinationNames(int base, int max, int range) {
        this.base = base;
        this.max = max;
        this.range = range;
        if (base > 0 && max > 0 && max < base) {
            throw new OptionException("-dx " + max + " is below -db " + base);
        }
    }

    /** True when threads share the unnumbered prefix. */
    public boolean single() {
        return base == 0 && max == 0 && range == 0;
    }

    /** The number appended for thread {@code threadIndex} (0-based), or -1 when {@link #single()}. */
    public int numberFor(int threadIndex) {
        if (single()) {
            return -1;
        }
        int first;
        int count;
        int start;
        if (base > 0 && max > 0) {
            first = base;
            count = max - base + 1;
            start = range > 0 ? range : base;
        } else if (max > 0) {
            count = range > 0 ? range : max;
            first = max - count + 1;
            start = first;
        } else {
            first = base > 0 ? base : 1;
            count = range > 0 ? range : 1;
            start = first;
        }
        int offset = Math.floorMod(start - first + threadIndex, count);
        return first + offset;
    }

    /** The destination name for thread {@code threadIndex}. */
    public String nameFor(String prefix, int threadIndex) {
        int n = numberFor(threadIndex);
        return n < 0 ? prefix : prefix + n;
    }

    /** How many different destinations the threads use (1 when {@link #single()}). */
    public int count() {
        if (single()) {
            return 1;
        }
        if (base > 0 && max > 0) {
            return max - base + 1;
        }
        return range > 0 ? range : (max > 0 ? max : 1);
    }
}
