package org.wharfmq.sample.flow;

import org.wharfmq.flow.JavaComputeNode;
import org.wharfmq.flow.MessageAssembly;
import org.wharfmq.flow.node.HttpReplyNode;
import org.wharfmq.flow.node.HttpRequestNode;

import java.nio.charset.StandardCharsets;
import java.util.Map;

/** The HTTP request sample's answer: the service's status and body, as plain text. */
public final class EchoClientAnswer extends JavaComputeNode {

    @Override
    public void evaluate(MessageAssembly assembly) throws Exception {
        Object status = assembly.localEnvironment().get(HttpRequestNode.RESPONSE_STATUS);
        MessageAssembly out = assembly.copy();
        out.message().setBody("The echo flow answered " + status + ": "
                + new String(assembly.message().bodyBytes(), StandardCharsets.UTF_8));
        out.localEnvironment().set(HttpReplyNode.HEADERS, Map.of("Content-Type", "text/plain; charset=utf-8"));
        propagate("out", out);
    }
}
