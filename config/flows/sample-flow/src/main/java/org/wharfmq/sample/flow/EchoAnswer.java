package org.wharfmq.sample.flow;

import org.wharfmq.flow.JavaComputeNode;
import org.wharfmq.flow.MessageAssembly;
import org.wharfmq.flow.node.HttpInputNode;
import org.wharfmq.flow.node.HttpReplyNode;

import java.util.Map;

/**
 * The echo flow's answer: the request's body as it came, or, for a request without one, a greeting that says who
 * called with which method; as plain text.
 */
public final class EchoAnswer extends JavaComputeNode {

    @Override
    public void evaluate(MessageAssembly assembly) throws Exception {
        MessageAssembly out = assembly.copy();
        if (assembly.message().bodyBytes().length == 0) {
            Object user = assembly.localEnvironment().get(HttpInputNode.USER);
            out.message().setBody("Hello from flow 'echo': " + assembly.localEnvironment().get(HttpInputNode.METHOD)
                    + " " + assembly.localEnvironment().get(HttpInputNode.PATH) + " by "
                    + (user == null ? "an anonymous caller" : "user " + user) + ". Send a body and it comes back.\n");
        }
        out.localEnvironment().set(HttpReplyNode.HEADERS, Map.of("Content-Type", "text/plain; charset=utf-8"));
        propagate("out", out);
    }
}
