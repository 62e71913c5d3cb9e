package org.wharfmq.sample.flow;

import org.wharfmq.flow.ExceptionList;
import org.wharfmq.flow.JavaComputeNode;
import org.wharfmq.flow.MessageAssembly;
import org.wharfmq.flow.node.HttpReplyNode;

import java.util.Map;
import java.util.logging.Logger;

/**
 * The database sample's refusal: 400 to the caller, why (the innermost failure's text) to the server's log only: a
 * database's message can quote another row's values (H2's duplicate key quotes the row already there), which an HTTP
 * caller must not read.
 */
public final class OrderRefused extends JavaComputeNode {
    private static final Logger LOG = Logger.getLogger(OrderRefused.class.getName());

    @Override
    public void evaluate(MessageAssembly assembly) throws Exception {
        ExceptionList failures = assembly.exceptionList();
        String reason = failures.isEmpty() ? "unknown" : failures.entries().get(failures.entries().size() - 1).text();
        MessageAssembly out = assembly.copy();
        LOG.warning("Order refused: " + reason);
        out.message().setBody("Order refused by the database: check its id (one order per id) and that it has a "
                + "customer and a total; the server's log has the database's reason.\n");
        out.localEnvironment().set(HttpReplyNode.STATUS, 400);
        out.localEnvironment().set(HttpReplyNode.HEADERS, Map.of("Content-Type", "text/plain; charset=utf-8"));
        propagate("out", out);
    }
}
