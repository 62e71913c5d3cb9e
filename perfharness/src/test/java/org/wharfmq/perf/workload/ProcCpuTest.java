package org.wharfmq.perf.workload;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** CPU figures from /proc: the process's whole time and its JIT compilers' share of it. */
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
    void aProcessThatDoesNotExistHasNoFigures() {
        assertTrue(Double.isNaN(ProcCpu.cpuSeconds(Long.MAX_VALUE)));
        assertTrue(Double.isNaN(ProcCpu.jitSeconds(Long.MAX_VALUE)));
        assertEquals(0, Double.compare(Double.NaN, ProcCpu.jitSeconds(-1)));
    }
}
