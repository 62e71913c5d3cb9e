package org.wharfmq.perf.driver;

/**
 * The message properties the driver stamps so its checks can tell every message apart. Responders copy them
 * from a request to its reply.
 */
final class Tags {

    /** Which producer sent the message: {@code destination/process-thread}. */
    static final String SOURCE = "perfSrc";
    /** The producer's sequence number, from 0. */
    static final String SEQUENCE = "perfSeq";
    /**
     * When a publisher sent a publication, in microseconds since the epoch ({@link WallClockMicros}): set on the
     * publications of the measured period (after the publisher's warm-up), for the subscribers' delivery latency.
     */
    static final String SENT_MICROS = "perfSentUs";
    /** The driver run that sent a request, so the end-of-run check finds only its own stray replies. */
    static final String RUN = "perfRun";

    /** Progress reports: the subscriber process that sent one. */
    static final String PROGRESS_PROCESS = "perfProgressProc";
    /** Progress reports: the fewest messages any subscriber of that process has received so far. */
    static final String PROGRESS_RECEIVED = "perfProgressRcvd";
    /** The topic subscriber processes report their progress on, for the publishers' flow window. */
    static final String PROGRESS_TOPIC = "WHARF_PERF_PROGRESS";

    private Tags() {
    }
}
