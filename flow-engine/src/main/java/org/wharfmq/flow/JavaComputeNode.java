package org.wharfmq.flow;

import java.util.List;

/**
 * User logic in a flow, as App Connect's JavaCompute node: extend it, implement {@link #evaluate}, and call
 * {@link #propagate} to send assemblies on.
 *
 * <pre>{@code
 * public final class SetHeaders extends JavaComputeNode {
 *     public void evaluate(MessageAssembly assembly) throws Exception {
 *         MessageAssembly out = assembly.copy();
 *         out.message().setUserProperty("Checked", true);
 *         propagate("out", out);
 *     }
 * }
 * }</pre>
 *
 * <p>Terminals: {@code in}; {@code out}, {@code alternate}, and {@code failure}, which receives the input
 * assembly with the ExceptionList when {@code evaluate} itself throws (failures further downstream pass through to
 * the nearest TryCatch or the input node). One object serves every instance of the flow on several threads at
 * once, as in App Connect: keep per-message state in local variables, not fields.
 */
public abstract class JavaComputeNode extends Node {

    /** The context of the invocation this thread is evaluating (nested when a loop re-enters the node). */
    private final ThreadLocal<FlowContext> current = new ThreadLocal<>();

    /** A node with terminals in, out, alternate and failure. */
    protected JavaComputeNode() {
        super("JavaCompute", List.of("in"), List.of("out", "alternate", "failure"));
    }

    /** Processes one assembly (read-only: copy it to change it) and propagates whatever should go on. */
    public abstract void evaluate(MessageAssembly assembly) throws Exception;

    /**
     * Sends {@code assembly} to the nodes wired to {@code terminal} and returns when they are done. The assembly
     * is read-only afterwards.
     *
     * @throws IllegalStateException when called outside {@link #evaluate}
     * @throws FlowException         when a node downstream fails
     */
    public final void propagate(String terminal, MessageAssembly assembly) throws FlowException {
        FlowContext context = current.get();
        if (context == null) {
            throw new IllegalStateException("propagate is only valid while evaluate runs, on its thread.");
        }
        try {
            context.propagate(this, terminal, assembly);
        } catch (FlowException e) {
            throw new DownstreamFailure(e);
        }
    }

    /** The context of the running invocation, for advanced nodes (e.g. to jump to a label); null outside evaluate. */
    protected final FlowContext context() {
        return current.get();
    }

    @Override
    public boolean isLoopGuard() {
        return true;
    }

    @Override
    public final void receive(String terminal, MessageAssembly assembly, FlowContext context) throws Exception {
        FlowContext outer = current.get();
        current.set(context);
        try {
            evaluate(assembly);
        } catch (DownstreamFailure e) {
            throw e.failure;
        } catch (Exception e) {
            propagateFailure(assembly, e, context);
        } finally {
            if (outer == null) {
                current.remove();
            } else {
                current.set(outer);
            }
        }
    }

    /** Marks a failure that came back through {@link #propagate}, so it bypasses this node's failure terminal. */
    private static final class DownstreamFailure extends FlowException {
        private final FlowException failure;

        DownstreamFailure(FlowException failure) {
            super(failure.getMessage(), failure.exceptionList(), failure);
            this.failure = failure;
        }
    }
}
