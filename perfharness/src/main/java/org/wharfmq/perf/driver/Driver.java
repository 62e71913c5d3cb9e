package org.wharfmq.perf.driver;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import org.HdrHistogram.Histogram;
import org.wharfmq.perf.options.PerfOptions;
import org.wharfmq.perf.options.TestClass;

import javax.jms.Connection;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.QueueBrowser;
import javax.jms.Session;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.text.DecimalFormat;
import java.text.DecimalFormatSymbols;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Runs one test class with {@code -nt} workers for {@code -rl} seconds, prints JMSPerfHarness's statistics lines
 * ({@code rate=...} every {@code -ss} seconds, {@code totalIterations=...,totalRate=...} at the end), then this
 * harness's own line (median rate, latency percentiles, check outcome) and, with {@code -jo}, the JSON result.
 */
public final class Driver {

    /** How long the end-of-run check waits for a stray reply that is still on its way. */
    static final long STRAY_GRACE_MILLIS = 500;
    /** How long a driver waits for its workers to connect without one of them connecting, in seconds. */
    static final long CONNECT_STALL_SECONDS = 120;
    /** The line a driver prints when every worker is connected; the workload runner waits for it. */
    public static final String READY_LINE = "wharf-perf: ready";
    /**
     * The line a Subscriber with {@code -dd} prints as the server confirms its dummy subscriptions, before
     * {@link #READY_LINE}: {@code confirmed=N of=D}.
     */
    public static final String DUMMIES_LINE = "wharf-perf: dummy subscriptions";

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private final PerfOptions options;
    private final PrintStream out;
    private final CountDownLatch stopSignal = new CountDownLatch(1);
    private final CountDownLatch ready = new CountDownLatch(1);
    private final DecimalFormat number = new DecimalFormat("0.00", DecimalFormatSymbols.getInstance(Locale.ROOT));

    /** A driver for {@code options} printing its statistics to {@code out}. */
    public Driver(PerfOptions options, PrintStream out) {
        this.options = options;
        this.out = out;
    }

    /** Ends the run early (as the end of {@code -rl} would). */
    public void stop() {
        stopSignal.countDown();
    }

    /** Waits until every worker is connected; false on timeout. */
    public boolean awaitReady(long timeout, TimeUnit unit) throws InterruptedException {
        return ready.await(timeout, unit);
    }

    /** Runs to the end and returns the result (also written to {@code -jo} when given). */
    public DriverResult run() throws Exception {
        String runId = Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xffffffffL);
        String processId = options.processId().isEmpty() ? "p" + ProcessHandle.current().pid() : options.processId();
        TestClass testClass = options.testClass();
        RunControl control = new RunControl(options.threads());
        Bodies bodies = Bodies.of(options);
        if (options.stopOnStdinClose()) {
            StdinClose.then(this::stop, "perf-stdin-watch");
        }
        if (options.usesRelay()) {
            return runRelay(testClass, processId, control, bodies);
        }
        String clientIds = options.durable() ? "perf-" + processId + "-" + runId + "-c" : null;
        try (Provider provider = Provider.open(options);
             SharedConnections connections = new SharedConnections(provider, options.threads(),
                     options.threadsPerConnection(), clientIds);
             PublishWindow window = testClass == TestClass.PUBLISHER && options.flowWindow() > 0
                     ? PublishWindow.open(provider, options.destinationPrefix(), options.flowWindow(), options.progressProcesses()) : null;
             DummySubscriptions dummies = options.dummySubscriptions() > 0
                     ? DummySubscriptions.open(provider, options.destinationPrefix(), options.dummySubscriptions(), out,
                     TimeUnit.SECONDS.toMillis(options.timeoutSeconds())) : null) {
            List<Worker> workers = new ArrayList<>();
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < options.threads(); i++) {
                String name = processId + "-" + testClass.harnessName().substring("jms.r11.".length()) + "-" + i;
                Worker w = create(testClass, new WorkerSetup(options, provider, control, bodies, i, name, processId, runId,
                        connections, window));
                workers.add(w);
                Thread t = new Thread(w, "perf-" + name);
                t.setDaemon(true);
                threads.add(t);
                t.start();
            }
            long waiting = awaitConnected(control.readyLatch());
            if (waiting > 0) {
                control.failed("driver", new IllegalStateException(waiting + " of " + options.threads()
                        + " workers did not connect: none connected in the last " + CONNECT_STALL_SECONDS + " s"));
            }
            Measurement m;
            SortedMap<Long, Long> perWallSecond;
            try (ProgressReporter reporter = testClass == TestClass.SUBSCRIBER && options.flowWindow() > 0
                    ? ProgressReporter.start(provider, options.destinationPrefix(), processId, receivers(workers), control) : null) {
                out.println(READY_LINE);
                out.flush();
                ready.countDown();
                // read on the wall clock too, so the runner can add this process's seconds to other processes'
                WallClockSeconds wallClock = WallClockSeconds.start(control::iterations, processId);
                try {
                    m = measure(control);
                } finally {
                    wallClock.stop();
                }
                perWallSecond = wallClock.perSecond();
                control.stop();
                for (Thread t : threads) {
                    t.join(TimeUnit.SECONDS.toMillis(options.timeoutSeconds() + 30L));
                }
            }
            accountForEveryRequest(provider, runId, control, workers);
            Histogram latencies = LatencyHistograms.create();
            workers.forEach(w -> latencies.add(w.latencies()));
            return report(result(testClass, processId, control, m, perWallSecond, latencies, bodies.size()));
        } finally {
            ready.countDown();
        }
    }

    /**
     * Waits for the workers to connect as long as they keep connecting: thousands of rated requesters take minutes on
     * a busy machine, so the wait is not a fixed time but ends only when none connected for
     * {@value #CONNECT_STALL_SECONDS} s.
     *
     * @return the workers still not connected then, 0 when all are
     */
    static long awaitConnected(CountDownLatch ready) throws InterruptedException {
        long left = ready.getCount();
        while (!ready.await(CONNECT_STALL_SECONDS, TimeUnit.SECONDS)) {
            if (ready.getCount() == left) {
                return left;
            }
            left = ready.getCount();
        }
        return 0;
    }

    /** {@code -pc Relay}: the same measurement of the bare Netty relay's clients ({@link RelayClients}). */
    private DriverResult runRelay(TestClass testClass, String processId, RunControl control, Bodies bodies) throws Exception {
        try (RelayClients clients = RelayClients.connect(options, testClass, control, bodies.bytes())) {
            out.println(READY_LINE);
            out.flush();
            ready.countDown();
            clients.begin();
            WallClockSeconds wallClock = WallClockSeconds.start(control::iterations, processId);
            Measurement m;
            try {
                m = measure(control);
            } finally {
                wallClock.stop();
            }
            control.stop();
            Histogram latencies = clients.finish(options.timeoutSeconds());
            return report(result(testClass, processId, control, m, wallClock.perSecond(), latencies, bodies.size()));
        } finally {
            ready.countDown();
        }
    }

    /** Prints the result's summary and writes its JSON ({@code -jo}). */
    private DriverResult report(DriverResult result) throws IOException {
        printSummary(result);
        if (!options.jsonOutput().isEmpty()) {
            JSON.writeValue(Path.of(options.jsonOutput()).toFile(), result);
        }
        return result;
    }

    private static List<Receiver> receivers(List<Worker> workers) {
        return workers.stream().filter(Receiver.class::isInstance).map(Receiver.class::cast).toList();
    }

    private static Worker create(TestClass testClass, WorkerSetup setup) {
        return switch (testClass) {
            case REQUESTOR -> new Requestor(setup);
            case RESPONDER -> new Responder(setup);
            case SENDER -> new Sender(setup, false);
            case PUBLISHER -> new Sender(setup, true);
            case RECEIVER -> new Receiver(setup, false);
            case SUBSCRIBER -> new Receiver(setup, true);
            case PUT_GET -> new PutGet(setup);
            case SHORT_SESSION -> new ShortSession(setup);
            case CONNECTOR -> new Connector(setup);
            case HTTP_REQUESTOR -> new HttpRequestor(setup);
            case FILE_FEEDER -> new FileFeeder(setup);
        };
    }

    /** Per-second samples of the iteration count, from the end of the warm-up to the end of the run. */
    private record Measurement(long windowStartMillis, long windowEndMillis, long measured, List<Long> perSecond) {
    }

    /**
     * Runs the warm-up and the measured period. The warm-up lasts {@code -sw} seconds and, in a run of a set length
     * ({@code -rl}), until every worker's first operation has ended, at a whole second: a cold first operation (a
     * flow's first XML write in a JVM took seconds under load) is never in the measured period, and a run shorter
     * than it does not measure nothing. It waits so at most {@code -to} seconds past {@code -sw} (an operation that
     * takes longer is overdue by then). The measured period then lasts {@code -rl} minus {@code -sw} seconds, so a
     * warm-up held by that barrier makes the run longer, not the measurement shorter. A driver that runs until stopped
     * ({@code -rl 0}: the runner's receivers and responders) has no barrier: its warm-up is {@code -sw} seconds.
     */
    private Measurement measure(RunControl control) throws InterruptedException {
        control.start();
        long startNanos = System.nanoTime();
        long windowStartNanos = startNanos;
        long windowStartMillis = System.currentTimeMillis();
        long windowStartCount = 0;
        boolean bounded = options.runLengthSeconds() > 0;
        int measuredSeconds = Math.max(0, options.runLengthSeconds() - options.warmupSeconds());
        int measuredFrom = 0;
        if (options.warmupSeconds() == 0 && !bounded) {
            control.startMeasuring();
        }
        List<Long> perSecond = new ArrayList<>();
        long last = 0;
        long lastReported = 0;
        long lastReportNanos = startNanos;
        for (int second = 1; ; second++) {
            long due = startNanos + TimeUnit.SECONDS.toNanos(second);
            boolean stopped = stopSignal.await(Math.max(0, due - System.nanoTime()), TimeUnit.NANOSECONDS);
            long now = control.iterations();
            if (stopped || !control.running()) {
                break;
            }
            if (control.measuring()) {
                perSecond.add(now - last);
            } else if (second >= options.warmupSeconds() && (!bounded || control.everyWorkerOperated()
                    || second >= options.warmupSeconds() + options.timeoutSeconds())) {
                control.startMeasuring();
                measuredFrom = second;
                windowStartNanos = System.nanoTime();
                windowStartMillis = System.currentTimeMillis();
                windowStartCount = now;
            }
            last = now;
            int ss = options.statsIntervalSeconds();
            if (ss > 0 && second % ss == 0) {
                long t = System.nanoTime();
                printRate(now - lastReported, t - lastReportNanos, ss);
                lastReported = now;
                lastReportNanos = t;
            }
            if (bounded && control.measuring() && second - measuredFrom >= measuredSeconds) {
                break;
            }
        }
        long end = control.iterations();
        long endNanos = System.nanoTime();
        long measured = control.measuring() ? end - windowStartCount : 0;
        long windowEndMillis = windowStartMillis + TimeUnit.NANOSECONDS.toMillis(endNanos - windowStartNanos);
        return new Measurement(windowStartMillis, windowEndMillis, measured, perSecond);
    }

    private void printRate(long count, long nanos, int period) {
        StringBuilder sb = new StringBuilder();
        if (!options.processId().isEmpty()) {
            sb.append("id=").append(options.processId()).append(',');
        }
        sb.append("rate=").append(number.format(count * 1e9 / Math.max(1, nanos)))
                .append(",total messages=").append(count)
                .append(",Snapshot period=").append(period)
                .append(",threads=").append(options.threads());
        out.println(sb);
        out.flush();
    }

    /**
     * After the run, every request of the requesters is answered, late, still queued or lost. With a shared reply
     * queue and replies picked by message id, the replies left on it are looked for ({@link #findStrayReplies}): the
     * late replies of overdue requests, for as long as they keep coming, and duplicates. Then the overdue requests
     * still without a reply are looked for on the request queues ({@link #findQueuedRequests}): one found there is
     * still queued, not lost, the server having not reached it (an overloaded server, or responders); the others get one
     * more timeout for their replies (a request a responder had taken before the look is answered within it), and are
     * lost when none comes. A failure on the way (a provider that drops the extra connection) fails the run with it.
     */
    private void accountForEveryRequest(Provider provider, String runId, RunControl control, List<Worker> workers) {
        List<Requestor> requestors = workers.stream().filter(Requestor.class::isInstance).map(Requestor.class::cast).toList();
        if (requestors.isEmpty()) {
            return;
        }
        boolean strays = !options.replyQueue().isEmpty() && !options.correlationIdPerThread();
        try {
            if (strays) {
                findStrayReplies(provider, runId, control, requestors, true);
            }
            if (requestors.stream().anyMatch(Requestor::hasOverdue)) {
                findQueuedRequests(provider, runId, requestors);
                if (strays) {
                    findStrayReplies(provider, runId, control, requestors, false);
                }
            }
        } catch (JMSException | RuntimeException e) {
            control.failed("driver", e);
        }
        requestors.forEach(Requestor::countUnanswered);
    }

    /** The most the look for late replies after the run goes on while they keep coming, in seconds. */
    static final long DRAIN_LIMIT_SECONDS = 60;

    /**
     * Replies left on the shared reply queues: duplicates, except the late replies of overdue requests, for which it
     * waits up to {@code -to} after the last one came (or after it began), while any request is overdue; with {@code
     * drain}, at most {@value #DRAIN_LIMIT_SECONDS} s in all: a server working through a backlog of requests answers them
     * one after the other.
     */
    private void findStrayReplies(Provider provider, String runId, RunControl control, List<Requestor> requestors,
                                  boolean drain) throws JMSException {
        Map<String, Requestor> bySource = new HashMap<>();
        requestors.forEach(r -> bySource.put(r.name, r));
        long timeoutNanos = TimeUnit.SECONDS.toNanos(options.timeoutSeconds());
        try (Connection connection = provider.connect()) {
            connection.start();
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            for (String queue : numbered(options.replyQueue())) {
                try (MessageConsumer consumer = session.createConsumer(provider.queue(session, queue),
                        Tags.RUN + " = '" + runId + "'")) {
                    // timed from the consumer on: connecting it took over 10 s at load 70, and a deadline timed from
                    // before left the consumer 500 ms for each refill of its prefetch window, which came later
                    long limit = System.nanoTime() + (drain ? TimeUnit.SECONDS.toNanos(DRAIN_LIMIT_SECONDS) : timeoutNanos);
                    long deadline = Math.min(limit, System.nanoTime() + timeoutNanos);
                    Message stray;
                    while ((stray = consumer.receive(requestors.stream().anyMatch(Requestor::hasOverdue)
                            ? Math.max(STRAY_GRACE_MILLIS, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()))
                            : STRAY_GRACE_MILLIS)) != null) {
                        Requestor source = bySource.get(stray.getStringProperty(Tags.SOURCE));
                        Object sequence = stray.getObjectProperty(Tags.SEQUENCE);
                        if (source != null && sequence instanceof Number n && source.lateReplyOf(n.longValue(), stray)) {
                            deadline = Math.min(limit, System.nanoTime() + timeoutNanos);
                            continue;
                        }
                        control.duplicate("reply to request " + stray.getObjectProperty(Tags.SEQUENCE) + " of "
                                + stray.getStringProperty(Tags.SOURCE) + " left on " + queue + " after its request was answered");
                    }
                }
            }
        }
    }

    /**
     * Browses the request queues for this run's requests and marks each overdue one found there as still queued
     * ({@link Requestor#stillQueued}): the server holds it and has not reached it.
     */
    private void findQueuedRequests(Provider provider, String runId, List<Requestor> requestors) throws JMSException {
        Map<String, Requestor> bySource = new HashMap<>();
        requestors.forEach(r -> bySource.put(r.name, r));
        try (Connection connection = provider.connect()) {
            connection.start();
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            for (String queue : numbered(options.requestQueue())) {
                try (QueueBrowser browser = session.createBrowser(provider.queue(session, queue), Tags.RUN + " = '" + runId + "'")) {
                    Enumeration<?> requests = browser.getEnumeration();
                    while (requests.hasMoreElements()) {
                        Message request = (Message) requests.nextElement();
                        Requestor source = bySource.get(request.getStringProperty(Tags.SOURCE));
                        if (source != null && request.getObjectProperty(Tags.SEQUENCE) instanceof Number n) {
                            source.stillQueued(n.longValue());
                        }
                    }
                }
            }
        }
    }

    /** The queues {@code base} names for this driver's workers: {@code base}, or {@code base1}... with {@code -dn}. */
    private Set<String> numbered(String base) {
        Set<String> queues = new LinkedHashSet<>();
        for (int i = 0; i < options.threads(); i++) {
            int n = options.destinations().numberFor(i);
            queues.add(base + (n < 0 ? "" : String.valueOf(n)));
        }
        return queues;
    }

    private DriverResult result(TestClass testClass, String processId, RunControl control, Measurement m,
                                SortedMap<Long, Long> perWallSecond, Histogram latencies,
                                int messageSize) {
        double seconds = Math.max(1e-3, (m.windowEndMillis() - m.windowStartMillis()) / 1000.0);
        double mean = m.measured() / seconds;
        double median = m.perSecond().isEmpty() ? mean : DriverResult.medianOf(m.perSecond());
        List<String> problems = control.problems();
        return new DriverResult(testClass.harnessName(), processId, options.threads(), messageSize,
                options.persistent(), options.transacted(), m.windowStartMillis(), m.windowEndMillis(), m.measured(),
                control.iterations(), mean, median, m.perSecond(), perWallSecond, LatencySummary.of(latencies),
                LatencyHistograms.encode(latencies), control.sentCounts(), control.publishedCounts(),
                control.received().counts(), control.subscriberCounts(), control.losses(), control.late(), control.answeredAfterEnd(), control.stillQueued(), control.duplicates(),
                control.unexpectedCount(), problems, control.unavailable(), problems.isEmpty() && control.unavailable() == null);
    }

    private void printSummary(DriverResult r) {
        if (options.summary()) {
            double seconds = (r.windowEndMillis() - r.windowStartMillis()) / 1000.0;
            out.println("totalIterations=" + r.measuredIterations()
                    + ",avgDuration=" + number.format(seconds)
                    + ",totalRate=" + number.format(r.meanRate())
                    + ",totalLateResponses=" + r.late()
                    + ",totalUnknownMessages=" + r.unexpected()
                    + ",totalTimeouts=" + r.losses());
        }
        LatencySummary l = r.latencyMicros();
        out.println("medianRate=" + number.format(r.medianRate())
                + ",p50=" + l.p50() + "us,p99=" + l.p99() + "us,p999=" + l.p999() + "us"
                + ",losses=" + r.losses() + ",late=" + r.late() + ",duplicates=" + r.duplicates() + ",unexpected=" + r.unexpected()
                + ",check=" + (r.passed() ? "PASSED" : r.unavailable() != null ? "UNAVAILABLE" : "FAILED"));
        if (r.unavailable() != null) {
            out.println("unavailable: " + r.unavailable());
        }
        r.problems().forEach(p -> out.println("problem: " + p));
        out.flush();
    }
}
