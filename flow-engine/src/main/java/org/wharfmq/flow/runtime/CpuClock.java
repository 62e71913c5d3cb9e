package org.wharfmq.flow.runtime;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/** The current thread's CPU time, for statistics; 0 where the JVM does not measure it. */
final class CpuClock {

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final boolean SUPPORTED = THREADS.isCurrentThreadCpuTimeSupported();

    private CpuClock() {
    }

    static long now() {
        return SUPPORTED ? THREADS.getCurrentThreadCpuTime() : 0;
    }
}
