package org.wharfmq.flow.runtime;

import java.util.concurrent.atomic.LongAdder;

/**
 * One node's counters: invocations, failures and, when timing is on, its own elapsed and CPU time (time spent in
 * the nodes it propagates to is theirs, not its).
 */
public final class NodeStatistics {

    private final String node;
    private final String kind;
    final LongAdder invocations = new LongAdder();
    final LongAdder failures = new LongAdder();
    final LongAdder elapsedNanos = new LongAdder();
    final LongAdder cpuNanos = new LongAdder();

    NodeStatistics(String node, String kind) {
        this.node = node;
        this.kind = kind;
    }

    /** The node's name. */
    public String node() {
        return node;
    }

    /** The node's kind. */
    public String kind() {
        return kind;
    }

    /** Assemblies the node received. */
    public long invocations() {
        return invocations.sum();
    }

    /** Assemblies whose processing failed in or below the node. */
    public long failures() {
        return failures.sum();
    }

    /** Elapsed time in the node itself, in ns (0 while timing is off). */
    public long elapsedNanos() {
        return elapsedNanos.sum();
    }

    /** CPU time in the node itself, in ns (0 while timing is off). */
    public long cpuNanos() {
        return cpuNanos.sum();
    }
}
