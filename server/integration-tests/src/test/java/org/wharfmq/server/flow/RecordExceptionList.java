package org.wharfmq.server.flow;

import org.wharfmq.flow.ExceptionList;
import org.wharfmq.flow.JavaComputeNode;
import org.wharfmq.flow.MessageAssembly;

/** Puts the ExceptionList in a property, so a test can read what a failure terminal received. */
final class RecordExceptionList extends JavaComputeNode {
    @Override
    public void evaluate(MessageAssembly assembly) throws Exception {
        MessageAssembly out = assembly.copy();
        out.message().setUserProperty(ExceptionList.PROPERTY, assembly.exceptionList().render());
        propagate("out", out);
    }
}
