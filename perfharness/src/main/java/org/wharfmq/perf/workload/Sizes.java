package org.wharfmq.perf.workload;

import org.wharfmq.perf.driver.LatencySummary;

import java.util.Locale;

/** How sizes, rates and times are written in progress lines and reports. */
public final class Sizes {

    private Sizes() {
    }

    /**
     * 2048 → {@code 2KB}, 204800 → {@code 200KB}, 2097152 → {@code 2MB}, 256 → {@code 256B}; a size in decimal
     * megabytes, 100000000 → {@code 100e6B} (not {@code 100MB}, which is 100 MiB here).
     */
    public static String label(int bytes) {
        if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) == 0) {
            return bytes / (1024 * 1024) + "MB";
        }
        if (bytes >= 1024 && bytes % 1024 == 0) {
            return bytes / 1024 + "KB";
        }
        if (bytes >= 1_000_000 && bytes % 1_000_000 == 0) {
            return bytes / 1_000_000 + "e6B";
        }
        return bytes + "B";
    }

    /** A percentage with two decimals, or {@code n/a}. */
    public static String percent(double p) {
        return Double.isNaN(p) ? "n/a" : String.format(Locale.ROOT, "%.2f%%", p);
    }

    /** One decimal, or {@code n/a}. */
    public static String decimal(double v) {
        return Double.isNaN(v) ? "n/a" : String.format(Locale.ROOT, "%.1f", v);
    }

    /** Microseconds written as {@code 850us} or {@code 1.25ms}. */
    public static String micros(long us) {
        return us < 1000 ? us + "us" : String.format(Locale.ROOT, "%.2fms", us / 1000.0);
    }

    /** A latency's median, 90th and 99th percentiles and maximum, {@code 850us / 1.20ms / 3.10ms / 12.00ms}, or {@code n/a}. */
    public static String latency(LatencySummary l) {
        return l.count() == 0 ? "n/a" : micros(l.p50()) + " / " + micros(l.p90()) + " / " + micros(l.p99()) + " / " + micros(l.max());
    }

    /** A rate with thousands separators, as the seeds print them. */
    public static String rate(double r) {
        return String.format(Locale.ROOT, "%,.0f", r);
    }
}
