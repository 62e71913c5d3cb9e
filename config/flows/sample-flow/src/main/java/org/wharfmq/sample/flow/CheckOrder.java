package org.wharfmq.sample.flow;

import com.fasterxml.jackson.databind.JsonNode;
import org.wharfmq.flow.JavaComputeNode;
import org.wharfmq.flow.MessageAssembly;

/**
 * The error-handling sample's check: an order with a quantity that is a whole number from 1 goes on to {@code out}
 * unchanged; one without a quantity to {@code alternate}; any other quantity makes it throw, naming the value.
 */
public final class CheckOrder extends JavaComputeNode {

    @Override
    public void evaluate(MessageAssembly assembly) throws Exception {
        JsonNode quantity = assembly.message().json().path("quantity");
        if (quantity.isMissingNode() || quantity.isNull()) {
            propagate("alternate", assembly);
        } else if (!quantity.canConvertToInt() || !quantity.isIntegralNumber() || quantity.intValue() < 1) {
            throw new IllegalArgumentException("The quantity must be a whole number from 1, was " + quantity);
        } else {
            propagate("out", assembly);
        }
    }
}
