package org.wharfmq.perf.report;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/** One line describing the machine a run was measured on (cores, CPU model, memory, OS, JVM). */
public final class Machine {

    private Machine() {
    }

    /** The machine's load average over the last minute ({@code /proc/loadavg}), or NaN where there is none. */
    public static double loadAverage() {
        try {
            return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+")[0]);
        } catch (IOException | RuntimeException e) {
            return Double.NaN;
        }
    }

    /** E.g. {@code 2 cores (Intel Xeon ...), 23 GB RAM, Linux 6.1 amd64, OpenJDK 17.0.15}. */
    public static String describe() {
        String model = "unknown CPU";
        long memoryKb = 0;
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (line.startsWith("model name")) {
                    model = line.substring(line.indexOf(':') + 1).trim();
                    break;
                }
            }
            for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
                if (line.startsWith("MemTotal:")) {
                    memoryKb = Long.parseLong(line.replaceAll("[^0-9]", ""));
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux: the CPU model and memory stay unknown
        }
        return String.format(Locale.ROOT, "%d cores (%s), %s RAM, %s %s %s, %s %s",
                Runtime.getRuntime().availableProcessors(), model,
                memoryKb > 0 ? Math.round(memoryKb / 1024.0 / 1024.0) + " GB" : "unknown",
                System.getProperty("os.name"), System.getProperty("os.version"), System.getProperty("os.arch"),
                System.getProperty("java.vm.name"), System.getProperty("java.version"));
    }
}
