package org.wharfmq.flow.node;

import org.wharfmq.flow.FlowContext;
import org.wharfmq.flow.FlowException;
import org.wharfmq.flow.MessageAssembly;
import org.wharfmq.flow.Node;

import java.util.List;

/**
 * Propagates to {@code try}; when anything downstream fails, propagates the input assembly with the failure's
 * ExceptionList to {@code catch}. With {@code catch} unwired the failure goes on up. What the try path sent inside
 * the transaction before failing is not undone by catching: it commits with the invocation, as in App Connect.
 */
public final class TryCatchNode extends Node {

    /** A TryCatch node. */
    public TryCatchNode() {
        super("TryCatch", List.of("in"), List.of("try", "catch"));
    }

    @Override
    public void receive(String terminal, MessageAssembly assembly, FlowContext context) throws Exception {
        try {
            context.propagate(this, "try", assembly);
        } catch (FlowException e) {
            if (!context.isWired(this, "catch")) {
                throw e;
            }
            context.propagate(this, "catch", assembly.withExceptionList(e.exceptionList()));
        }
    }
}
