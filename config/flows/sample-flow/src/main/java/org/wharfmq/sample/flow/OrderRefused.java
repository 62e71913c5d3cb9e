package org.wharfmq.sample.flow;

import org.wharfmq.flow.DatabaseUnavailableException;
import org.wharfmq.flow.ExceptionList;
import org.wharfmq.flow.JavaComputeNode;
import org.wharfmq.flow.MessageAssembly;
import org.wharfmq.flow.node.HttpReplyNode;
import org.wharfmq.flow.runtime.FlowConfiguration;

import java.io.UncheckedIOException;
import java.util.Map;
import java.util.logging.Logger;

/**
 * The database sample's answer to an order that failed: 503 with {@code Retry-After} when the database gave no
 * connection (not the caller's fault: the same order may go through later), else 400 (a body that is not JSON, or
 * an order the database refused, each said so). Why (the innermost failure's text) goes to the server's log only: a database's message can quote another
 * row's values (H2's duplicate key quotes the row already there), which an HTTP caller must not read.
 */
public final class OrderRefused extends JavaComputeNode {
    private static final Logger LOG = Logger.getLogger(OrderRefused.class.getName());

    @Override
    public void evaluate(MessageAssembly assembly) throws Exception {
        ExceptionList failures = assembly.exceptionList();
        ExceptionList.Entry innermost = failures.isEmpty() ? null : failures.entries().get(failures.entries().size() - 1);
        String reason = innermost == null ? "unknown" : innermost.text();
        String unavailable = DatabaseUnavailableException.in(failures);
        MessageAssembly out = assembly.copy();
        if (unavailable != null) {
            LOG.warning("Order not taken, answered 503: " + reason);
            out.message().setBody("Orders cannot be taken now: " + unavailable + " Try again in "
                    + FlowConfiguration.DATABASE_RETRY_AFTER_SECONDS + " s.\n");
            out.localEnvironment().set(HttpReplyNode.STATUS, 503);
            out.localEnvironment().set(HttpReplyNode.HEADERS, Map.of("Content-Type", "text/plain; charset=utf-8",
                    "Retry-After", Integer.toString(FlowConfiguration.DATABASE_RETRY_AFTER_SECONDS)));
        } else {
            // a body that is not JSON fails the insert's first JSON path; anything else there is the database's refusal
            boolean notJson = innermost != null && innermost.type().equals(UncheckedIOException.class.getName());
            LOG.warning((notJson ? "Order not JSON" : "Order refused") + ", answered 400: " + reason);
            out.message().setBody(notJson ? "The order is not JSON: send an object such as {\"id\": 1, \"customer\": "
                    + "\"Ann\", \"total\": 12.50}.\n" : "Order refused by the database: check its id (one order per "
                    + "id) and that it has a customer and a total; the server's log has the database's reason.\n");
            out.localEnvironment().set(HttpReplyNode.STATUS, 400);
            out.localEnvironment().set(HttpReplyNode.HEADERS, Map.of("Content-Type", "text/plain; charset=utf-8"));
        }
        propagate("out", out);
    }
}
