package org.wharfmq.perf.flow;

import org.wharfmq.flow.FlowDefinition;
import org.wharfmq.flow.FlowFactory;
import org.wharfmq.flow.TransactionMode;
import org.wharfmq.flow.node.InputNode;
import org.wharfmq.flow.node.PublicationNode;

/**
 * F-PUB: input → Publication node on one topic (seed 002, "Topic Based Publish/Subscribe using MQ Messages" with
 * 1, 10 and 100 subscribers: an MQInput node and a Publication node). A publisher puts the messages on the input
 * queue and the subscribers of the topic take the copies; the input's properties (the publisher's source and
 * sequence) are kept, so the subscribers' exactly-once check works as for PS-N. Transaction mode AUTOMATIC: a
 * persistent input is got and published in one transaction.
 */
public final class PublicationFlow implements FlowFactory {

    /** The flow's name. */
    public static final String NAME = "F-PUB";
    /** Where the publisher puts the input. */
    public static final String INPUT_QUEUE = "F.PUB.IN";
    /** The topic the flow publishes on, which the subscribers subscribe to. */
    public static final String TOPIC = "F/PUB";

    @Override
    public FlowDefinition create() {
        return FlowDefinition.builder(NAME)
                .node("in", InputNode.queue(INPUT_QUEUE).transactionMode(TransactionMode.AUTOMATIC))
                .node("publish", new PublicationNode(TOPIC))
                .wire("in", "out", "publish")
                .build();
    }
}
