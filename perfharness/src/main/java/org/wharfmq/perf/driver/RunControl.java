package org.wharfmq.perf.driver;

import javax.jms.JMSException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * What the workers of one driver run share: the start and stop signals, the iteration counter the statistics
 * sample, and the outcome of the checks (losses, duplicates, unexpected messages, failures).
 */
final class RunControl {

    private static final int MAX_REPORTED_PROBLEMS = 20;

    private final CountDownLatch ready;
    /** Counted down once by each worker as its first operation ends (done or lost): the warm-up's barrier. */
    private final CountDownLatch firstOperations;
    private final CountDownLatch start = new CountDownLatch(1);
    private volatile boolean running = true;
    /** When {@link #stop} was first called, on the wall clock. */
    private volatile long stoppedAtMillis = Long.MAX_VALUE;
    /** When the warm-up ended and the measured period began ({@link System#nanoTime}); {@link #WARMING_UP} till then. */
    private volatile long measuringSinceNanos = WARMING_UP;
    private final LongAdder iterations = new LongAdder();
    private final AtomicLong losses = new AtomicLong();
    private final AtomicLong late = new AtomicLong();
    private final AtomicLong answeredAfterEnd = new AtomicLong();
    private final AtomicLong stillQueued = new AtomicLong();
    private final AtomicLong duplicates = new AtomicLong();
    private final AtomicLong unexpected = new AtomicLong();
    private final List<String> problems = Collections.synchronizedList(new ArrayList<>());
    /** Problems past {@link #MAX_REPORTED_PROBLEMS}: counted, not described. */
    private final AtomicLong unlisted = new AtomicLong();
    private final ConcurrentMap<String, AtomicLong> sent = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, AtomicLong> published = new ConcurrentHashMap<>();
    private final SequenceLedger received = new SequenceLedger();
    private final List<SubscriberCount> subscriberCounts = Collections.synchronizedList(new ArrayList<>());
    private volatile String unavailable;

    RunControl(int workers) {
        this.ready = new CountDownLatch(workers);
        this.firstOperations = new CountDownLatch(workers);
    }

    /** A worker has opened its resources (or failed to). */
    void workerReady() {
        ready.countDown();
    }

    CountDownLatch readyLatch() {
        return ready;
    }

    /** Blocks a worker until every worker is ready, so subscribers exist before anything is published. */
    void awaitStart() throws InterruptedException {
        start.await();
    }

    void start() {
        start.countDown();
    }

    boolean running() {
        return running;
    }

    void stop() {
        if (running) {
            stoppedAtMillis = System.currentTimeMillis();
        }
        running = false;
        start.countDown();
    }

    /**
     * Whether the run had ended by {@code epochMillis} (a reply's JMSTimestamp, when its responder sent it: the clients
     * and the server share this machine's clock): a late reply sent after the end is of a request still queued then.
     */
    boolean endedBefore(long epochMillis) {
        return !running && epochMillis >= stoppedAtMillis;
    }

    /** A worker's first operation has ended, done or lost (called once per worker). */
    void firstOperationEnded() {
        firstOperations.countDown();
    }

    /** Whether every worker's first operation has ended: the cold ones are behind the driver. */
    boolean everyWorkerOperated() {
        return firstOperations.getCount() == 0;
    }

    /** {@link #measuringSinceNanos} during the warm-up. */
    static final long WARMING_UP = Long.MAX_VALUE;

    /** True once the warm-up is over: latencies are recorded only then. */
    boolean measuring() {
        return measuringSinceNanos != WARMING_UP;
    }

    /** When the measured period began, on {@link System#nanoTime}; {@link #WARMING_UP} before. */
    long measuringSinceNanos() {
        return measuringSinceNanos;
    }

    void startMeasuring() {
        measuringSinceNanos = System.nanoTime();
    }

    void iterationDone() {
        iterations.increment();
    }

    long iterations() {
        return iterations.sum();
    }

    void loss(String what) {
        losses.incrementAndGet();
        problem("loss: " + what);
    }

    /**
     * A late reply was sent after the run ended: its request was still queued then. Not a problem (it was answered):
     * the load outran the server or its responders; counted.
     */
    void replyAfterEnd() {
        answeredAfterEnd.incrementAndGet();
    }

    /** An overdue request was found on the request queue after the run: not lost, the server still held it; counted. */
    void requestStillQueued() {
        stillQueued.incrementAndGet();
    }

    long answeredAfterEnd() {
        return answeredAfterEnd.get();
    }

    long stillQueued() {
        return stillQueued.get();
    }

    /** A reply came, but later than {@code -to}: not a problem (the request was answered), counted. */
    void lateReply() {
        late.incrementAndGet();
    }

    void duplicate(String what) {
        duplicates.incrementAndGet();
        problem("duplicate: " + what);
    }

    void unexpected(String what) {
        unexpected.incrementAndGet();
        problem("unexpected: " + what);
    }

    /**
     * A worker stopped on an error: the problem names it and, when it has causes, the first of them (a broker's
     * refusal often says only "COMMIT FAILED: Transaction marked rollback only", its cause an OutOfMemoryError).
     */
    void failed(String worker, Exception e) {
        if (isNotSupported(e)) {
            unavailable = e.getMessage();
        }
        Throwable root = rootCause(e);
        problem(worker + " failed: " + e + (root == e ? "" : " (at the root: " + root + ")"));
        stop();
    }

    /** The last of {@code e}'s causes (a JMSException's linked exception too), or {@code e} without any. */
    static Throwable rootCause(Throwable e) {
        Throwable t = e;
        for (int depth = 0; depth < 20; depth++) {
            Throwable next = t.getCause() != null ? t.getCause() : t instanceof JMSException j ? j.getLinkedException() : null;
            if (next == null || next == t) {
                break;
            }
            t = next;
        }
        return t;
    }

    /** True when the provider said the feature does not exist yet (Wharf's "not supported yet"). */
    static boolean isNotSupported(Throwable e) {
        Throwable t = e;
        for (int depth = 0; t != null && depth < 10; depth++) {
            if (t instanceof UnsupportedOperationException
                    || String.valueOf(t.getMessage()).toLowerCase(java.util.Locale.ROOT).contains("not supported")) {
                return true;
            }
            t = t.getCause() != null ? t.getCause() : t instanceof JMSException j ? j.getLinkedException() : null;
        }
        return false;
    }

    private void problem(String text) {
        synchronized (problems) {
            if (problems.size() < MAX_REPORTED_PROBLEMS) {
                problems.add(text);
                return;
            }
        }
        unlisted.incrementAndGet();
    }

    /** A producer sent {@code count} messages with this source key, to a queue or published to a topic. */
    void sent(String source, long count, boolean topic) {
        (topic ? published : sent).computeIfAbsent(source, s -> new AtomicLong()).addAndGet(count);
    }

    SequenceLedger received() {
        return received;
    }

    void subscriberFinished(String topic, java.util.Map<String, Long> counts) {
        subscriberCounts.add(new SubscriberCount(topic, counts));
    }

    java.util.Map<String, Long> sentCounts() {
        return snapshot(sent);
    }

    java.util.Map<String, Long> publishedCounts() {
        return snapshot(published);
    }

    private static java.util.Map<String, Long> snapshot(ConcurrentMap<String, AtomicLong> counters) {
        java.util.Map<String, Long> counts = new java.util.TreeMap<>();
        counters.forEach((k, v) -> counts.put(k, v.get()));
        return counts;
    }

    List<SubscriberCount> subscriberCounts() {
        return List.copyOf(subscriberCounts);
    }

    long losses() {
        return losses.get();
    }

    long late() {
        return late.get();
    }

    long duplicates() {
        return duplicates.get();
    }

    long unexpectedCount() {
        return unexpected.get();
    }

    /**
     * The first problems described, then, when there were more, a line saying how many were left out and the counts
     * of each kind: the list alone once made 18 duplicates read as 2.
     */
    List<String> problems() {
        List<String> listed = new ArrayList<>(problems);
        long more = unlisted.get();
        if (more > 0) {
            listed.add("and " + more + " more problems not listed (in all: " + losses() + " losses, " + duplicates()
                    + " duplicates, " + unexpectedCount() + " unexpected)");
        }
        return List.copyOf(listed);
    }

    String unavailable() {
        return unavailable;
    }
}
