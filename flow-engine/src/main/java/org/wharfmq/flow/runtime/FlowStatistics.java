package org.wharfmq.flow.runtime;

import org.wharfmq.flow.FlowDefinition;
import org.wharfmq.flow.Node;

import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * A running flow's counters: invocations (messages read), failures (invocations rolled back or failed), backouts
 * (messages sent to the failure terminal, backout queue or dead-letter queue), reconnections, the XA transactions a
 * coordinated flow began, and per node. Counting is always
 * on (a few adds per node); elapsed and CPU time are measured only while {@link #timing(boolean) timing} is on,
 * because reading the thread CPU clock per node costs measurable throughput.
 */
public final class FlowStatistics {

    private final Map<Node, NodeStatistics> byNode = new IdentityHashMap<>();
    private final Map<String, NodeStatistics> byName = new LinkedHashMap<>();
    final LongAdder invocations = new LongAdder();
    final LongAdder failures = new LongAdder();
    final LongAdder backouts = new LongAdder();
    final LongAdder reconnects = new LongAdder();
    final LongAdder xaTransactions = new LongAdder();
    final LongAdder elapsedNanos = new LongAdder();
    final LongAdder cpuNanos = new LongAdder();
    private volatile boolean timing;

    FlowStatistics(FlowDefinition definition, boolean timing) {
        for (Node node : definition.nodes().values()) {
            NodeStatistics stats = new NodeStatistics(node.name(), node.kind());
            byNode.put(node, stats);
            byName.put(node.name(), stats);
        }
        this.timing = timing;
    }

    NodeStatistics of(Node node) {
        return byNode.get(node);
    }

    /** Switches elapsed/CPU timing on or off while the flow runs. */
    public void timing(boolean on) {
        timing = on;
    }

    /** Whether elapsed/CPU time is measured. */
    public boolean timing() {
        return timing;
    }

    /** Messages the flow read. */
    public long invocations() {
        return invocations.sum();
    }

    /** Invocations that failed (and were rolled back, or backed out when not transactional). */
    public long failures() {
        return failures.sum();
    }

    /** Times an instance lost its connection and set out to open a new one. */
    public long reconnects() {
        return reconnects.sum();
    }

    /**
     * XA transactions the flow's coordinated readers began (docs/flows.md, "Coordinated transactions"): one per
     * transactional invocation, and the empty ones, which found no message (an idle JMSInput reader of an XA provider's,
     * one per receiveTimeout; a Wharf reader's whose message went before its read); 0 for a flow that is not
     * coordinated.
     */
    public long xaTransactions() {
        return xaTransactions.sum();
    }

    /** Messages handed to the failure terminal, backout queue or dead-letter queue. */
    public long backouts() {
        return backouts.sum();
    }

    /** Elapsed time of whole invocations, in ns (timing on only). */
    public long elapsedNanos() {
        return elapsedNanos.sum();
    }

    /** CPU time of whole invocations, in ns (timing on only). */
    public long cpuNanos() {
        return cpuNanos.sum();
    }

    /** Per node, in definition order. */
    public Collection<NodeStatistics> nodes() {
        return Collections.unmodifiableCollection(byName.values());
    }

    /** A node's counters by name, or null. */
    public NodeStatistics node(String name) {
        return byName.get(name);
    }

    /** A table for {@code wharf flow stats}. */
    public String render(String flowName) {
        StringBuilder sb = new StringBuilder();
        long n = invocations();
        sb.append(String.format("flow %s: invocations %d, failures %d, backouts %d, reconnects %d, xa transactions %d,"
                + " timing %s%n", flowName, n, failures(), backouts(), reconnects(), xaTransactions(),
                timing ? "on" : "off"));
        if (n > 0 && elapsedNanos() > 0) {
            sb.append(String.format("  per invocation: elapsed %.1f us, cpu %.1f us%n", elapsedNanos() / 1e3 / n,
                    cpuNanos() / 1e3 / n));
        }
        // the columns as wide as their longest name (a DatabaseRetrieve node's kind is 16 characters)
        int nodeWidth = 24;
        int kindWidth = 12;
        for (NodeStatistics s : byName.values()) {
            nodeWidth = Math.max(nodeWidth, s.node().length());
            kindWidth = Math.max(kindWidth, s.kind().length());
        }
        String names = "  %-" + nodeWidth + "s %-" + kindWidth + "s ";
        sb.append(String.format(names + "%12s %10s %14s %14s%n", "node", "kind", "invocations", "failures",
                "elapsed us/inv", "cpu us/inv"));
        for (NodeStatistics s : byName.values()) {
            long inv = s.invocations();
            sb.append(String.format(names + "%12d %10d %14.1f %14.1f%n", s.node(), s.kind(), inv, s.failures(),
                    inv == 0 ? 0.0 : s.elapsedNanos() / 1e3 / inv, inv == 0 ? 0.0 : s.cpuNanos() / 1e3 / inv));
        }
        return sb.toString();
    }
}
