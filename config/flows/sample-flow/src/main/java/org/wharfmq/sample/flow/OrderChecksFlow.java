package org.wharfmq.sample.flow;

import org.wharfmq.flow.Domain;
import org.wharfmq.flow.FlowDefinition;
import org.wharfmq.flow.FlowFactory;
import org.wharfmq.flow.node.InputNode;
import org.wharfmq.flow.node.OutputNode;
import org.wharfmq.flow.node.ThrowNode;
import org.wharfmq.flow.node.TraceNode;
import org.wharfmq.flow.node.TryCatchNode;

/**
 * The error-handling sample: a TryCatch node around the checks of a JSON order, a Throw node for an order without a
 * quantity, and a Trace node that writes each refused order, with why, to the server's log.
 *
 * <ul>
 *   <li>{@code ORDERS.CHECK}: JSON orders {@code {"item": "tea", "quantity": 2}}.</li>
 *   <li>An order that passes ({@link CheckOrder}) goes to {@code ORDERS.CHECKED}, unchanged.</li>
 *   <li>One without a quantity takes the check's {@code alternate} terminal to a Throw node; one whose quantity is
 *       not a whole number from 1 makes the check throw. Either failure comes back to the TryCatch node, which passes
 *       the order with the failure's ExceptionList to {@code catch}: a Trace node (the whole assembly, ExceptionList
 *       included, in the server's log; {@code bin/wharf flow trace order-checks off} stops it), then
 *       {@link RejectOrder}, which names the failure in the user property {@code Reason}, to {@code ORDERS.REJECTED}.</li>
 * </ul>
 *
 * The refused order is handled, not backed out: the invocation commits and nothing is retried.
 */
public final class OrderChecksFlow implements FlowFactory {

    /** Where the orders arrive. */
    public static final String INPUT_QUEUE = "ORDERS.CHECK";
    /** What the Throw node says. */
    public static final String NO_QUANTITY = "An order needs a quantity";

    @Override
    public FlowDefinition create() {
        return FlowDefinition.builder("order-checks")
                .node("in", InputNode.queue(INPUT_QUEUE).domain(Domain.JSON))
                .node("try", new TryCatchNode())
                .node("check", new CheckOrder())
                .node("noQuantity", new ThrowNode(NO_QUANTITY))
                .node("checked", OutputNode.queue("ORDERS.CHECKED"))
                .node("trace", TraceNode.toLog())
                .node("reject", new RejectOrder())
                .node("rejected", OutputNode.queue("ORDERS.REJECTED"))
                .wire("in", "out", "try")
                .wire("try", "try", "check")
                .wire("check", "out", "checked")
                .wire("check", "alternate", "noQuantity")
                .wire("try", "catch", "trace")
                .wire("trace", "out", "reject")
                .wire("reject", "out", "rejected")
                .build();
    }
}
