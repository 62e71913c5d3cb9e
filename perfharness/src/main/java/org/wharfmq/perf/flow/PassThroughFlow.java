package org.wharfmq.perf.flow;

import org.wharfmq.flow.FlowDefinition;
import org.wharfmq.flow.FlowFactory;
import org.wharfmq.flow.TransactionMode;
import org.wharfmq.flow.node.InputNode;
import org.wharfmq.flow.node.OutputNode;

/**
 * F-PASS: input → output, the body a BLOB that is never parsed (seed 002, "Reading and writing to an MQ
 * Queue"; 000's MQInput/MQOutput). Transaction mode AUTOMATIC, as the sample flow: a non-persistent message runs
 * without a transaction, a persistent one (F-PERSIST) in one.
 */
public final class PassThroughFlow implements FlowFactory {

    /** The flow's name. */
    public static final String NAME = "F-PASS";
    /** Where the clients put the input. */
    public static final String INPUT_QUEUE = "F.PASS.IN";
    /** Where the clients take the output. */
    public static final String OUTPUT_QUEUE = "F.PASS.OUT";

    @Override
    public FlowDefinition create() {
        return FlowDefinition.builder(NAME)
                .node("in", InputNode.queue(INPUT_QUEUE).transactionMode(TransactionMode.AUTOMATIC))
                .node("out", OutputNode.queue(OUTPUT_QUEUE))
                .wire("in", "out", "out")
                .build();
    }
}
