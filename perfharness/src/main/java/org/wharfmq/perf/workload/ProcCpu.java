package org.wharfmq.perf.workload;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * CPU time of a process from {@code /proc/PID/stat} (user + system, all threads), on Linux. Elsewhere the
 * figures are unavailable and the report says so.
 */
final class ProcCpu {

    /** Clock ticks per second of {@code /proc} times; 100 on every Linux the harness meets. */
    private static final double TICKS_PER_SECOND = 100.0;

    private ProcCpu() {
    }

    /** CPU seconds used so far by {@code pid}, or NaN when /proc cannot tell. */
    static double cpuSeconds(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            // the command name (field 2) may contain spaces: count fields after its closing parenthesis
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            long utime = Long.parseLong(f[11]);
            long stime = Long.parseLong(f[12]);
            return (utime + stime) / TICKS_PER_SECOND;
        } catch (IOException | RuntimeException e) {
            return Double.NaN;
        }
    }
}
