package org.wharfmq.perf.driver;

import org.HdrHistogram.Histogram;

/**
 * Percentiles of a latency in microseconds (a round trip, or a publication's delivery to a subscriber), from an
 * HdrHistogram.
 *
 * @param count samples
 * @param p50   median
 * @param p90   90th percentile
 * @param p95   95th percentile (the rated workload's second figure, beside the median)
 * @param p99   99th percentile
 * @param p999  99.9th percentile
 * @param max   largest
 * @param mean  arithmetic mean
 */
public record LatencySummary(long count, long p50, long p90, long p95, long p99, long p999, long max, double mean) {

    /** Nothing recorded. */
    public static final LatencySummary NONE = new LatencySummary(0, 0, 0, 0, 0, 0, 0, 0);

    /** The summary of {@code h}. */
    public static LatencySummary of(Histogram h) {
        if (h.getTotalCount() == 0) {
            return NONE;
        }
        return new LatencySummary(h.getTotalCount(), h.getValueAtPercentile(50), h.getValueAtPercentile(90), h.getValueAtPercentile(95),
                h.getValueAtPercentile(99), h.getValueAtPercentile(99.9), h.getMaxValue(), h.getMean());
    }
}
