package org.wharfmq.sample.flow;

import org.wharfmq.flow.FlowDefinition;
import org.wharfmq.flow.FlowFactory;
import org.wharfmq.flow.node.InputNode;
import org.wharfmq.flow.node.LabelNode;
import org.wharfmq.flow.node.OutputNode;
import org.wharfmq.flow.node.RouteToLabelNode;

/**
 * The routing sample: a RouteToLabel node sends each message to the Label node its user property {@code Region}
 * names, and each label to a queue of its own.
 *
 * <ul>
 *   <li>{@code ORDERS.IN}: messages with the user property {@code Region} ({@code EU}, {@code US}).</li>
 *   <li>{@code Region=EU} to {@code ORDERS.EU}, {@code Region=US} to {@code ORDERS.US}, unchanged.</li>
 *   <li>Any other region, or none: the RouteToLabel node's {@code default} terminal, to {@code ORDERS.OTHER}.</li>
 * </ul>
 *
 * A label is reached by its name, not by a wire: a new region is a Label node and its output, nothing else.
 */
public final class RouteOrdersFlow implements FlowFactory {

    /** Where the orders arrive. */
    public static final String INPUT_QUEUE = "ORDERS.IN";
    /** The user property that names the label. */
    public static final String REGION = "Region";

    @Override
    public FlowDefinition create() {
        return FlowDefinition.builder("route-orders")
                .node("in", InputNode.queue(INPUT_QUEUE))
                .node("route", RouteToLabelNode.byUserProperty(REGION))
                .node("EU", new LabelNode("EU"))
                .node("US", new LabelNode("US"))
                .node("eu", OutputNode.queue("ORDERS.EU"))
                .node("us", OutputNode.queue("ORDERS.US"))
                .node("other", OutputNode.queue("ORDERS.OTHER"))
                .wire("in", "out", "route")
                .wire("EU", "out", "eu")
                .wire("US", "out", "us")
                .wire("route", "default", "other")
                .build();
    }
}
