package org.wharfmq.perf.workload;

import org.wharfmq.perf.flow.BenchmarkFlow;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The timings of the flows' plain loops that a {@code wharf perf report} shares between its rows. A plain loop does
 * the flow's work on one thread of the report's JVM with no server running: its timing depends on the flow, the
 * message, the loop's own warm-up and measured time and, for a loop that does durable work (F-JMS, F-FILE-OUT, a JMS
 * application), the run's persistence; not on the flow's step beside it. So a report times each such loop once and
 * every later row of the same flow, size (and persistence where the loop depends on it) reuses it: the persistent and
 * the non-persistent large rows of a flow share their loop, which saves a loop's warm-up and measured time (40 s) per
 * pair. A loop whose rate is the disk's sync time ({@link BenchmarkFlow#syncBound(boolean)}) is timed in every row,
 * before and after the flow's step, since the disk changes under a run.
 *
 * <p>{@code wharf perf run} times every loop afresh ({@link #eachRun()}). Owned by the one thread that runs the
 * report's rows, one after the other.
 */
public final class PlainLoopTimings {

    /** Which of a flow's loops. */
    enum Loop {
        /** The plain loop, the one issue 36's target is judged against ({@link BenchmarkFlow#plainLoop(boolean)}). */
        PLAIN,
        /** The second loop, a JMS application doing the flow's work ({@link BenchmarkFlow#jmsApplicationLoop(boolean)}). */
        JMS_APPLICATION
    }

    /**
     * What a loop's timing depends on.
     *
     * @param persistent the run's persistence where the loop does durable work with it, else false
     */
    record Key(BenchmarkFlow flow, Loop loop, int size, boolean persistent, long warmupMillis, long runMillis) {
    }

    /** A loop's timing, and the row it was timed with (null in {@code wharf perf run}). */
    record Timing(BenchmarkFlow.Ceiling ceiling, String timedWith) {
    }

    /** The timings kept, by what they depend on; null when every loop is timed afresh. */
    private final Map<Key, Timing> kept;
    /** The row running now: what a loop timed now is kept as timed with. */
    private String row;
    /** The loops the row running now reused from an earlier row: the label of the row each was timed with. */
    private final Map<Loop, String> reusedByRow = new LinkedHashMap<>();

    private PlainLoopTimings(Map<Key, Timing> kept) {
        this.kept = kept;
    }

    /** Every loop timed afresh, as {@code wharf perf run} times them. */
    public static PlainLoopTimings eachRun() {
        return new PlainLoopTimings(null);
    }

    /** The loops shared between the rows of one report. */
    static PlainLoopTimings shared() {
        return new PlainLoopTimings(new HashMap<>());
    }

    /** The row that runs next, named by its label: loops timed from now on are kept as timed with it. */
    void startRow(String label) {
        row = label;
        reusedByRow.clear();
    }

    /** The row each loop of the row running now was timed with, when it reused one: its label; else none. */
    Map<Loop, String> reusedByRow() {
        return Map.copyOf(reusedByRow);
    }

    /**
     * Whether a loop is kept and reused in a report: not when its rate is the disk's sync time (it is timed before
     * and after each flow step), nor a persistent JMS application (its journal syncs).
     */
    static boolean reusable(BenchmarkFlow flow, Loop loop, boolean persistent) {
        return loop == Loop.PLAIN ? !flow.syncBound(persistent) : !persistent;
    }

    /** What the timing of {@code flow}'s {@code loop} depends on, for a run persistent or not. */
    static Key key(BenchmarkFlow flow, Loop loop, int size, boolean persistent, long warmupMillis, long runMillis) {
        boolean durable = loop == Loop.JMS_APPLICATION || flow.loopWithMessaging();
        return new Key(flow, loop, size, durable && persistent, warmupMillis, runMillis);
    }

    /**
     * The timing of {@code flow}'s {@code loop} on the message of {@code size}: the one an earlier row of this report
     * kept, where the loop is {@link #reusable}, else {@code timer}'s, kept for the later rows.
     */
    BenchmarkFlow.Ceiling time(BenchmarkFlow flow, Loop loop, int size, boolean persistent, long warmupMillis, long runMillis,
                               Supplier<BenchmarkFlow.Ceiling> timer) {
        if (kept == null || !reusable(flow, loop, persistent)) {
            return timer.get();
        }
        Key key = key(flow, loop, size, persistent, warmupMillis, runMillis);
        Timing earlier = kept.get(key);
        if (earlier != null) {
            reusedByRow.put(loop, earlier.timedWith());
            return earlier.ceiling();
        }
        BenchmarkFlow.Ceiling c = timer.get();
        if (c.rate() > 0) { // a loop that did nothing is no timing to share
            kept.put(key, new Timing(c, row));
        }
        return c;
    }
}
