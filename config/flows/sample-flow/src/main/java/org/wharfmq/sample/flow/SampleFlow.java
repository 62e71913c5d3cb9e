package org.wharfmq.sample.flow;

import org.wharfmq.flow.FlowDefinition;
import org.wharfmq.flow.FlowFactory;
import org.wharfmq.flow.TransactionMode;
import org.wharfmq.flow.node.InputNode;
import org.wharfmq.flow.node.OutputNode;

/**
 * The seeds' "minimal processing" flow: messages from {@code SAMPLE.IN} pass a JavaCompute node that copies them
 * and sets two properties, and go to {@code SAMPLE.OUT}. Transaction mode AUTOMATIC, as in the IBM measurements:
 * a persistent message is processed in a transaction, a non-persistent one is not.
 */
public final class SampleFlow implements FlowFactory {

    /** Where the sample flow reads. */
    public static final String INPUT_QUEUE = "SAMPLE.IN";
    /** Where it writes. */
    public static final String OUTPUT_QUEUE = "SAMPLE.OUT";

    @Override
    public FlowDefinition create() {
        return FlowDefinition.builder("sample")
                .node("in", InputNode.queue(INPUT_QUEUE).transactionMode(TransactionMode.AUTOMATIC))
                .node("setHeaders", new SetHeaders())
                .node("out", OutputNode.queue(OUTPUT_QUEUE))
                .wire("in", "out", "setHeaders")
                .wire("setHeaders", "out", "out")
                .build();
    }
}
