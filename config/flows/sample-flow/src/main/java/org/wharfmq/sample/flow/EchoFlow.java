package org.wharfmq.sample.flow;

import org.wharfmq.flow.FlowDefinition;
import org.wharfmq.flow.FlowFactory;
import org.wharfmq.flow.node.HttpInputNode;
import org.wharfmq.flow.node.HttpReplyNode;

/**
 * A flow that answers HTTP: {@code /flows/echo} on the server's HTTP listener (any method), a JavaCompute node that
 * writes the answer, an HTTPReply node that sends it. With the sample configuration,
 * {@code curl http://localhost:7480/flows/echo} answers {@code Hello from flow 'echo'...}, and
 * {@code curl --data hi http://localhost:7480/flows/echo} echoes {@code hi}.
 */
public final class EchoFlow implements FlowFactory {

    /** The path it serves. */
    public static final String PATH = "/flows/echo";

    @Override
    public FlowDefinition create() {
        return FlowDefinition.builder("echo")
                .node("in", HttpInputNode.path(PATH))
                .node("answer", new EchoAnswer())
                .node("reply", new HttpReplyNode())
                .wire("in", "out", "answer")
                .wire("answer", "out", "reply")
                .build();
    }
}
