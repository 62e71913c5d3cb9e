package org.wharfmq.flow.node;

import org.wharfmq.flow.FlowContext;
import org.wharfmq.flow.MessageAssembly;
import org.wharfmq.flow.Node;

import java.util.List;

/** Propagates its input unchanged to {@code out}: a joint to label or restructure a flow's wiring. */
public final class PassthroughNode extends Node {

    /** A Passthrough node. */
    public PassthroughNode() {
        super("Passthrough", List.of("in"), List.of("out"));
    }

    @Override
    public void receive(String terminal, MessageAssembly assembly, FlowContext context) throws Exception {
        context.propagate(this, "out", assembly);
    }
}
