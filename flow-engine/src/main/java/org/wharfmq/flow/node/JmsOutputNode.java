package org.wharfmq.flow.node;

import org.wharfmq.flow.FlowContext;
import org.wharfmq.flow.FlowValidationException;
import org.wharfmq.flow.MessageAssembly;
import org.wharfmq.flow.Node;
import org.wharfmq.flow.TransactionMode;

import javax.jms.JMSException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Sends the message to a destination of another JMS provider configured under {@code jmsProviders:} (its connection
 * factory and destinations come from JNDI; docs/flows.md, "Other JMS providers"). After a successful send the
 * assembly goes on to {@code out}; a failed send goes to {@code failure} if wired, else fails the path.
 *
 * <p>Transaction mode AUTOMATIC (the default) follows the flow: in a transactional invocation the send is on a
 * transacted session of the provider that commits before Wharf's (so a crash between the two sends the message again:
 * a duplicate, never a loss) and rolls back with it. YES or NO override it for this node.
 */
public final class JmsOutputNode extends Node {

    private final String provider;
    private final String destination;
    private TransactionMode transactionMode = TransactionMode.AUTOMATIC;

    private JmsOutputNode(String provider, String destination) {
        super("JMSOutput", List.of("in"), List.of("out", "failure"));
        this.provider = provider;
        this.destination = destination;
    }

    /**
     * Sends to {@code destination} (its JNDI name) of the provider {@code provider} (its name under
     * {@code jmsProviders:}).
     */
    public static JmsOutputNode to(String provider, String destination) {
        return new JmsOutputNode(provider, destination);
    }

    /** Overrides the flow's transaction control for this node's sends (AUTOMATIC follows the flow). */
    public JmsOutputNode transactionMode(TransactionMode mode) {
        this.transactionMode = mode;
        return this;
    }

    /** The provider's name under {@code jmsProviders:}. */
    public String provider() {
        return provider;
    }

    /** The JNDI name of the destination. */
    public String destination() {
        return destination;
    }

    /** True: a send to another JMS provider may block. */
    @Override
    public final boolean mayBlock() {
        return true;
    }

    @Override
    public Map<String, Object> properties() {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("provider", provider);
        p.put("destination", destination);
        p.put("transactionMode", transactionMode);
        return p;
    }

    @Override
    protected void validate() {
        if (provider == null || provider.isBlank()) {
            throw new FlowValidationException("a JMSOutput node needs the name of a JMS provider (jmsProviders:).");
        }
        if (destination == null || destination.isBlank()) {
            throw new FlowValidationException("a JMSOutput node needs the JNDI name of a destination.");
        }
        if (transactionMode == null) {
            throw new FlowValidationException("transactionMode must not be null.");
        }
    }

    @Override
    public void receive(String terminal, MessageAssembly assembly, FlowContext context) throws Exception {
        try {
            context.sendTo(provider, destination, assembly, transactionMode);
        } catch (JMSException | RuntimeException e) {
            propagateFailure(assembly, e, context);
            return;
        }
        context.propagate(this, "out", assembly);
    }
}
