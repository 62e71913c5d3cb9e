package org.wharfmq.perf.workload;

import java.util.ArrayList;
import java.util.List;

/**
 * The rules of the rated request/reply workload (RR-RATED), as the seeds' rated scaling tables: every requester
 * is held to a low rate, the requester count is stepped, and the stepping stops at the first step whose median
 * response time passes {@value #THRESHOLD_SECONDS} s; the clients served are those of the largest step within it.
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
    /** Requester counts stepped when {@code --requesters} is not given. */
    static final List<Integer> DEFAULT_STEPS = List.of(10, 50, 100, 250, 500, 1000, 2000, 4000);
    /** Responders when {@code --responders} is not given. */
    static final int DEFAULT_RESPONDERS = 10;
    /** Requesters in one driver JVM at most; more start more JVMs. */
    static final int REQUESTERS_PER_JVM = 1000;

    private RatedSteps() {
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

    /** Whether the stepping stops after {@code step}: its median response time passed the threshold, or it failed. */
    static boolean lastStep(StepResult step) {
        return !step.passed() || step.latencyMicros().p50() > THRESHOLD_MICROS;
    }

    /** Whether {@code step} served its clients: it passed and its median response time was within the threshold. */
    public static boolean served(StepResult step) {
        return step.unavailable() == null && step.passed() && step.latencyMicros().count() > 0
                && step.latencyMicros().p50() <= THRESHOLD_MICROS;
    }

    /** The clients of the largest step among {@code steps} that {@link #served} them; 0 when none did. */
    public static int clientsServed(List<StepResult> steps) {
        return steps.stream().filter(RatedSteps::served).mapToInt(StepResult::clients).max().orElse(0);
    }
}
