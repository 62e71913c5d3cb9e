package org.wharfmq.flow.runtime;

import org.junit.jupiter.api.Test;
import org.wharfmq.flow.FlowDefinition;
import org.wharfmq.flow.node.DatabaseRetrieveNode;
import org.wharfmq.flow.node.InputNode;
import org.wharfmq.flow.node.OutputNode;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** {@code wharf flow stats}' table, for people: each column starts where its heading does, whatever a node's kind. */
class FlowStatisticsTest {

    @Test
    void everyRowsColumnsStartUnderTheirHeadingsAlsoForALongKind() {
        FlowDefinition flow = FlowDefinition.builder("orders")
                .node("in", InputNode.queue("ORDERS"))
                .node("customer", new DatabaseRetrieveNode("orders", "SELECT name FROM customers WHERE id = ?",
                        "Body"))
                .node("out", OutputNode.queue("ORDERS.OUT"))
                .wire("in", "out", "customer").wire("customer", "out", "out")
                .build();
        List<String> lines = new FlowStatistics(flow, false).render("orders").lines().toList();
        String heading = lines.get(1);
        int invocations = heading.indexOf("invocations") + "invocations".length(); // numbers are right-aligned
        for (String row : lines.subList(2, lines.size())) {
            assertEquals(heading.indexOf("kind"), row.indexOf(row.trim().split(" +")[1]), () -> String.join("\n", lines));
            assertEquals(invocations, row.indexOf(" 0 ") + 2, () -> String.join("\n", lines));
        }
    }
}
