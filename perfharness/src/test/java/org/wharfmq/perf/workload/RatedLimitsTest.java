package org.wharfmq.perf.workload;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The limits of the machine that stop RR-RATED's stepping before the response time does, each named with its fix. */
class RatedLimitsTest {

    private static final long GIB = 1024L * 1024 * 1024;
    private static final List<String> ONE_GIB_HEAPS = List.of("-Xmx1g");
    /** This machine when the steps were set: ulimit -n 20,000, 28,232 ports, pid_max 32,768, 24 GB. */
    private static final RatedLimits TWO_CORES = new RatedLimits(20_000, 28_232, 32_500, 22 * GIB, 24 * GIB);

    @Test
    void theStepsOfThisMachineRunUpToItsThreads() {
        for (int requesters : List.of(250, 1000, 2000, 4000, 8000, 12000)) {
            assertNull(TWO_CORES.past(requesters, 10, ONE_GIB_HEAPS), requesters + " requesters fit");
        }
        String past = TWO_CORES.past(16000, 10, ONE_GIB_HEAPS);
        assertTrue(past.startsWith(RatedLimits.THREADS + ": 16,000 requesters and 10 responders need about 33,820 "
                + "(2 a client: its own and its connection's reader; 100 a JVM, of 18), and the machine can start 32,500 more"), past);
        assertTrue(past.endsWith("raise kernel.pid_max and kernel.threads-max (sysctl)"), "the fix: " + past);
        assertEquals(RatedLimits.THREADS, RatedLimits.name(past));
    }

    @Test
    void eachLimitIsCheckedAndNamedWithItsFix() {
        String fds = new RatedLimits(1024, 28_232, 32_500, 22 * GIB, 24 * GIB).past(1000, 10, ONE_GIB_HEAPS);
        assertTrue(fds.startsWith(RatedLimits.FILE_DESCRIPTORS + ": 1,000 requesters and 10 responders need 1,510 in the "
                + "server (one a connection, 500 of its own), and a process may open 1,024 (ulimit -n): raise"), fds);
        assertNull(new RatedLimits(1024, 28_232, 32_500, 22 * GIB, 24 * GIB).past(500, 10, ONE_GIB_HEAPS), "510 + 500 fit in 1,024");

        String ports = new RatedLimits(100_000, 4_000, 100_000, 64 * GIB, 64 * GIB).past(4000, 10, ONE_GIB_HEAPS);
        assertTrue(ports.startsWith(RatedLimits.PORTS + ": 4,000 requesters and 10 responders need 4,010 connections"), ports);
        assertTrue(ports.contains("net.ipv4.ip_local_port_range"), ports);

        String memory = new RatedLimits(100_000, 28_232, 100_000, 10 * GIB, 24 * GIB).past(8000, 10, ONE_GIB_HEAPS);
        assertTrue(memory.startsWith(RatedLimits.MEMORY + ": 8,000 requesters and 10 responders need up to 14.2 GiB (10 JVMs "
                + "with heaps of up to 1.0 GiB each, and 17,020 threads' stacks at 256 KB), and the machine has 10.0 GiB"), memory);
        assertTrue(memory.contains("--jvm-opts -Xmx"), "the fix: " + memory);
        assertTrue(new RatedLimits(100_000, 28_232, 100_000, 10 * GIB, 24 * GIB).past(8000, 10, List.of()).contains(
                "heaps of up to 6.0 GiB each"), "without -Xmx a JVM may take a quarter of the machine");
    }

    @Test
    void aLimitTheMachineCannotTellIsNotChecked() {
        assertNull(new RatedLimits(-1, -1, -1, -1, -1).past(32000, 10, List.of()));
    }

    @Test
    void thisMachinesLimitsAreRead() {
        RatedLimits here = RatedLimits.ofThisMachine();
        assertTrue(here.describe(ONE_GIB_HEAPS).startsWith("this machine's limits for the steps: "), here.describe(ONE_GIB_HEAPS));
        if (System.getProperty("os.name").startsWith("Linux")) {
            assertTrue(here.fileDescriptors() > 0 && here.ports() > 0 && here.threads() > 0 && here.memoryBytes() > 0
                    && here.totalMemoryBytes() >= here.memoryBytes(), here.toString());
        }
    }
}
