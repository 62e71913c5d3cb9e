package org.wharfmq.perf.workload;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Predicate;

/**
 * CPU time of a process from {@code /proc/PID/stat} (user + system, all threads), and its peak resident set, on
 * Linux. Elsewhere the figures are unavailable and the report says so.
 */
final class ProcCpu {

    /** Clock ticks per second of {@code /proc} times; 100 on every Linux the harness meets. */
    private static final double TICKS_PER_SECOND = 100.0;

    private ProcCpu() {
    }

    /**
     * {@code pids} and every process started under them, still running (each once, in that order): the JVMs whose CPU
     * a step uses. The replicated peer's launcher ({@link ReplicatedServerMain}) runs its three members as child
     * processes: without them a step's JIT and all-JVM figures left out the members, where most of its CPU goes.
     */
    static java.util.List<Long> withDescendants(java.util.List<Long> pids) {
        java.util.LinkedHashSet<Long> all = new java.util.LinkedHashSet<>(pids);
        for (long pid : pids) {
            ProcessHandle.of(pid).ifPresent(p -> p.descendants().forEach(d -> all.add(d.pid())));
        }
        return java.util.List.copyOf(all);
    }

    /** CPU seconds used so far by {@code pid}, or NaN when /proc cannot tell. */
    static double cpuSeconds(long pid) {
        try {
            return seconds(Files.readString(Path.of("/proc", Long.toString(pid), "stat")));
        } catch (IOException | RuntimeException e) {
            return Double.NaN;
        }
    }

    /**
     * CPU seconds used so far by the JIT compiler threads of the JVM {@code pid} (HotSpot names them
     * "C1 CompilerThread<i>" and "C2 CompilerThread<i>"), or NaN when /proc cannot tell. Compilation during a
     * measurement takes CPU from the messaging: it says the warm-up was too short.
     */
    static double jitSeconds(long pid) {
        return jitSeconds(pid, new HashMap<>());
    }

    /**
     * {@link #jitSeconds(long)} for a sampler that asks again and again: {@code compilerThreads} remembers, from
     * one call to the next for the same process, which thread ids are compiler threads, so each thread's name is
     * read once rather than a few times a second for every thread of a busy client JVM.
     */
    static double jitSeconds(long pid, Map<String, Boolean> compilerThreads) {
        return threadSeconds(pid, compilerThreads, name -> name.contains("CompilerThre"));
    }

    /**
     * CPU seconds used so far by the live threads of {@code pid} whose name ({@code /proc/PID/task/TID/comm}: the
     * first 15 characters of the Java thread's name) {@code named} accepts, or NaN when /proc cannot tell.
     * {@code matching} remembers, from one call to the next for the same process, which thread ids matched, so each
     * thread's name is read once. A thread that has ended takes its time with it.
     */
    static double threadSeconds(long pid, Map<String, Boolean> matching, Predicate<String> named) {
        Path tasks = Path.of("/proc", Long.toString(pid), "task");
        double total = 0;
        try (DirectoryStream<Path> threads = Files.newDirectoryStream(tasks)) {
            for (Path thread : threads) {
                try {
                    Boolean matches = matching.get(thread.getFileName().toString());
                    if (matches == null) {
                        matches = named.test(Files.readString(thread.resolve("comm")).strip());
                        matching.put(thread.getFileName().toString(), matches);
                    }
                    if (matches) {
                        total += seconds(Files.readString(thread.resolve("stat")));
                    }
                } catch (IOException e) {
                    // the thread ended between the listing and the read: its time is gone with it
                }
            }
            return total;
        } catch (IOException | RuntimeException e) {
            return Double.NaN;
        }
    }

    /**
     * The most memory {@code pid} has had resident so far ({@code VmHWM} in {@code /proc/PID/status}: the kernel's
     * own peak, which no sampling misses), in bytes, or -1 when /proc cannot tell (not Linux, or it has ended).
     */
    static long peakResidentBytes(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
                if (line.startsWith("VmHWM:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
            return -1;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** utime + stime of a {@code stat} line, in seconds. */
    private static double seconds(String stat) {
        // the command name (field 2) may contain spaces: count fields after its closing parenthesis
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        long utime = Long.parseLong(f[11]);
        long stime = Long.parseLong(f[12]);
        return (utime + stime) / TICKS_PER_SECOND;
    }
}
