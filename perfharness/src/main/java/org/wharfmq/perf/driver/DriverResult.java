package org.wharfmq.perf.driver;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The outcome of one driver run, as written to the {@code -jo} JSON file.
 *
 * @param testClass          the JMSPerfHarness test class
 * @param processId          {@code -id}, or one made up from the process id
 * @param threads            {@code -nt}
 * @param messageSize        the body's bytes ({@code -ms}, or the length of the {@code -mf} file)
 * @param persistent         {@code -pp}
 * @param transacted         {@code -tx}
 * @param windowStartMillis  wall-clock start of the measured period (after the warm-up)
 * @param windowEndMillis    wall-clock end of the measured period
 * @param measuredIterations operations in the measured period
 * @param totalIterations    operations including the warm-up
 * @param meanRate           measured operations / measured seconds
 * @param medianRate         the median of the per-second rates of the measured period
 * @param perSecond          operations in each second of the measured period
 * @param perWallSecond      operations in each whole wall-clock second of the run, warm-up included, by epoch
 *                           second: what the runner adds up across processes (PS-*: deliveries at the
 *                           subscribers), see {@link WallClockSeconds}
 * @param latencyMicros      round-trip latencies (Requestor, PutGet), delivery latencies from publication to receipt
 *                           (Subscriber, of the publications the publisher stamped: {@link Tags#SENT_MICROS}), else an
 *                           empty summary
 * @param latencyHistogram   the histogram behind latencyMicros ({@link LatencyHistograms#encode}), so the runner can add
 *                           several processes' up; empty when nothing was recorded
 * @param sent               messages sent to queues per source key (Sender)
 * @param published          messages published to topics per source key (Publisher)
 * @param received           distinct messages received per source key (Receiver)
 * @param subscribers        per subscriber: its topic and distinct messages received per source key (Subscriber)
 * @param losses             requests without a reply by the end of the run, messages not received back
 * @param late               requests whose reply came later than {@code -to}: answered, so not losses, but their
 *                           requesters had gone on without them ({@link Requestor})
 * @param answeredAfterEnd   late requests whose replies were sent only after the run ended: still queued when it
 *                           ended (the load outran the server or its responders, which had not reached them)
 * @param stillQueued        overdue requests found on the request queue when the driver stopped waiting for their
 *                           replies: not losses, the server still held them
 * @param duplicates         messages or replies received twice
 * @param unexpected         messages that answer nothing this run sent
 * @param problems           the first problems, described
 * @param unavailable        set when the provider does not support what the test class needs
 * @param passed             true when every check passed and no worker failed
 */
public record DriverResult(String testClass, String processId, int threads, int messageSize, boolean persistent,
                           boolean transacted, long windowStartMillis, long windowEndMillis, long measuredIterations,
                           long totalIterations, double meanRate, double medianRate, List<Long> perSecond,
                           Map<Long, Long> perWallSecond,
                           LatencySummary latencyMicros, String latencyHistogram, Map<String, Long> sent, Map<String, Long> published,
                           Map<String, Long> received,
                           List<SubscriberCount> subscribers, long losses, long late, long answeredAfterEnd, long stillQueued, long duplicates, long unexpected,
                           List<String> problems, String unavailable, boolean passed) {

    /** The operations this driver began: requests sent (answered in time, late or lost), messages sent. */
    public long operationsBegun() {
        return totalIterations + late + losses + stillQueued;
    }

    /**
     * Overdue requests still queued when the run ended ({@link #answeredAfterEnd} and {@link #stillQueued}): a driver
     * whose requests outran the server, not one that lost them.
     */
    public long queuedAtEnd() {
        return answeredAfterEnd + stillQueued;
    }

    /**
     * The median of per-second counts as the harness takes it everywhere: the upper one of an even count.
     *
     * @param counts per-second counts, not empty
     */
    public static long medianOf(List<Long> counts) {
        List<Long> sorted = new ArrayList<>(counts);
        sorted.sort(null);
        return sorted.get(sorted.size() / 2);
    }
}
