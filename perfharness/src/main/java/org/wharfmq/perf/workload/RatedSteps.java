package org.wharfmq.perf.workload;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The rules of the rated request/reply workload (RR-RATED), as the seeds' rated scaling tables: every requester
 * is held to a low rate, the requester count is stepped, and the stepping stops at the first step whose median
 * response time passes {@value #THRESHOLD_SECONDS} s, or before the first step past a limit of the driver's machine
 * ({@link RatedLimits}); the clients served are those of the largest step within it.
 *
 * <p>Layout. The requesters of a step are spread over {@link #jvms} driver JVMs (at least two, as the seeds drive
 * from two client machines; more past {@value #REQUESTERS_PER_JVM} requesters each), every requester a thread
 * with a connection of its own (a client of the seeds). The responders run in a JVM of their own,
 * {@value #DEFAULT_RESPONDERS} by default: at a rated load a few keep up with thousands of requesters.
 */
public final class RatedSteps {

    /** The median response time past which the stepping stops, in seconds. */
    public static final int THRESHOLD_SECONDS = 1;
    /** {@link #THRESHOLD_SECONDS} in microseconds, as the latencies are recorded. */
    static final long THRESHOLD_MICROS = THRESHOLD_SECONDS * 1_000_000L;
    /** Round trips per second per requester when {@code --rate} is not given (the seeds use 1 to 2). */
    static final double DEFAULT_RATE = 1.5;
    /**
     * Requester counts stepped when {@code --requesters} is not given: on past the thousands, where a 2-core machine's
     * limits (its threads, its memory for the requester JVMs, {@link RatedLimits}) stop the stepping if the response
     * time has not.
     */
    static final List<Integer> DEFAULT_STEPS = List.of(10, 50, 100, 250, 500, 1000, 2000, 3000, 4000, 6000, 8000, 12000,
            16000, 24000, 32000);
    /** Responders when {@code --responders} is not given. */
    static final int DEFAULT_RESPONDERS = 10;
    /** Requesters in one driver JVM at most; more start more JVMs. */
    static final int REQUESTERS_PER_JVM = 1000;

    private RatedSteps() {
    }

    /** The responders of a step of {@code requesters}: {@code given} ({@code --responders}), else {@value #DEFAULT_RESPONDERS} at most. */
    static int responders(int given, int requesters) {
        return given > 0 ? given : Math.min(requesters, DEFAULT_RESPONDERS);
    }

    /** Driver JVMs for {@code requesters}: two (one for a single requester), more past {@link #REQUESTERS_PER_JVM} each. */
    static int jvms(int requesters) {
        return Math.min(requesters, Math.max(2, (requesters + REQUESTERS_PER_JVM - 1) / REQUESTERS_PER_JVM));
    }

    /** The requesters of each of {@link #jvms} JVMs, as even as can be. */
    static List<Integer> split(int requesters) {
        int jvms = jvms(requesters);
        List<Integer> counts = new ArrayList<>();
        for (int j = 0; j < jvms; j++) {
            counts.add(requesters / jvms + (j < requesters % jvms ? 1 : 0));
        }
        return counts;
    }

    /**
     * Whether the stepping stops after {@code step}: its median response time passed the threshold, it was overloaded
     * ({@link #overloaded}), or it failed.
     */
    static boolean lastStep(StepResult step) {
        return !step.passed() || overloaded(step) || step.latencyMicros().p50() > THRESHOLD_MICROS;
    }

    /**
     * Whether {@code step} was overloaded: requests past the timeout were still queued when its run ended, the server
     * (or its responders) behind the rate asked. Their requesters waited for them, the others went on at their rate,
     * so the median of the round trips that did come can stay within the threshold while the clients are not served.
     */
    public static boolean overloaded(StepResult step) {
        return step.queuedAtEnd() > 0;
    }

    /**
     * Whether {@code step} served its clients: it passed, was not {@link #overloaded} and its median response time was
     * within the threshold.
     */
    public static boolean served(StepResult step) {
        return step.unavailable() == null && step.passed() && !overloaded(step) && step.latencyMicros().count() > 0
                && step.latencyMicros().p50() <= THRESHOLD_MICROS;
    }

    /** Why {@code step} was {@link #overloaded}, in words. */
    public static String overload(StepResult step) {
        return String.format(Locale.ROOT, "overloaded: %,d requests still queued when the run ended (no reply within the"
                + " timeout; answered after the end or left on the request queue, none lost)", step.queuedAtEnd());
    }

    /** The clients of the largest step among {@code steps} that {@link #served} them; 0 when none did. */
    public static int clientsServed(List<StepResult> steps) {
        return steps.stream().filter(RatedSteps::served).mapToInt(StepResult::clients).max().orElse(0);
    }

    /**
     * What ended the stepping of {@code steps} (one target and message size, in order), in a sentence: the step whose
     * median passed the threshold, the step that was overloaded, the step that failed its checks, the step past a limit
     * of the machine (not run), or none, every step given having served its clients.
     */
    public static String stoppedBy(List<StepResult> steps) {
        StepResult last = steps.get(steps.size() - 1);
        if (last.unavailable() != null) {
            return String.format(Locale.ROOT, "%,d requesters not run, %s", last.clients(), last.unavailable());
        }
        if (!last.passed()) {
            return String.format(Locale.ROOT, "%,d requesters failed the step's checks%s", last.clients(),
                    last.problems().isEmpty() ? "" : " (" + last.problems().get(0) + ")");
        }
        if (overloaded(last)) {
            return String.format(Locale.ROOT, "at %,d requesters the server was %s", last.clients(), overload(last));
        }
        if (last.latencyMicros().p50() > THRESHOLD_MICROS) {
            return String.format(Locale.ROOT, "at %,d requesters the median response time, %s, passed %d s", last.clients(),
                    Sizes.micros(last.latencyMicros().p50()), THRESHOLD_SECONDS);
        }
        return String.format(Locale.ROOT, "not stopped: every step given served its clients, the largest %,d requesters;"
                + " larger steps (--requesters) would find the limit", last.clients());
    }

    /**
     * {@link #stoppedBy} in a few words, as a table's cell shows it beside the clients served: {@code (every step)},
     * {@code (2,000: median 1263.62ms)}, {@code (8,000: overloaded, 1,234 requests still queued at the end)},
     * {@code (1,000: check failed)} or {@code (16,000: past the machine's threads)}.
     */
    public static String stoppedByBrief(List<StepResult> steps) {
        StepResult last = steps.get(steps.size() - 1);
        if (last.unavailable() != null) {
            return String.format(Locale.ROOT, "(%,d: %s)", last.clients(), RatedLimits.name(last.unavailable()));
        }
        if (!last.passed()) {
            return String.format(Locale.ROOT, "(%,d: check failed)", last.clients());
        }
        if (overloaded(last)) {
            return String.format(Locale.ROOT, "(%,d: overloaded, %,d requests still queued at the end)", last.clients(),
                    last.queuedAtEnd());
        }
        if (last.latencyMicros().p50() > THRESHOLD_MICROS) {
            return String.format(Locale.ROOT, "(%,d: median %s)", last.clients(), Sizes.micros(last.latencyMicros().p50()));
        }
        return "(every step)";
    }
}
