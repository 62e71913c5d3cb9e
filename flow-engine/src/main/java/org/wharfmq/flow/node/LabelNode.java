package org.wharfmq.flow.node;

import org.wharfmq.flow.FlowContext;
import org.wharfmq.flow.FlowValidationException;
import org.wharfmq.flow.MessageAssembly;
import org.wharfmq.flow.Node;

import java.util.List;
import java.util.Map;

/**
 * A target of a {@link RouteToLabelNode}: receives the jumps to its label (no wire needed) and propagates them to
 * {@code out}.
 */
public final class LabelNode extends Node {

    private final String label;

    /** A label, unique in its flow. */
    public LabelNode(String label) {
        super("Label", List.of(), List.of("out"));
        this.label = label;
    }

    /** The label routed to. */
    public String label() {
        return label;
    }

    @Override
    public Map<String, Object> properties() {
        return Map.of("label", label);
    }

    @Override
    protected void validate() {
        if (label == null || label.isBlank()) {
            throw new FlowValidationException("a Label node needs a label.");
        }
    }

    @Override
    public void receive(String terminal, MessageAssembly assembly, FlowContext context) throws Exception {
        context.propagate(this, "out", assembly);
    }
}
