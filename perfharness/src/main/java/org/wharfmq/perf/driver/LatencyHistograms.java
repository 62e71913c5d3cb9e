package org.wharfmq.perf.driver;

import org.HdrHistogram.Histogram;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.zip.DataFormatException;

/**
 * Latency histograms carried between processes: a driver writes its merged histogram into its JSON result
 * (compressed, Base64), and the runner adds the histograms of several JVMs up before taking percentiles (percentiles
 * of separate JVMs cannot be combined). Publish/subscribe steps so report one delivery latency for all their
 * subscriber JVMs.
 */
public final class LatencyHistograms {

    /** Largest value recorded, in microseconds (an hour), at three significant digits. */
    static final long HIGHEST_MICROS = 3_600_000_000L;
    private static final int SIGNIFICANT_DIGITS = 3;

    private LatencyHistograms() {
    }

    /** An empty histogram of microseconds, as every driver records them. */
    public static Histogram create() {
        return new Histogram(HIGHEST_MICROS, SIGNIFICANT_DIGITS);
    }

    /** {@code h} compressed and in Base64; the empty string when it holds nothing. */
    public static String encode(Histogram h) {
        if (h.getTotalCount() == 0) {
            return "";
        }
        ByteBuffer buffer = ByteBuffer.allocate(h.getNeededByteBufferCapacity());
        int length = h.encodeIntoCompressedByteBuffer(buffer);
        return Base64.getEncoder().encodeToString(Arrays.copyOf(buffer.array(), length));
    }

    /** The histogram {@link #encode} wrote; an empty one for null or the empty string. */
    public static Histogram decode(String text) {
        if (text == null || text.isEmpty()) {
            return create();
        }
        try {
            return Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(Base64.getDecoder().decode(text)), 0);
        } catch (DataFormatException e) {
            throw new IllegalArgumentException("not an encoded latency histogram: " + e.getMessage(), e);
        }
    }

    /** The percentiles of the histograms {@code encoded} added up. */
    public static LatencySummary summaryOf(List<String> encoded) {
        Histogram all = create();
        encoded.forEach(text -> all.add(decode(text)));
        return LatencySummary.of(all);
    }
}
