package org.wharfmq.flow.node;

import org.wharfmq.flow.FlowContext;
import org.wharfmq.flow.FlowValidationException;
import org.wharfmq.flow.MessageAssembly;
import org.wharfmq.flow.Node;

import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Routes by value: computes a label from the assembly and passes the assembly to the {@link LabelNode} with that
 * label. When the value is null or no Label has it, the assembly goes to {@code default} (discarded if
 * unwired). The function runs on every instance's thread at once: it must be thread-safe (a lambda reading the
 * message is).
 */
public final class RouteToLabelNode extends Node {

    /** LocalEnvironment field read by {@link #fromLocalEnvironment()}. */
    public static final String LABEL_FIELD = "RouteToLabel";

    private final Function<MessageAssembly, String> labelOf;

    /** Routes to the label {@code labelOf} computes. */
    public RouteToLabelNode(Function<MessageAssembly, String> labelOf) {
        super("RouteToLabel", List.of("in"), List.of("default"));
        this.labelOf = labelOf;
    }

    /** Routes to the label an upstream node put in the LocalEnvironment field {@value #LABEL_FIELD}. */
    public static RouteToLabelNode fromLocalEnvironment() {
        return new RouteToLabelNode(a -> a.localEnvironment().getString(LABEL_FIELD));
    }

    /** Routes to the label named by a user property of the message (its value as a string). */
    public static RouteToLabelNode byUserProperty(String property) {
        return new RouteToLabelNode(a -> a.message().userProperties().getString(property));
    }

    @Override
    public Map<String, Object> properties() {
        return Map.of();
    }

    @Override
    public boolean isLoopGuard() {
        return true;
    }

    @Override
    protected void validate() {
        if (labelOf == null) {
            throw new FlowValidationException("a RouteToLabel node needs a function computing the label.");
        }
    }

    @Override
    public void receive(String terminal, MessageAssembly assembly, FlowContext context) throws Exception {
        String label = labelOf.apply(assembly);
        if (label == null || !context.jumpToLabel(label, assembly)) {
            context.propagate(this, "default", assembly);
        }
    }
}
