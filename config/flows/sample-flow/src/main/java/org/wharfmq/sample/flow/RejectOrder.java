package org.wharfmq.sample.flow;

import org.wharfmq.flow.ExceptionList;
import org.wharfmq.flow.JavaComputeNode;
import org.wharfmq.flow.MessageAssembly;

/**
 * The error-handling sample's catch path: the order as it came, with the user property {@code Reason} naming what
 * failed (the ExceptionList's original failure: its node and its text).
 */
public final class RejectOrder extends JavaComputeNode {

    /** The user property that says why the order was refused. */
    public static final String REASON = "Reason";

    @Override
    public void evaluate(MessageAssembly assembly) throws Exception {
        ExceptionList failures = assembly.exceptionList();
        ExceptionList.Entry first = failures.isEmpty() ? null : failures.entries().get(0);
        MessageAssembly out = assembly.copy();
        out.message().setUserProperty(REASON, first == null ? "unknown" : first.node() + ": " + first.text());
        propagate("out", out);
    }
}
