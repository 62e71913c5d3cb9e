package org.wharfmq.perf.workload;

import org.wharfmq.perf.driver.LatencySummary;

import java.util.List;

/**
 * One step of a run: a workload, a target, a message size and a client count.
 *
 * @param workload         the workload id (RR-4, ...)
 * @param target           Wharf or the peer
 * @param messageSize      bytes
 * @param clients          requesters (or producers)
 * @param responders       responders (or consumers)
 * @param medianRate       median of the per-second rates (round trips/s or messages/s; PS-*: deliveries/s counted at
 *                         the subscribers, see {@link StepRates#atSubscribers})
 * @param meanRate         mean rate over the measured period
 * @param cpuPercent       server CPU as a percentage of the whole machine (NaN when unknown)
 * @param cpuMicrosPerOp   server CPU microseconds per round trip (or message)
 * @param allCpuMicrosPerOp CPU microseconds per round trip (or message) of every JVM of the step, server and clients:
 *                         what the whole machine spends on one
 * @param jitPercent       CPU the JIT compilers of all the step's JVMs used during the measured period, as a
 *                         percentage of the whole machine (NaN when unknown): above a few percent the JVMs were
 *                         still warming up and the rates are low
 * @param latencyMicros    round-trip latency percentiles; PS-*: delivery latency, from the publisher's send to a
 *                         subscriber's receipt, over every subscriber ({@link WorkloadRunner#deliveryLatency})
 * @param passed           the exactly-once checks passed
 * @param unavailable      why the target cannot run this workload yet, else null
 * @param problems         what went wrong
 * @param queuedAtEnd      requests overdue (no reply within the timeout) and still queued when the run ended, answered
 *                         only after it or still on the request queue then: not losses, the load outran the server or
 *                         its responders ({@link org.wharfmq.perf.driver.DriverResult#queuedAtEnd})
 * @param jvmLatencyMicros each measured driver JVM's own latency percentiles, in the order of the JVMs (RR-RATED: each
 *                         requester JVM's, req1, req2 ...), whose histograms added up are {@code latencyMicros}: a
 *                         step is judged by all of them ({@link RatedSteps#notServed}); empty when not measured
 */
public record StepResult(String workload, String target, int messageSize, int clients, int responders,
                         double medianRate, double meanRate, double cpuPercent, double cpuMicrosPerOp,
                         double allCpuMicrosPerOp, double jitPercent, LatencySummary latencyMicros, boolean passed, String unavailable,
                         List<String> problems, long queuedAtEnd, List<LatencySummary> jvmLatencyMicros) {

    /** A step with no request still queued at its end, and no latency per JVM. */
    public StepResult(String workload, String target, int messageSize, int clients, int responders, double medianRate,
                      double meanRate, double cpuPercent, double cpuMicrosPerOp, double allCpuMicrosPerOp, double jitPercent,
                      LatencySummary latencyMicros, boolean passed, String unavailable, List<String> problems) {
        this(workload, target, messageSize, clients, responders, medianRate, meanRate, cpuPercent, cpuMicrosPerOp,
                allCpuMicrosPerOp, jitPercent, latencyMicros, passed, unavailable, problems, 0, List.of());
    }

    /** Above this share of the machine ({@value} %) the JIT compilers' work during a measurement is reported. */
    public static final double JIT_WARNING_PERCENT = 5.0;

    /** Whether the JIT compilers used enough of the measured period to make the rates too low. */
    public boolean stillWarmingUp() {
        return jitPercent > JIT_WARNING_PERCENT;
    }
}
