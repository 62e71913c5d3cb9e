package org.wharfmq.flow.node;

import org.wharfmq.flow.Domain;
import org.wharfmq.flow.FlowContext;
import org.wharfmq.flow.FlowValidationException;
import org.wharfmq.flow.MessageAssembly;
import org.wharfmq.flow.Node;
import org.wharfmq.flow.TransactionMode;

import java.time.Duration;
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
 *
 * <p>Idle, each read waits up to {@link #receiveTimeout(Duration) receiveTimeout} for a message. On a provider with
 * {@code xa: true} each read is in an XA transaction of its own until a message comes, so an idle instance begins and
 * rolls back one empty transaction on the provider per receiveTimeout; stopping the flow ends the wait at once.
 */
public final class JmsInputNode extends ReadingNode<JmsInputNode> {

    /**
     * How long a read waits for a message by default, in s: {@value}. The flow's transaction on an XA provider begins
     * before the read, so an idle instance's empty transactions come one per 5 s, and an invocation whose message came
     * at the end of the wait still has 55 s of the transaction manager's 60 before its transaction times out.
     */
    public static final int DEFAULT_RECEIVE_TIMEOUT_SECONDS = 5;

    /** The shortest receiveTimeout: {@value} ms (how long a busy reader's read waits before it is idle). */
    public static final long MIN_RECEIVE_TIMEOUT_MILLIS = 100;

    /**
     * The longest receiveTimeout: {@value} s, half the transaction manager's timeout (60 s), which counts the wait of
     * an XA read as part of the invocation's transaction.
     */
    public static final int MAX_RECEIVE_TIMEOUT_SECONDS = 30;

    private final String provider;
    private final String destination;
    private String selector;
    private Duration receiveTimeout = Duration.ofSeconds(DEFAULT_RECEIVE_TIMEOUT_SECONDS);

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

    /**
     * How long a read waits for a message before it ends (default 5 s, from 100 ms to 30 s). On an {@code xa: true}
     * provider an idle instance begins and rolls back one empty XA transaction per receiveTimeout (each on the provider:
     * its transaction timeout set, XA start, end and rollback); a shorter one costs more of them, a longer one leaves
     * an invocation less of the transaction manager's 60 s, as its transaction begins before the wait. The flow's
     * stop ends a wait at once, whatever its length.
     */
    public JmsInputNode receiveTimeout(Duration timeout) {
        this.receiveTimeout = timeout;
        return this;
    }

    /** How long a read waits for a message. */
    public Duration receiveTimeout() {
        return receiveTimeout;
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
        p.put("receiveTimeout", receiveTimeout);
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
        if (receiveTimeout == null || receiveTimeout.toMillis() < MIN_RECEIVE_TIMEOUT_MILLIS
                || receiveTimeout.compareTo(Duration.ofSeconds(MAX_RECEIVE_TIMEOUT_SECONDS)) > 0) {
            throw new FlowValidationException("a JMSInput node's receiveTimeout is from " + MIN_RECEIVE_TIMEOUT_MILLIS
                    + " ms to " + MAX_RECEIVE_TIMEOUT_SECONDS + " s (how long an idle read waits for a message; on an "
                    + "xa: true provider, within the read's XA transaction), not "
                    + (receiveTimeout == null ? "none" : receiveTimeout.toMillis() + " ms") + ".");
        }
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
