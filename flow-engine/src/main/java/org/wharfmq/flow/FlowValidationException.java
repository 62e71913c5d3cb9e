package org.wharfmq.flow;

/**
 * A flow definition that cannot run: unknown node or terminal in a wire, a cycle with no loop guard, no input
 * node, a node property missing. Raised by {@link FlowDefinition.Builder#build()}, so at deploy time, with a
 * message naming the flow, node and terminal.
 */
public final class FlowValidationException extends IllegalArgumentException {

    /** A validation failure with its explanation. */
    public FlowValidationException(String message) {
        super(message);
    }
}
