package org.wharfmq.server.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import org.wharfmq.flow.runtime.FlowStatistics;
import org.wharfmq.flow.runtime.NodeStatistics;
import org.wharfmq.server.flow.DeployedFlow;
import org.wharfmq.server.flow.FlowHost;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.ToDoubleFunction;

/**
 * The meters of each deployed message flow and of its nodes ({@code wharf_flow_invocations_total{flow="orders"}},
 * {@code wharf_flow_node_invocations_total{flow="orders",node="route",kind="route"}}), read from the counters the
 * flow keeps anyway ({@link FlowStatistics}, what {@code wharf flow stats} prints). Flows are deployed and undeployed
 * at run time: {@link #refresh()} registers the meters of new ones and removes those of gone ones. Elapsed time is
 * counted only while a flow's timing is on ({@code wharf flow stats FLOW on}).
 */
final class FlowMeters {

    /** A flow's meters, with the statistics they read (a flow deployed again under its name has new ones). */
    private record Registered(FlowStatistics statistics, List<Meter> meters) {
    }

    private final MeterRegistry registry;
    private final FlowHost flows;
    /** Guarded by this. */
    private final Map<String, Registered> registered = new HashMap<>();

    FlowMeters(MeterRegistry registry, FlowHost flows) {
        this.registry = registry;
        this.flows = flows;
    }

    /** Registers the meters of newly deployed flows, removes those of undeployed ones. */
    synchronized void refresh() {
        Set<String> deployed = new HashSet<>();
        for (DeployedFlow flow : flows.flows()) {
            deployed.add(flow.name());
            FlowStatistics statistics = flow.running().statistics();
            Registered known = registered.get(flow.name());
            if (known != null && known.statistics() != statistics) {
                known.meters().forEach(registry::remove);
                known = null;
            }
            if (known == null) {
                registered.put(flow.name(), new Registered(statistics, register(flow.name(), statistics)));
            }
        }
        for (Iterator<Map.Entry<String, Registered>> it = registered.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<String, Registered> flow = it.next();
            if (!deployed.contains(flow.getKey())) {
                flow.getValue().meters().forEach(registry::remove);
                it.remove();
            }
        }
    }

    private List<Meter> register(String flow, FlowStatistics stats) {
        Tags tags = Tags.of("flow", flow);
        List<Meter> meters = new ArrayList<>();
        meters.add(counter("wharf.flow.invocations", "Messages the flow read", tags, stats,
                FlowStatistics::invocations, null));
        meters.add(counter("wharf.flow.failures", "Invocations that failed", tags, stats, FlowStatistics::failures,
                null));
        meters.add(counter("wharf.flow.backouts", "Messages sent to the failure terminal, backout or dead-letter "
                + "queue", tags, stats, FlowStatistics::backouts, null));
        meters.add(counter("wharf.flow.reconnects", "Times the flow's instances reconnected", tags, stats,
                FlowStatistics::reconnects, null));
        meters.add(counter("wharf.flow.xa.transactions", "XA transactions the flow's coordinated instances began",
                tags, stats, FlowStatistics::xaTransactions, null));
        meters.add(counter("wharf.flow.elapsed", "Time spent in invocations while timing is on", tags, stats,
                s -> s.elapsedNanos() / 1e9, "seconds"));
        for (NodeStatistics node : stats.nodes()) {
            Tags nodeTags = tags.and("node", node.node(), "kind", node.kind());
            meters.add(counter("wharf.flow.node.invocations", "Messages the node handled", nodeTags, node,
                    NodeStatistics::invocations, null));
            meters.add(counter("wharf.flow.node.failures", "Failures the node raised", nodeTags, node,
                    NodeStatistics::failures, null));
            meters.add(counter("wharf.flow.node.elapsed", "Time spent in the node while timing is on", nodeTags,
                    node, n -> n.elapsedNanos() / 1e9, "seconds"));
        }
        return meters;
    }

    private <T> FunctionCounter counter(String name, String description, Tags tags, T source, ToDoubleFunction<T> f,
                                        String unit) {
        return FunctionCounter.builder(name, source, f).tags(tags).description(description).baseUnit(unit)
                .register(registry);
    }
}
