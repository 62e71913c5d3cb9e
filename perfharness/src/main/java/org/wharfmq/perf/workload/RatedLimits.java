package org.wharfmq.perf.workload;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * The limits of the driver's machine that RR-RATED's steps reach, besides the server's response time: every requester
 * (and responder) is a connection to the server, a file descriptor in the server and in its own JVM, an ephemeral port
 * and two threads; every driver JVM a heap. A step past one of them is not run ({@link #past}): the stepping stops
 * before it and says which limit stopped it, with the fix. The figures are this machine's when the step is about to
 * start (the threads running and the memory available change as other work comes and goes); -1 where it cannot tell
 * (not Linux), and that limit is not checked.
 *
 * @param fileDescriptors descriptors a process may open ({@code ulimit -n}; the child JVMs inherit it, and on Linux
 *                        the JVM raises its soft limit to the hard one)
 * @param ports           the ephemeral ports ({@code net.ipv4.ip_local_port_range}): each connection to the server's
 *                        one address and port takes one of them
 * @param threads         threads the machine can still start: the least of {@code kernel.pid_max},
 *                        {@code kernel.threads-max} and the processes a user may run ({@code ulimit -u}), less the
 *                        threads running now
 * @param memoryBytes     memory the machine can still give ({@code MemAvailable})
 * @param totalMemoryBytes the machine's memory ({@code MemTotal}): a JVM without {@code -Xmx} may take a quarter of it
 */
record RatedLimits(long fileDescriptors, long ports, long threads, long memoryBytes, long totalMemoryBytes) {

    /** File descriptors a JVM of the step holds besides its connections: its jars, journal, listeners, selectors. */
    static final int RESERVED_FILE_DESCRIPTORS = 500;
    /**
     * Threads a requester or responder takes in its JVM: its own and its connection's reader (Wharf's client and
     * ActiveMQ Classic's have a reader thread per connection; Artemis's shares a few).
     */
    static final int THREADS_PER_CLIENT = 2;
    /** Threads of a JVM besides its clients': the garbage collector's, the JIT compilers', the server's own. */
    static final int THREADS_PER_JVM = 100;
    /** Memory a thread's stack takes: the part of its 1 MB stack a thread touches, with room. */
    static final long STACK_BYTES_PER_THREAD = 256 * 1024;
    /** The JVMs of a step besides the requesters': the server and the responders. */
    static final int OTHER_JVMS = 2;

    /** The limits {@link #past} names, each reason beginning with one of them and a colon ({@link #name}). */
    static final String FILE_DESCRIPTORS = "past the machine's file descriptors";
    static final String PORTS = "past the machine's ephemeral ports";
    static final String THREADS = "past the machine's threads";
    static final String MEMORY = "past the machine's memory";

    /** This machine's limits now; -1 for each it cannot tell. */
    static RatedLimits ofThisMachine() {
        long fds = -1;
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.UnixOperatingSystemMXBean unix) {
            fds = unix.getMaxFileDescriptorCount();
        }
        return new RatedLimits(fds, portsHere(), threadsHere(), meminfo("MemAvailable:"), meminfo("MemTotal:"));
    }

    /** The ephemeral ports, or -1. */
    private static long portsHere() {
        try {
            String[] lowHigh = read("/proc/sys/net/ipv4/ip_local_port_range").trim().split("\\s+");
            return Long.parseLong(lowHigh[1]) - Long.parseLong(lowHigh[0]) + 1;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** The threads the machine can still start, or -1. */
    private static long threadsHere() {
        try {
            long most = Math.min(Long.parseLong(read("/proc/sys/kernel/pid_max").trim()),
                    Long.parseLong(read("/proc/sys/kernel/threads-max").trim()));
            long userProcesses = limit("Max processes");
            if (userProcesses > 0) {
                most = Math.min(most, userProcesses);
            }
            String running = read("/proc/loadavg").trim().split("\\s+")[3]; // "0.52 0.58 0.59 2/345 12345": 345 threads
            return most - Long.parseLong(running.substring(running.indexOf('/') + 1));
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /**
     * Why a step of {@code requesters} and {@code responders}, the child JVMs given {@code jvmOptions}, cannot run on
     * this machine: the first limit it passes (file descriptors, ports, threads, memory), as
     * {@code "past the machine's LIMIT: what it needs, what the machine has, the fix"}; null when it fits them all.
     */
    String past(int requesters, int responders, List<String> jvmOptions) {
        int connections = requesters + responders;
        String step = String.format(Locale.ROOT, "%,d requesters and %,d responders", requesters, responders);
        long descriptors = connections + RESERVED_FILE_DESCRIPTORS;
        if (fileDescriptors >= 0 && descriptors > fileDescriptors) {
            return String.format(Locale.ROOT, "%s: %s need %,d in the server (one a connection, %,d of its own), and a "
                            + "process may open %,d (ulimit -n): raise the hard limit (ulimit -Hn, or nofile in "
                            + "/etc/security/limits.conf) for the shell that runs the harness", FILE_DESCRIPTORS, step,
                    descriptors, RESERVED_FILE_DESCRIPTORS, fileDescriptors);
        }
        if (ports >= 0 && connections > ports) {
            return String.format(Locale.ROOT, "%s: %s need %,d connections to the server's one address and port, an "
                            + "ephemeral port each, and the machine has %,d (net.ipv4.ip_local_port_range): widen the range "
                            + "(sysctl -w net.ipv4.ip_local_port_range)", PORTS, step, connections, ports);
        }
        int jvms = RatedSteps.jvms(requesters) + OTHER_JVMS;
        long threadsNeeded = (long) THREADS_PER_CLIENT * connections + (long) THREADS_PER_JVM * jvms;
        if (threads >= 0 && threadsNeeded > threads) {
            return String.format(Locale.ROOT, "%s: %s need about %,d (%d a client: its own and its connection's reader; %d "
                            + "a JVM, of %d), and the machine can start %,d more (the least of kernel.pid_max, "
                            + "kernel.threads-max and ulimit -u, less the threads running): raise kernel.pid_max and "
                            + "kernel.threads-max (sysctl)", THREADS, step, threadsNeeded, THREADS_PER_CLIENT, THREADS_PER_JVM,
                    jvms, threads);
        }
        long heap = heapPerJvm(jvmOptions);
        long memoryNeeded = jvms * heap + threadsNeeded * STACK_BYTES_PER_THREAD;
        if (memoryBytes >= 0 && heap >= 0 && memoryNeeded > memoryBytes) {
            return String.format(Locale.ROOT, "%s: %s need up to %s (%d JVMs with heaps of up to %s each, and %,d threads' "
                            + "stacks at %d KB), and the machine has %s available (MemAvailable): give the child JVMs "
                            + "smaller heaps (--jvm-opts -Xmx) or the machine more memory", MEMORY, step, gib(memoryNeeded),
                    jvms, gib(heap), threadsNeeded, STACK_BYTES_PER_THREAD / 1024, gib(memoryBytes));
        }
        return null;
    }

    /** The limits in a line, for the progress before a rated run's steps. */
    String describe(List<String> jvmOptions) {
        return String.format(Locale.ROOT, "this machine's limits for the steps: %s file descriptors a process (ulimit -n), "
                        + "%s ephemeral ports, %s more threads, %s of memory available; child JVM heaps of up to %s",
                known(fileDescriptors), known(ports), known(threads), memoryBytes < 0 ? "unknown" : gib(memoryBytes),
                heapPerJvm(jvmOptions) < 0 ? "unknown" : gib(heapPerJvm(jvmOptions)));
    }

    /** The limit a reason of {@link #past} names (its words before the first colon), for a table's cell. */
    static String name(String reason) {
        int colon = reason.indexOf(':');
        return colon < 0 ? reason : reason.substring(0, colon);
    }

    /** The heap a child JVM may take: its {@code -Xmx}, else the JVM's default, a quarter of the machine's memory. */
    private long heapPerJvm(List<String> jvmOptions) {
        long given = Target.maxHeap(jvmOptions);
        return given >= 0 ? given : totalMemoryBytes < 0 ? -1 : totalMemoryBytes / 4;
    }

    private static String gib(long bytes) {
        return String.format(Locale.ROOT, "%.1f GiB", bytes / (1024.0 * 1024 * 1024));
    }

    private static String known(long n) {
        return n < 0 ? "unknown" : String.format(Locale.ROOT, "%,d", n);
    }

    /**
     * A {@code /proc} file's text, line by line: {@code Files.readString} reads a {@code /proc/sys} file short (its
     * first byte or so, as the file's reported size misleads it).
     */
    private static String read(String file) throws IOException {
        return String.join("\n", Files.readAllLines(Path.of(file)));
    }

    /** A {@code /proc/meminfo} figure in bytes, or -1. */
    private static long meminfo(String field) {
        try {
            for (String line : read("/proc/meminfo").split("\n")) {
                if (line.startsWith(field)) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
            return -1;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** The soft value of a line of {@code /proc/self/limits} ({@code "Max processes"}), or -1 (unlimited or unknown). */
    private static long limit(String name) throws IOException {
        for (String line : read("/proc/self/limits").split("\n")) {
            if (line.startsWith(name)) {
                String soft = line.substring(name.length()).trim().split("\\s+")[0];
                return soft.equals("unlimited") ? -1 : Long.parseLong(soft);
            }
        }
        return -1;
    }
}
