package org.wharfmq.sample.flow;

import org.wharfmq.flow.FlowDefinition;
import org.wharfmq.flow.FlowFactory;
import org.wharfmq.flow.node.InputNode;
import org.wharfmq.flow.node.JmsInputNode;
import org.wharfmq.flow.node.JmsOutputNode;
import org.wharfmq.flow.node.OutputNode;

/**
 * The other-provider sample: a bridge between Wharf and an Apache ActiveMQ Artemis broker, both ways, each message
 * in a transaction on both sides (docs/flows.md, "Other JMS providers"). It needs a JMS provider named
 * {@code artemis} under {@code jmsProviders:} whose JNDI binds {@code jms/orders} and {@code jms/invoices}
 * (config/wharf.yaml has it, commented out).
 *
 * <ul>
 *   <li>Artemis's {@code jms/orders} to Wharf's queue {@code ORDERS};</li>
 *   <li>Wharf's queue {@code INVOICES} to Artemis's {@code jms/invoices}.</li>
 * </ul>
 */
public final class ArtemisBridgeFlow implements FlowFactory {

    /** The provider's name under jmsProviders:. */
    public static final String PROVIDER = "artemis";
    /** Where orders arrive, in Artemis (its JNDI name). */
    public static final String ORDERS_FROM = "jms/orders";
    /** Where they go, in Wharf. */
    public static final String ORDERS_QUEUE = "ORDERS";
    /** Where invoices arrive, in Wharf. */
    public static final String INVOICES_QUEUE = "INVOICES";
    /** Where they go, in Artemis (its JNDI name). */
    public static final String INVOICES_TO = "jms/invoices";

    @Override
    public FlowDefinition create() {
        return FlowDefinition.builder("artemis-bridge")
                .node("fromArtemis", JmsInputNode.from(PROVIDER, ORDERS_FROM))
                .node("orders", OutputNode.queue(ORDERS_QUEUE))
                .node("fromWharf", InputNode.queue(INVOICES_QUEUE))
                .node("invoices", JmsOutputNode.to(PROVIDER, INVOICES_TO))
                .wire("fromArtemis", "out", "orders")
                .wire("fromWharf", "out", "invoices")
                .build();
    }
}
