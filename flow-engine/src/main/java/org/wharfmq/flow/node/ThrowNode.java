package org.wharfmq.flow.node;

import org.wharfmq.flow.FlowContext;
import org.wharfmq.flow.FlowException;
import org.wharfmq.flow.MessageAssembly;
import org.wharfmq.flow.Node;

import java.util.List;
import java.util.Map;

/** Fails the path on purpose with a user exception carrying {@code text}, e.g. at the end of an error path. */
public final class ThrowNode extends Node {

    private final String text;

    /** Throws a {@link FlowException} with {@code text}. */
    public ThrowNode(String text) {
        super("Throw", List.of("in"), List.of());
        this.text = text == null ? "Throw node reached" : text;
    }

    @Override
    public Map<String, Object> properties() {
        return Map.of("text", text);
    }

    @Override
    public void receive(String terminal, MessageAssembly assembly, FlowContext context) throws Exception {
        throw new FlowException(text);
    }
}
