package org.wharfmq.perf.flow;

import org.wharfmq.flow.FlowDefinition;
import org.wharfmq.flow.FlowFactory;
import org.wharfmq.flow.MessageAssembly;
import org.wharfmq.flow.TransactionMode;
import org.wharfmq.flow.node.InputNode;
import org.wharfmq.flow.node.OutputNode;

/**
 * F-HDR: input → JavaCompute that sets two header fields → output (seed 002, "Setting of the MQ Message
 * Headers"). As in the seed, only the two fields the seed's ESQL set are set (CodedCharSetId and Encoding, here
 * JMS properties of those names as in the sample flow) and the output message has no payload: the body is not
 * read. The input's JMS headers and properties are kept, so the requester finds its output by correlation id.
 */
public final class HeaderFlow implements FlowFactory {

    /** The flow's name. */
    public static final String NAME = "F-HDR";
    /** Where the clients put the input. */
    public static final String INPUT_QUEUE = "F.HDR.IN";
    /** Where the clients take the output. */
    public static final String OUTPUT_QUEUE = "F.HDR.OUT";
    /** UTF-8, the value the seed's flow set in MQMD.CodedCharSetId. */
    static final int CODED_CHARSET_ID = 1208;
    /** Little-endian integers, the value the seed's flow set in MQMD.Encoding. */
    static final int ENCODING = 546;
    private static final byte[] NO_PAYLOAD = new byte[0];

    @Override
    public FlowDefinition create() {
        return FlowDefinition.builder(NAME)
                .node("in", InputNode.queue(INPUT_QUEUE).transactionMode(TransactionMode.AUTOMATIC))
                .node("setHeaders", new ComputeFunctionNode(HeaderFlow::setHeaders))
                .node("out", OutputNode.queue(OUTPUT_QUEUE))
                .wire("in", "out", "setHeaders")
                .wire("setHeaders", "out", "out")
                .build();
    }

    /**
     * The node's work, also timed without messaging as the workload's ceiling: a copy of the (read-only) input
     * with the two header fields set and no payload.
     */
    static MessageAssembly setHeaders(MessageAssembly input) {
        MessageAssembly out = input.copy();
        out.message().setUserProperty("CodedCharSetId", CODED_CHARSET_ID);
        out.message().setUserProperty("Encoding", ENCODING);
        out.message().setBody(NO_PAYLOAD);
        return out;
    }
}
