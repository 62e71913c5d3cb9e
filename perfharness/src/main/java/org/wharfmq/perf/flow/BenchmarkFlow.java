package org.wharfmq.perf.flow;

import org.wharfmq.flow.Domain;
import org.wharfmq.flow.FlowFactory;
import org.wharfmq.flow.FlowMessage;
import org.wharfmq.flow.Folder;
import org.wharfmq.flow.MessageAssembly;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Locale;
import java.util.function.UnaryOperator;

/**
 * The flows of the broker workloads ({@code shared/specs/benchmarks.md}, "Broker (flow) workloads"), built into
 * the harness: the server the runner starts deploys the one its workload names
 * ({@code wharf perf server --flow F-PASS}).
 */
public enum BenchmarkFlow {
    F_PASS(new PassThroughFlow(), PassThroughFlow.INPUT_QUEUE, PassThroughFlow.OUTPUT_QUEUE, null),
    F_HDR(new HeaderFlow(), HeaderFlow.INPUT_QUEUE, HeaderFlow.OUTPUT_QUEUE, HeaderFlow::setHeaders),
    F_PUB(new PublicationFlow(), PublicationFlow.INPUT_QUEUE, null, null);

    private final FlowFactory factory;
    private final String inputQueue;
    private final String outputQueue;
    private final UnaryOperator<MessageAssembly> work;

    BenchmarkFlow(FlowFactory factory, String inputQueue, String outputQueue, UnaryOperator<MessageAssembly> work) {
        this.factory = factory;
        this.inputQueue = inputQueue;
        this.outputQueue = outputQueue;
        this.work = work;
    }

    /** The flow's name and workload id, e.g. {@code F-PASS}. */
    public String id() {
        return name().replace('_', '-');
    }

    /** Builds the flow. */
    public FlowFactory factory() {
        return factory;
    }

    /** Where the clients put the input messages. */
    public String inputQueue() {
        return inputQueue;
    }

    /** Where the clients take the outputs; null for F-PUB, whose outputs are publications. */
    public String outputQueue() {
        return outputQueue;
    }

    /** The flow of workload {@code id} ({@code F-PASS}, case ignored). */
    public static BenchmarkFlow of(String id) {
        return valueOf(id.toUpperCase(Locale.ROOT).replace('-', '_'));
    }

    /**
     * Whether the flow does work of its own that a loop without messaging can time: F-PASS does none (reading and
     * writing the message is all of it), so it has no ceiling.
     */
    public boolean hasCeiling() {
        return work != null;
    }

    /**
     * The ceiling: the flow's own work on {@code body} in a plain loop on this thread, no messaging, no flow
     * engine around it.
     *
     * @param warmupMillis time spent looping before the measurement (the JIT compiles the loop)
     * @param runMillis    time measured
     */
    public Ceiling ceiling(byte[] body, long warmupMillis, long runMillis) {
        if (work == null) {
            throw new IllegalStateException(id() + " has no work of its own to time without messaging");
        }
        loop(body, warmupMillis);
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long cpuStart = threads.getCurrentThreadCpuTime();
        long start = System.nanoTime();
        long done = loop(body, runMillis);
        double seconds = (System.nanoTime() - start) / 1e9;
        long cpuNanos = threads.getCurrentThreadCpuTime() - cpuStart;
        return new Ceiling(done / seconds, done == 0 ? Double.NaN : cpuNanos / 1000.0 / done);
    }

    private long loop(byte[] body, long millis) {
        long deadline = System.nanoTime() + millis * 1_000_000;
        long done = 0;
        long sink = 0;
        while (System.nanoTime() < deadline) {
            for (int i = 0; i < 100; i++) {
                // what the input node hands the flow: the body and the JMS header fields the requester set
                FlowMessage message = FlowMessage.ofBytes(Domain.BLOB, body);
                message.setCorrelationId("perf-ceiling");
                message.setUserProperty("seq", done);
                MessageAssembly input = MessageAssembly.of(message, Folder.empty("Environment"));
                input.freeze();
                sink += work.apply(input).message().bodyBytes().length;
                done++;
            }
        }
        if (sink < 0) {
            throw new AssertionError(); // keeps the results alive for the JIT
        }
        return done;
    }

    /**
     * A ceiling measurement.
     *
     * @param rate            operations per second on one thread
     * @param cpuMicrosPerOp  CPU microseconds per operation
     */
    public record Ceiling(double rate, double cpuMicrosPerOp) {
    }
}
