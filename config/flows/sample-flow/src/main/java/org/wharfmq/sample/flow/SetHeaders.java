package org.wharfmq.sample.flow;

import org.wharfmq.flow.JavaComputeNode;
import org.wharfmq.flow.MessageAssembly;

/**
 * Copies the message and sets two properties, like the seeds' compute node that sets the MQMD's CodedCharSetId
 * and Encoding. The body is not touched, so it is neither parsed nor copied.
 */
public final class SetHeaders extends JavaComputeNode {

    @Override
    public void evaluate(MessageAssembly assembly) throws Exception {
        MessageAssembly out = assembly.copy();
        out.message().setUserProperty("CodedCharSetId", 1208);
        out.message().setUserProperty("Encoding", 546);
        propagate("out", out);
    }
}
