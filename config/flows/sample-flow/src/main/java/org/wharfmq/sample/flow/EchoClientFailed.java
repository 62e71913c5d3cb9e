package org.wharfmq.sample.flow;

import org.wharfmq.flow.ExceptionList;
import org.wharfmq.flow.JavaComputeNode;
import org.wharfmq.flow.MessageAssembly;
import org.wharfmq.flow.node.HttpReplyNode;

import java.util.Map;

/**
 * The HTTP request sample's failure path: 502 (the service behind this one failed), with why: the request node's
 * ExceptionList entry names the method, the URL and the status or the connection's failure.
 */
public final class EchoClientFailed extends JavaComputeNode {

    @Override
    public void evaluate(MessageAssembly assembly) throws Exception {
        ExceptionList failures = assembly.exceptionList();
        String reason = failures.isEmpty() ? "unknown" : failures.entries().get(failures.entries().size() - 1).text();
        MessageAssembly out = assembly.copy();
        out.message().setBody("The echo flow could not be called: " + reason + "\n");
        out.localEnvironment().set(HttpReplyNode.STATUS, 502);
        out.localEnvironment().set(HttpReplyNode.HEADERS, Map.of("Content-Type", "text/plain; charset=utf-8"));
        propagate("out", out);
    }
}
