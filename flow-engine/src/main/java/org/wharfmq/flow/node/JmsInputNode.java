package org.wharfmq.flow.node;

import org.wharfmq.flow.Domain;
import org.wharfmq.flow.FlowContext;
import org.wharfmq.flow.FlowValidationException;
import org.wharfmq.flow.MessageAssembly;
import org.wharfmq.flow.Node;
import org.wharfmq.flow.TransactionMode;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where messages from another JMS provider enter a flow: a destination of a provider configured under
 * {@code jmsProviders:} (its connection factory and destinations come from JNDI; docs/flows.md, "Other JMS
 * providers"). Each instance of the flow reads with its own connection to the provider and propagates each message to
 * {@code out}.
 *
 * <p>Transactional (YES, the default): the provider's session is transacted; the invocation's work on Wharf (and its
 * database work) commits first, then the provider's session, so a crash between the two gives the message again (a
 * duplicate, never a loss). A failure rolls both back and the provider delivers the message again, until its delivery
 * count passes the backout threshold: then it goes to the {@code failure} terminal if wired, else to Wharf's
 * {@code SYSTEM.DEAD.LETTER.QUEUE}, carrying its ExceptionList. Non-transactional (NO): the message is acknowledged
 * when read and a failure sends it down the backout path at once.
 */
public final class JmsInputNode extends ReadingNode<JmsInputNode> {

    private final String provider;
    private final String destination;
    private String selector;

    private JmsInputNode(String provider, String destination) {
        super("JMSInput", List.of(), List.of("out", "failure"));
        this.provider = provider;
        this.destination = destination;
    }

    /**
     * Reads from {@code destination} (its JNDI name) of the provider {@code provider} (its name under
     * {@code jmsProviders:}).
     */
    public static JmsInputNode from(String provider, String destination) {
        return new JmsInputNode(provider, destination);
    }

    /** Sets a JMS message selector, evaluated by the provider: only matching messages enter the flow. */
    public JmsInputNode selector(String selector) {
        this.selector = selector;
        return this;
    }

    /** The provider's name under {@code jmsProviders:}. */
    public String provider() {
        return provider;
    }

    /** The JNDI name of the destination read. */
    public String destination() {
        return destination;
    }

    /** The message selector, or null. */
    public String selector() {
        return selector;
    }

    @Override
    public Map<String, Object> properties() {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("provider", provider);
        p.put("destination", destination);
        p.put("domain", domain());
        p.put("transactionMode", transactionMode());
        p.put("backoutThreshold", backoutThreshold());
        if (selector != null) {
            p.put("selector", selector);
        }
        return p;
    }

    @Override
    protected void validate() {
        if (provider == null || provider.isBlank()) {
            throw new FlowValidationException("a JMSInput node needs the name of a JMS provider (jmsProviders:).");
        }
        if (destination == null || destination.isBlank()) {
            throw new FlowValidationException("a JMSInput node needs the JNDI name of a destination.");
        }
        validateReading();
        if (transactionMode() != TransactionMode.YES && transactionMode() != TransactionMode.NO) {
            throw new FlowValidationException("a JMSInput node's transactionMode is YES or NO, not " + transactionMode()
                    + " (the other provider's messages carry no persistence Wharf could follow).");
        }
    }

    /** Not called: the runtime reads the provider and propagates from this node. */
    @Override
    public void receive(String terminal, MessageAssembly assembly, FlowContext context) throws Exception {
        context.propagate(this, "out", assembly);
    }
}
