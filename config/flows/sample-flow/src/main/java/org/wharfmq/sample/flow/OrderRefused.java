package org.wharfmq.sample.flow;

import org.wharfmq.flow.ExceptionList;
import org.wharfmq.flow.JavaComputeNode;
import org.wharfmq.flow.MessageAssembly;
import org.wharfmq.flow.node.HttpReplyNode;

import java.util.Map;

/** The database sample's refusal: 400 with why the order was refused (the innermost failure's text). */
public final class OrderRefused extends JavaComputeNode {

    @Override
    public void evaluate(MessageAssembly assembly) throws Exception {
        ExceptionList failures = assembly.exceptionList();
        String reason = failures.isEmpty() ? "unknown" : failures.entries().get(failures.entries().size() - 1).text();
        MessageAssembly out = assembly.copy();
        out.message().setBody("Order refused: " + reason + "\n");
        out.localEnvironment().set(HttpReplyNode.STATUS, 400);
        out.localEnvironment().set(HttpReplyNode.HEADERS, Map.of("Content-Type", "text/plain; charset=utf-8"));
        propagate("out", out);
    }
}
