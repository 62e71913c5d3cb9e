package org.wharfmq.sample.flow;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.wharfmq.flow.FlowMessage;
import org.wharfmq.flow.JavaComputeNode;
import org.wharfmq.flow.MessageAssembly;

import java.math.BigDecimal;

/**
 * The publish/subscribe sample's node: every price to {@code out} with its topic as the user property {@code Topic};
 * a price at or above the alert price also to {@code alternate} as an alert, its topic {@code alerts/SYMBOL} in the
 * message's properties (where the Publication node finds it). A body without a numeric {@code price} fails (the
 * publication is backed out to the dead-letter queue after its retries).
 */
public final class PriceAlert extends JavaComputeNode {

    private final BigDecimal alertPrice;

    /** @param alertPrice the price from which an alert is published */
    public PriceAlert(BigDecimal alertPrice) {
        this.alertPrice = alertPrice;
    }

    @Override
    public void evaluate(MessageAssembly assembly) throws Exception {
        String topic = assembly.message().properties().getString(FlowMessage.TOPIC);
        JsonNode price = assembly.message().json().path("price");
        if (!price.isNumber()) {
            throw new IllegalArgumentException("A price publication on " + topic + " needs a numeric \"price\", "
                    + "was " + price);
        }
        MessageAssembly seen = assembly.copy();
        seen.message().setUserProperty("Topic", topic);
        propagate("out", seen);

        if (price.decimalValue().compareTo(alertPrice) >= 0) {
            String symbol = topic.substring(topic.lastIndexOf('/') + 1);
            ObjectNode alert = JsonNodeFactory.instance.objectNode();
            alert.put("symbol", symbol);
            alert.set("price", price);
            alert.put("alertPrice", alertPrice);
            MessageAssembly out = assembly.copy();
            out.message().setJson(alert);
            out.message().properties().set(FlowMessage.TOPIC, "alerts/" + symbol);
            propagate("alternate", out);
        }
    }
}
