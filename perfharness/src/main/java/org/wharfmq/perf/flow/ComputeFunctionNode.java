package org.wharfmq.perf.flow;

import org.wharfmq.flow.JavaComputeNode;
import org.wharfmq.flow.MessageAssembly;

import java.util.function.UnaryOperator;

/**
 * A JavaCompute node whose work is a plain function of the input assembly, propagated to {@code out}: the
 * harness's compute nodes are written this way so that the same function can be timed without messaging (the
 * workload's ceiling). Stateless, so one object serves every instance.
 */
final class ComputeFunctionNode extends JavaComputeNode {

    private final UnaryOperator<MessageAssembly> work;

    ComputeFunctionNode(UnaryOperator<MessageAssembly> work) {
        this.work = work;
    }

    @Override
    public void evaluate(MessageAssembly assembly) throws Exception {
        propagate("out", work.apply(assembly));
    }
}
