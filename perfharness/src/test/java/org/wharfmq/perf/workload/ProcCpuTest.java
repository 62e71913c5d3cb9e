package org.wharfmq.perf.workload;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** CPU figures from /proc: the process's whole time, its JIT compilers' share of it and its named threads'. */
@EnabledOnOs(OS.LINUX)
class ProcCpuTest {

    @Test
    void theJitCompilersOfThisJvmHaveUsedSomeButNotAllOfItsCpu() {
        long pid = ProcessHandle.current().pid();
        double jit = ProcCpu.jitSeconds(pid);
        double all = ProcCpu.cpuSeconds(pid);
        // a test JVM has compiled JUnit, Maven's runner and this harness by now: its compiler threads have run
        assertTrue(jit > 0, "JIT seconds " + jit);
        assertTrue(jit <= all, "JIT " + jit + " s is part of the process's " + all + " s");
    }

    @Test
    void aStepsJvmsIncludeTheProcessesStartedUnderThem() throws Exception {
        long self = ProcessHandle.current().pid();
        Process child = new ProcessBuilder("sleep", "60").start();
        try {
            java.util.List<Long> jvms = ProcCpu.withDescendants(java.util.List.of(self, self));
            assertEquals(self, jvms.get(0));
            assertTrue(jvms.contains(child.pid()), "the child " + child.pid() + " is one of " + jvms);
            assertEquals(jvms.size(), new java.util.HashSet<>(jvms).size(), "each once: " + jvms);
        } finally {
            child.destroyForcibly();
        }
    }

    @Test
    void aThreadsCpuIsCountedUnderItsName() throws Exception {
        long pid = ProcessHandle.current().pid();
        java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
        java.util.concurrent.CountDownLatch busy = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(1);
        long[] used = new long[1];
        Thread spinner = new Thread(() -> {
            while (mx.getCurrentThreadCpuTime() < 300_000_000L) { // until it has run 0.3 s on a core, however busy
                Thread.onSpinWait();
            }
            used[0] = mx.getCurrentThreadCpuTime(); // its time, read before the latch (happens-before)
            busy.countDown();
            try {
                done.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, CpuSampler.FLOW_THREADS + "probe-1");
        spinner.start();
        try {
            busy.await();
            java.util.Map<String, Boolean> seen = new java.util.HashMap<>();
            double flow = ProcCpu.threadSeconds(pid, seen, name -> name.startsWith(CpuSampler.FLOW_THREADS));
            // /proc counts in ticks of 10 ms, and the thread may have run a little more since
            assertTrue(flow >= used[0] / 1e9 - 0.02, "the flow thread's " + flow + " s against its own " + used[0] / 1e9 + " s");
            assertTrue(flow <= ProcCpu.cpuSeconds(pid), "a part of the process's time");
            assertTrue(seen.containsValue(true) && seen.containsValue(false), "each thread's name remembered: " + seen);
            assertEquals(0.0, ProcCpu.threadSeconds(pid, new java.util.HashMap<>(), name -> name.startsWith("no-such-")));
        } finally {
            done.countDown();
            spinner.join();
        }
    }

    @Test
    void aProcessThatDoesNotExistHasNoFigures() {
        assertTrue(Double.isNaN(ProcCpu.cpuSeconds(Long.MAX_VALUE)));
        assertTrue(Double.isNaN(ProcCpu.jitSeconds(Long.MAX_VALUE)));
        assertEquals(0, Double.compare(Double.NaN, ProcCpu.jitSeconds(-1)));
    }
}
