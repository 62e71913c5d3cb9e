package org.wharfmq.flow.node;

import org.wharfmq.flow.FlowContext;
import org.wharfmq.flow.FlowValidationException;
import org.wharfmq.flow.MessageAssembly;
import org.wharfmq.flow.Node;
import org.wharfmq.flow.XmlSchema;

import java.util.List;
import java.util.Map;

/**
 * Validates the XML body against an XML Schema, as App Connect's Validate node: a valid message goes to
 * {@code out} unchanged; an invalid or malformed one goes to {@code failure} with the ExceptionList naming the
 * schema, the line and column and the broken rule (or fails the path when {@code failure} is unwired, so the
 * message is backed out). To validate every message as it enters the flow, use {@link InputNode#validate}.
 */
public final class ValidationNode extends Node {

    private final XmlSchema schema;

    /** Validates against {@code schema} ({@link XmlSchema#compile}). */
    public ValidationNode(XmlSchema schema) {
        super("Validate", List.of("in"), List.of("out", "failure"));
        this.schema = schema;
    }

    @Override
    public Map<String, Object> properties() {
        return Map.of("schema", schema == null ? "" : schema.name());
    }

    @Override
    protected void validate() {
        if (schema == null) {
            throw new FlowValidationException("a Validate node needs a schema.");
        }
    }

    @Override
    public void receive(String terminal, MessageAssembly assembly, FlowContext context) throws Exception {
        try {
            schema.validate(assembly.message());
        } catch (RuntimeException e) {
            propagateFailure(assembly, e, context);
            return;
        }
        context.propagate(this, "out", assembly);
    }
}
