package org.wharfmq.perf.workload;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Samples a few times a second the server processes' CPU time, their flow engine's threads' and the JIT compilers'
 * CPU time in every JVM of the step, so the CPU used during a driver's measured period (known only when the driver
 * reports it) can be read afterwards; and every JVM's peak resident set, kept past the JVM's exit.
 */
final class CpuSampler implements AutoCloseable {

    private static final long INTERVAL_MILLIS = 200;
    /**
     * How the flow engine's threads are named ({@code RunningFlow}: "wharf-flow-" with the flow's name, an input's and
     * an instance's number): the threads that run the flow's nodes, as a plain loop's thread runs the node's work.
     */
    static final String FLOW_THREADS = "wharf-flow-";

    private record Sample(long wallMillis, double cpuSeconds, double jitSeconds, double allSeconds,
                          double serverJitSeconds, double flowSeconds) {
    }

    private final List<Long> servers;
    private final List<Long> jvms;
    /** Per JVM, which of its thread ids are JIT compiler threads (sampler thread only). */
    private final Map<Long, Map<String, Boolean>> compilerThreads = new HashMap<>();
    /** Per JVM, its compiler threads' CPU so far (sampler thread only). */
    private final Map<Long, JitCounter> jitSoFar = new HashMap<>();
    /** Per server, which of its thread ids are the flow engine's threads (sampler thread only). */
    private final Map<Long, Map<String, Boolean>> flowThreads = new HashMap<>();
    private final List<Sample> samples = new ArrayList<>();
    /** Per JVM, the peak resident set last read, in bytes (written by the sampler thread). */
    private final Map<Long, Long> residentPeaks = new java.util.concurrent.ConcurrentHashMap<>();
    private final Thread thread;
    private volatile boolean running = true;

    /**
     * @param servers the server processes (two for RR-5's queue managers), whose CPU times are added up
     * @param jvms    every JVM of the step (servers and clients), whose JIT compiler threads are watched
     */
    CpuSampler(List<Long> servers, List<Long> jvms) {
        this.servers = List.copyOf(servers);
        this.jvms = List.copyOf(jvms);
        this.thread = new Thread(this::sample, "perf-cpu-" + servers.get(0));
        thread.setDaemon(true);
        thread.start();
    }

    private void sample() {
        Object pause = new Object();
        while (running) {
            double cpu = 0;
            double flow = 0;
            for (long server : servers) {
                cpu += ProcCpu.cpuSeconds(server);
                flow += ProcCpu.threadSeconds(server, flowThreads.computeIfAbsent(server, k -> new HashMap<>()),
                        name -> name.startsWith(FLOW_THREADS));
            }
            double jit = 0;
            double serverJit = 0;
            double all = 0;
            for (long jvm : jvms) {
                Map<String, Boolean> compilers = compilerThreads.computeIfAbsent(jvm, k -> new HashMap<>());
                JitCounter counter = jitSoFar.computeIfAbsent(jvm, k -> new JitCounter());
                double compiled = counter.update(ProcCpu.jitSeconds(jvm, compilers));
                jit += compiled;
                if (servers.contains(jvm)) {
                    serverJit += compiled;
                }
                all += ProcCpu.cpuSeconds(jvm);
                long peak = ProcCpu.peakResidentBytes(jvm);
                if (peak > 0) {
                    residentPeaks.merge(jvm, peak, Math::max);
                }
            }
            synchronized (samples) {
                samples.add(new Sample(System.currentTimeMillis(), cpu, jit, all, serverJit, flow));
            }
            synchronized (pause) {
                try {
                    pause.wait(INTERVAL_MILLIS);   // a sampling period, not a synchronisation
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }

    /**
     * Server CPU seconds, wall seconds, JIT compiler CPU seconds (all the JVMs), CPU seconds of all the JVMs, the
     * servers' JIT compiler CPU seconds (part of the first) and their flow engine's threads' CPU seconds (part of the
     * first; 0 without a flow) between the samples nearest inside [from, to]; NaN when unknown.
     */
    double[] between(long fromMillis, long toMillis) {
        Sample first = null;
        Sample last = null;
        synchronized (samples) {
            for (Sample s : samples) {
                if (s.wallMillis() >= fromMillis && first == null) {
                    first = s;
                }
                if (s.wallMillis() <= toMillis) {
                    last = s;
                }
            }
        }
        if (first == null || last == null || last.wallMillis() <= first.wallMillis()) {
            return new double[] {Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN};
        }
        return new double[] {last.cpuSeconds() - first.cpuSeconds(), (last.wallMillis() - first.wallMillis()) / 1000.0,
                last.jitSeconds() - first.jitSeconds(), last.allSeconds() - first.allSeconds(),
                last.serverJitSeconds() - first.serverJitSeconds(), last.flowSeconds() - first.flowSeconds()};
    }

    /** The peak resident set of the JVM {@code pid} as last sampled (its peak up to then), in bytes; -1 when unknown. */
    long peakResidentBytes(long pid) {
        return residentPeaks.getOrDefault(pid, -1L);
    }

    @Override
    public void close() {
        running = false;
        thread.interrupt();
    }

    /**
     * One JVM's JIT compiler CPU seconds so far, which never falls: HotSpot stops the compiler threads it no longer
     * needs, and a stopped thread's time leaves /proc with it, so the sum over the live ones can drop between two
     * samples; each sample adds only what that sum grew by (a thread's last moments before it stopped are missed).
     */
    static final class JitCounter {
        private double lastLive = Double.NaN;
        private double total;

        /** @param liveThreads the live compiler threads' CPU seconds now, or NaN when /proc cannot tell */
        double update(double liveThreads) {
            if (Double.isNaN(liveThreads)) {
                return Double.NaN;
            }
            total += Double.isNaN(lastLive) ? liveThreads : Math.max(0, liveThreads - lastLive);
            lastLive = liveThreads;
            return total;
        }
    }
}
