package org.wharfmq.sample.flow;

import org.wharfmq.flow.Domain;
import org.wharfmq.flow.FlowDefinition;
import org.wharfmq.flow.FlowFactory;
import org.wharfmq.flow.FlowProperties;
import org.wharfmq.flow.node.InputNode;
import org.wharfmq.flow.node.OutputNode;
import org.wharfmq.flow.node.PublicationNode;

import java.math.BigDecimal;

/**
 * The publish/subscribe sample: a flow whose input is a topic filter, and a Publication node.
 *
 * <ul>
 *   <li>Publications on {@code prices/SYMBOL} (the filter {@code prices/+}), JSON {@code {"price": 120.50}}, whoever
 *       publishes them; each is processed once however many instances run (one shared subscription).</li>
 *   <li>Each goes to the queue {@code PRICES.HISTORY}, with the topic it came on in the user property
 *       {@code Topic} ({@link PriceAlert}).</li>
 *   <li>A price at or above the alert price is published again, as {@code {"symbol":"ACME","price":120.50,
 *       "alertPrice":100}}, on {@code alerts/SYMBOL} for whoever subscribes there.</li>
 * </ul>
 *
 * The alert price is the flow property {@value #ALERT_PRICE} (its entry's {@code properties:} in the configuration),
 * 100 when left out.
 */
public final class PriceAlertsFlow implements FlowFactory {

    /** The topic filter it reads. */
    public static final String PRICES = "prices/+";
    /** The flow property of the alert price. */
    public static final String ALERT_PRICE = "alertPrice";
    /** The alert price when the property is left out. */
    public static final String DEFAULT_ALERT_PRICE = "100";

    @Override
    public FlowDefinition create() {
        return create(FlowProperties.NONE);
    }

    @Override
    public FlowDefinition create(FlowProperties properties) {
        String alertPrice = properties.get(ALERT_PRICE, DEFAULT_ALERT_PRICE);
        BigDecimal limit;
        try {
            limit = new BigDecimal(alertPrice);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("Flow 'price-alerts': its property " + ALERT_PRICE + " must be a "
                    + "number, was '" + alertPrice + "'.", e);
        }
        return FlowDefinition.builder("price-alerts")
                .node("in", InputNode.topic(PRICES).domain(Domain.JSON))
                .node("alert", new PriceAlert(limit))
                .node("history", OutputNode.queue("PRICES.HISTORY"))
                .node("publish", new PublicationNode(null)) // on the topic the alert node put in Properties.Topic
                .wire("in", "out", "alert")
                .wire("alert", "out", "history")
                .wire("alert", "alternate", "publish")
                .build();
    }
}
