package org.wharfmq.perf.workload;

import io.netty.buffer.PooledByteBufAllocator;
import org.wharfmq.protocol.frame.LargeFrameMemory;
import io.netty.util.internal.PlatformDependent;
import org.wharfmq.server.queue.MemoryBudget;

import java.util.ArrayList;
import java.util.List;

/**
 * The perf server's memory through a run: the most its queues held against the server's memory budget for messages
 * (setting maxMemoryBytes), and the most direct memory its buffers used against the JVM's limit, sampled every
 * {@value #SAMPLE_MILLIS} ms on a thread of its own (a peak between two samples can be missed: a lower bound, which a
 * message of many MB, seconds on the wire, does not slip through). Printed as the server stops
 * ({@link #PREFIX}); the runner fails a step whose queues held more than the budget allows ({@link #check}).
 * State: the peaks, owned by the sampling thread, read once it has stopped.
 */
final class MemoryWatch implements AutoCloseable {

    /** Prefix of the line the server prints as it stops. */
    static final String PREFIX = "wharf-perf: memory";
    /** How often the memory is read. */
    static final long SAMPLE_MILLIS = 20;
    /**
     * What a message counts beyond its body in the budget: its headers and the server's objects for it (generous: the
     * check is about a budget broken by whole messages).
     */
    static final long MESSAGE_OVERHEAD = 64 * 1024;

    private final MemoryBudget budget;
    private final Thread sampler;
    private volatile boolean stopped;
    private long heldPeak;
    private long directPeak;

    private MemoryWatch(MemoryBudget budget) {
        this.budget = budget;
        this.sampler = new Thread(this::sample, "perf-memory-watch");
        sampler.setDaemon(true);
    }

    /** Watches {@code budget} and the JVM's direct memory until {@link #close()}. */
    static MemoryWatch start(MemoryBudget budget) {
        MemoryWatch w = new MemoryWatch(budget);
        w.sampler.start();
        return w;
    }

    private void sample() {
        while (!stopped) {
            heldPeak = Math.max(heldPeak, budget.usedBytes());
            directPeak = Math.max(directPeak, PooledByteBufAllocator.DEFAULT.metric().usedDirectMemory()
                    + LargeFrameMemory.JVM.spares().liveBytes());
            try {
                Thread.sleep(SAMPLE_MILLIS);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** Stops sampling and waits for the sampler, after which the peaks are final. */
    @Override
    public void close() throws InterruptedException {
        stopped = true;
        sampler.interrupt();
        sampler.join();
    }

    /** The server's line: {@code wharf-perf: memory held-peak=B budget=B direct-peak=B direct-max=B}. */
    String line() {
        return PREFIX + " held-peak=" + heldPeak + " budget=" + budget.maxBytes() + " direct-peak=" + directPeak
                + " direct-max=" + PlatformDependent.maxDirectMemory();
    }

    /** The line in words: {@code memory: queues held at most 200.0 MB of their 256.0 MB budget; ...}. */
    static String describe(String line) {
        return String.format(java.util.Locale.ROOT, "memory: its queues held at most %s of their %s budget (setting maxMemoryBytes);"
                        + " its buffers at most %s of the JVM's %s of direct memory", mb(WorkloadRunner.field(line, "held-peak")),
                mb(WorkloadRunner.field(line, "budget")), mb(WorkloadRunner.field(line, "direct-peak")),
                mb(WorkloadRunner.field(line, "direct-max")));
    }

    private static String mb(String bytes) {
        return String.format(java.util.Locale.ROOT, "%.1f MB", Long.parseLong(bytes) / 1e6);
    }

    /**
     * The runner's check of the server's {@link #line()} after a request/reply step with messages of {@code size} bytes:
     * its queues held no more than the budget and a request and a reply more. A queue keeps in memory the message that
     * takes it past its budget, and a message a waiting consumer takes is not paged (docs/resilience.md, "Paging"): so
     * the request queue and the reply queue may each cross the budget by one message. The direct memory is reported,
     * not checked: past its limit the server fails.
     */
    static List<String> check(String line, int size) {
        List<String> problems = new ArrayList<>();
        long held = Long.parseLong(WorkloadRunner.field(line, "held-peak"));
        long budget = Long.parseLong(WorkloadRunner.field(line, "budget"));
        long allowed = budget + 2 * (size + MESSAGE_OVERHEAD);
        if (held > allowed) {
            problems.add(String.format(java.util.Locale.ROOT, "the server's queues held %,d bytes of messages, more than its "
                    + "budget of %,d (setting maxMemoryBytes) and a %,d-byte request and reply", held, budget, size));
        }
        return problems;
    }
}
