package org.wharfmq.flow;

import java.util.List;
import java.util.Map;

/**
 * A message processing node: it receives an assembly on an input terminal and propagates assemblies to its output
 * terminals, which the flow wires to other nodes' input terminals. An assembly propagated to an unwired terminal
 * is discarded.
 *
 * <p>One node object serves every instance of its flow, on several threads at once: a node keeps no per-message
 * state in fields. The built-in nodes are in {@code org.wharfmq.flow.node}; user logic extends
 * {@link JavaComputeNode}.
 */
public abstract class Node {

    private final String kind;
    private final List<String> inputTerminals;
    private final List<String> outputTerminals;
    private String name;

    /**
     * @param kind            the node type as users see it, e.g. {@code Output}
     * @param inputTerminals  the terminals wires may end at
     * @param outputTerminals the terminals wires may start from
     */
    protected Node(String kind, List<String> inputTerminals, List<String> outputTerminals) {
        this.kind = kind;
        this.inputTerminals = List.copyOf(inputTerminals);
        this.outputTerminals = List.copyOf(outputTerminals);
    }

    /** The node's name in its flow (set when the flow is built). */
    public final String name() {
        return name;
    }

    /** The node type, e.g. {@code JavaCompute}. */
    public final String kind() {
        return kind;
    }

    /** Terminals wires may end at. */
    public final List<String> inputTerminals() {
        return inputTerminals;
    }

    /** Terminals wires may start from. */
    public final List<String> outputTerminals() {
        return outputTerminals;
    }

    /** The node's settings, for listings and traces. */
    public Map<String, Object> properties() {
        return Map.of();
    }

    /**
     * Whether this node decides whether to propagate (so a cycle through it can end): JavaCompute and
     * RouteToLabel are; a Passthrough is not.
     */
    public boolean isLoopGuard() {
        return false;
    }

    /**
     * Whether the node may block its thread waiting for something outside the flow: a database (the Database nodes),
     * an HTTP service (HTTPRequest), a file system (FileOutput) or another JMS provider (JMSOutput). A host may hold
     * what a reader of a flow with such a node owes other threads, and queue it together, but must then bound the
     * hold itself (the flow host: docs/architecture.md, "Flows inside the queue manager"). False for the others,
     * JavaCompute included: user code that blocks gets no such hold.
     */
    public boolean mayBlock() {
        return false;
    }

    /**
     * Checks the node's settings when the flow is built.
     *
     * @throws FlowValidationException naming what is missing or wrong
     */
    protected void validate() {
    }

    /**
     * Processes an assembly arriving on {@code terminal}. The assembly is read-only; propagate with
     * {@link FlowContext#propagate}. An exception leaving this method fails the path (TryCatch, failure terminals
     * and the input node's transaction handle it).
     */
    public abstract void receive(String terminal, MessageAssembly assembly, FlowContext context) throws Exception;

    /**
     * Sends {@code assembly} with {@code failure} added to its ExceptionList to this node's {@code failure}
     * terminal, or rethrows {@code failure} when that terminal is unwired (the path fails: the nearest TryCatch or
     * the input node's transaction handles it).
     */
    protected final void propagateFailure(MessageAssembly assembly, Exception failure, FlowContext context)
            throws Exception {
        if (!context.isWired(this, "failure")) {
            throw failure;
        }
        context.propagate(this, "failure", assembly.withExceptionList(assembly.exceptionList().with(this, failure)));
    }

    final void bind(String nodeName) {
        if (name != null) {
            throw new FlowValidationException("Node object " + kind + " '" + name + "' is already part of a flow; "
                    + "create a new node object for '" + nodeName + "'.");
        }
        name = nodeName;
    }

    @Override
    public String toString() {
        return kind + " '" + name + "'";
    }
}
