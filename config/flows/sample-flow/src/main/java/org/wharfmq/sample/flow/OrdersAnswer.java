package org.wharfmq.sample.flow;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.wharfmq.flow.JavaComputeNode;
import org.wharfmq.flow.MessageAssembly;

import java.math.BigDecimal;
import java.util.List;
import java.util.Map;

/** The database sample's answer: the customer and its orders, from the rows the DatabaseRetrieve node read. */
public final class OrdersAnswer extends JavaComputeNode {

    /** The LocalEnvironment field the rows are in. */
    static final String ROWS = "Orders";

    @Override
    public void evaluate(MessageAssembly assembly) throws Exception {
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> rows = (List<Map<String, Object>>) assembly.localEnvironment().get(ROWS);
        ObjectNode answer = JsonNodeFactory.instance.objectNode();
        answer.put("customer", assembly.message().json().path("customer").asText());
        ArrayNode orders = answer.putArray("orders");
        for (Map<String, Object> row : rows) {
            orders.addObject().put("id", ((Number) row.get("id")).longValue())
                    .put("total", (BigDecimal) row.get("total"));
        }
        MessageAssembly out = assembly.copy();
        out.message().setJson(answer);
        propagate("out", out);
    }
}
