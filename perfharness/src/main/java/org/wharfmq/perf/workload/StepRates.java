package org.wharfmq.perf.workload;

import org.wharfmq.perf.driver.DriverResult;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * The rate of a step: the median and the mean of its per-second rates over the measured period.
 *
 * @param median the median of the per-second rates (the upper one of an even count, {@link DriverResult#medianOf})
 * @param mean   operations over the measured period per second
 */
record StepRates(double median, double mean) {

    private static final long SECOND_MILLIS = 1000;

    /** What each measured driver counted itself, added up: round trips, messages sent, flow invocations. */
    static StepRates ofMeasured(List<DriverResult> measured) {
        return new StepRates(measured.stream().mapToDouble(DriverResult::medianRate).sum(),
                measured.stream().mapToDouble(DriverResult::meanRate).sum());
    }

    /**
     * Publish/subscribe: deliveries per second, counted where they happen. Each second's total is the sum of what
     * every subscriber JVM received in that wall-clock second ({@link DriverResult#perWallSecond}). Counted are
     * the whole seconds inside the publisher's measured period (so the warm-up is not, nor the subscribers'
     * draining after the publisher stopped) that every subscriber JVM gave a count for: a second one of them is
     * missing would be a partial total. No such second (a run shorter than two seconds) gives NaN rates.
     *
     * <p>The publisher's own counts are not used: it is held within a window of the slowest subscriber and
     * publishes in bursts, so its per-second counts come in steps of the window's credit and, with a thousand
     * subscribers, are mostly zero.
     *
     * @param subscribers the subscriber JVMs' results
     * @param publisher   the publisher's result, whose measured period is counted
     */
    static StepRates atSubscribers(List<DriverResult> subscribers, DriverResult publisher) {
        List<Long> totals = perSecondTotals(subscribers, publisher.windowStartMillis(), publisher.windowEndMillis());
        if (totals.isEmpty()) {
            return new StepRates(Double.NaN, Double.NaN);
        }
        double mean = totals.stream().mapToLong(Long::longValue).sum() / (double) totals.size();
        return new StepRates(DriverResult.medianOf(totals), mean);
    }

    /**
     * The sum over {@code processes} of their counts in each whole wall-clock second between {@code startMillis}
     * and {@code endMillis} that every one of them counted, in time order; none without processes.
     */
    static List<Long> perSecondTotals(List<DriverResult> processes, long startMillis, long endMillis) {
        TreeSet<Long> seconds = new TreeSet<>();
        if (processes.isEmpty()) {
            return List.of();
        }
        for (long s = Math.floorDiv(startMillis + SECOND_MILLIS - 1, SECOND_MILLIS);
             (s + 1) * SECOND_MILLIS <= endMillis; s++) {
            seconds.add(s);
        }
        for (DriverResult p : processes) {
            seconds.retainAll(p.perWallSecond().keySet());
        }
        List<Long> totals = new ArrayList<>();
        for (long s : seconds) {
            long total = 0;
            for (DriverResult p : processes) {
                total += p.perWallSecond().get(s);
            }
            totals.add(total);
        }
        return totals;
    }
}
