package org.wharfmq.perf.workload;

import org.wharfmq.perf.driver.LatencySummary;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The rules of the rated request/reply workload (RR-RATED), as the seeds' rated scaling tables: every requester
 * is held to a low rate, the requester count is stepped, and the stepping stops at the first step that does not serve
 * its clients ({@link #notServed}: its median response time past {@value #THRESHOLD_SECONDS} s, over all its
 * requesters or within a requester JVM, an overload or a failed check), or before the first step past a limit of the
 * driver's machine ({@link RatedLimits}); the clients served are those of the largest step that served them. A
 * response time is timed from when the request was due in its requester's schedule, so a requester that fell behind
 * counts its wait ({@code Pacer}).
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

    /** Whether the stepping stops after {@code step}: it did not serve its clients ({@link #notServed}). */
    static boolean lastStep(StepResult step) {
        return verdict(step) != Verdict.SERVED;
    }

    /**
     * Whether {@code step} was overloaded: requests past the timeout were still queued when its run ended, the server
     * (or its responders) behind the rate asked. Their requesters waited for them, the others went on at their rate,
     * so the median of the round trips that did come can stay within the threshold while the clients are not served.
     */
    public static boolean overloaded(StepResult step) {
        return step.queuedAtEnd() > 0;
    }

    /** Whether {@code step} served its clients ({@link #notServed} has nothing against it). */
    public static boolean served(StepResult step) {
        return verdict(step) == Verdict.SERVED;
    }

    /** How a step is judged, the first that applies in this order. */
    private enum Verdict {
        /** Past a limit of the machine: not run. */
        NOT_RUN,
        /** It failed its checks. */
        FAILED,
        /** {@link #overloaded}. */
        OVERLOADED,
        /** No round trip ended in its measured period. */
        NO_ROUND_TRIP,
        /** The median over all its requesters' round trips passed the threshold. */
        MEDIAN,
        /** A requester JVM's requesters ended no round trip in the measured period. */
        JVM_WITHOUT_ROUND_TRIP,
        /** A requester JVM's median passed the threshold. */
        JVM_MEDIAN,
        SERVED
    }

    /**
     * A step serves its clients when it was run, passed its checks, was not {@link #overloaded}, and its median
     * response time stayed within the threshold both over all its requesters' round trips (the requester JVMs'
     * histograms added up) and within each requester JVM. The JVMs hold even shares of the requesters, so one whose
     * median is past the threshold is a share of the clients mostly waiting past it, whatever the other JVMs' many
     * quick round trips make of the step's median (Wharf's 4,000 step on 2 cores: 140 ms over all, three JVMs of four
     * at 1.2 to 2.9 s).
     */
    private static Verdict verdict(StepResult step) {
        if (step.unavailable() != null) {
            return Verdict.NOT_RUN;
        }
        if (!step.passed()) {
            return Verdict.FAILED;
        }
        if (overloaded(step)) {
            return Verdict.OVERLOADED;
        }
        if (step.latencyMicros().count() == 0) {
            return Verdict.NO_ROUND_TRIP;
        }
        if (step.latencyMicros().p50() > THRESHOLD_MICROS) {
            return Verdict.MEDIAN;
        }
        LatencySummary slowest = slowestJvm(step);
        if (slowest != null && slowest.count() == 0) {
            return Verdict.JVM_WITHOUT_ROUND_TRIP;
        }
        return slowest != null && slowest.p50() > THRESHOLD_MICROS ? Verdict.JVM_MEDIAN : Verdict.SERVED;
    }

    /**
     * Why {@code step} did not serve its clients, in a few words, or null when it did: it was run, passed its checks,
     * was not {@link #overloaded}, and its median response time stayed within the threshold over all its requesters
     * and within each requester JVM.
     */
    public static String notServed(StepResult step) {
        return switch (verdict(step)) {
            case NOT_RUN -> "not run: " + step.unavailable();
            case FAILED -> "the step failed its checks";
            case OVERLOADED -> overload(step);
            case NO_ROUND_TRIP -> "no round trip ended in the measured period";
            case MEDIAN -> "median past the threshold";
            case JVM_WITHOUT_ROUND_TRIP -> "a requester JVM's requesters ended no round trip in the measured period";
            case JVM_MEDIAN -> "a requester JVM's median past the threshold";
            case SERVED -> null;
        };
    }

    /** The requester JVM of {@code step} with the longest median (one without a round trip first), or null when none. */
    private static LatencySummary slowestJvm(StepResult step) {
        LatencySummary slowest = null;
        for (LatencySummary jvm : step.jvmLatencyMicros()) {
            if (jvm.count() == 0) {
                return jvm;
            }
            if (slowest == null || jvm.p50() > slowest.p50()) {
                slowest = jvm;
            }
        }
        return slowest;
    }

    /**
     * Each requester JVM's median response time, in the JVMs' order: {@code 96.00ms, 1250.00ms, none}; {@code n/a} for a
     * step without a measurement.
     */
    public static String jvmMedians(StepResult step) {
        if (step.jvmLatencyMicros().isEmpty()) {
            return "n/a";
        }
        return String.join(", ", step.jvmLatencyMicros().stream()
                .map(l -> l.count() == 0 ? "none" : Sizes.micros(l.p50())).toList());
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
     * median passed the threshold (over all its requesters, or a requester JVM's), the step that was overloaded, the
     * step that failed its checks, the step past a limit of the machine (not run), or none, every step given having
     * served its clients.
     */
    public static String stoppedBy(List<StepResult> steps) {
        StepResult last = steps.get(steps.size() - 1);
        String perJvm = last.jvmLatencyMicros().isEmpty() ? "" : " (per requester JVM: " + jvmMedians(last) + ")";
        String overAll = last.latencyMicros().count() == 0 ? "" : Sizes.micros(last.latencyMicros().p50());
        return switch (verdict(last)) {
            case NOT_RUN -> String.format(Locale.ROOT, "%,d requesters not run, %s", last.clients(), last.unavailable());
            case FAILED -> String.format(Locale.ROOT, "%,d requesters failed the step's checks%s", last.clients(),
                    last.problems().isEmpty() ? "" : " (" + last.problems().get(0) + ")");
            case OVERLOADED -> String.format(Locale.ROOT, "at %,d requesters the server was %s", last.clients(), overload(last));
            case NO_ROUND_TRIP -> String.format(Locale.ROOT, "at %,d requesters no round trip ended in the measured period",
                    last.clients());
            case MEDIAN -> String.format(Locale.ROOT, "at %,d requesters the median response time, %s, passed %d s%s",
                    last.clients(), overAll, THRESHOLD_SECONDS, perJvm);
            case JVM_WITHOUT_ROUND_TRIP -> String.format(Locale.ROOT, "at %,d requesters a requester JVM's requesters ended "
                    + "no round trip in the measured period, though the step's median over all its requesters was %s%s",
                    last.clients(), overAll, perJvm);
            case JVM_MEDIAN -> String.format(Locale.ROOT, "at %,d requesters a requester JVM's median response time, %s, "
                            + "passed %d s, though the step's over all its requesters was %s%s", last.clients(),
                    Sizes.micros(slowestJvm(last).p50()), THRESHOLD_SECONDS, overAll, perJvm);
            case SERVED -> String.format(Locale.ROOT, "not stopped: every step given served its clients, the largest %,d "
                    + "requesters; larger steps (--requesters) would find the limit", last.clients());
        };
    }

    /**
     * {@link #stoppedBy} in a few words, as a table's cell shows it beside the clients served: {@code (every step)},
     * {@code (2,000: median 1263.62ms)}, {@code (4,000: a requester JVM's median 2905.00ms)},
     * {@code (8,000: overloaded, 1,234 requests still queued at the end)}, {@code (1,000: check failed)} or
     * {@code (16,000: past the machine's threads)}.
     */
    public static String stoppedByBrief(List<StepResult> steps) {
        StepResult last = steps.get(steps.size() - 1);
        return switch (verdict(last)) {
            case NOT_RUN -> String.format(Locale.ROOT, "(%,d: %s)", last.clients(), RatedLimits.name(last.unavailable()));
            case FAILED -> String.format(Locale.ROOT, "(%,d: check failed)", last.clients());
            case OVERLOADED -> String.format(Locale.ROOT, "(%,d: overloaded, %,d requests still queued at the end)",
                    last.clients(), last.queuedAtEnd());
            case NO_ROUND_TRIP -> String.format(Locale.ROOT, "(%,d: no round trip)", last.clients());
            case MEDIAN -> String.format(Locale.ROOT, "(%,d: median %s)", last.clients(), Sizes.micros(last.latencyMicros().p50()));
            case JVM_WITHOUT_ROUND_TRIP -> String.format(Locale.ROOT, "(%,d: a requester JVM without a round trip)",
                    last.clients());
            case JVM_MEDIAN -> String.format(Locale.ROOT, "(%,d: a requester JVM's median %s)", last.clients(),
                    Sizes.micros(slowestJvm(last).p50()));
            case SERVED -> "(every step)";
        };
    }
}
