package org.wharfmq.perf.flow;

import org.wharfmq.flow.FlowDefinition;
import org.wharfmq.flow.FlowFactory;
import org.wharfmq.flow.TransactionMode;
import org.wharfmq.flow.node.JmsInputNode;
import org.wharfmq.flow.node.JmsOutputNode;
import org.wharfmq.flow.runtime.JmsProvider;
import org.wharfmq.jms.jndi.WharfInitialContextFactory;

import javax.naming.Context;
import java.util.Map;

/**
 * F-JMS: JMSInput → JMSOutput, both on another JMS provider (seed 002, "Receiving and sending JMS Messages": the
 * JMSInput node reads a queue of the provider and the JMSOutput node sends the same message to another queue of the
 * same provider). The provider is a second Wharf server, reached through Wharf's JMS client and its JNDI
 * ({@link #provider}); the requesters put their requests on its {@value #INPUT_QUEUE} and take the outputs from its
 * {@value #OUTPUT_QUEUE}, by correlation id, as for the other flows. The flow's own server carries none of the
 * messages.
 *
 * <p>Non-persistent runs read without a transaction (a message leaves the provider when read), as the seed's
 * non-persistent rows did; persistent runs (F-PERSIST) read in the provider's transacted session, the send to the
 * provider committed before the read (docs/flows.md, "Other JMS providers").
 */
public final class JmsFlow implements FlowFactory {

    /** The flow's name. */
    public static final String NAME = "F-JMS";
    /** The provider's queue the requesters put the input on. */
    public static final String INPUT_QUEUE = "F.JMS.IN";
    /** The provider's queue the requesters take the outputs from. */
    public static final String OUTPUT_QUEUE = "F.JMS.OUT";
    /** The provider's name under the flow host's {@code jmsProviders:}. */
    static final String PROVIDER = "perf-provider";
    private static final String INPUT_NAME = "perfIn";
    private static final String OUTPUT_NAME = "perfOut";

    private final boolean persistent;

    /** @param persistent whether the run's messages are persistent (the input is then read in a transaction) */
    public JmsFlow(boolean persistent) {
        this.persistent = persistent;
    }

    /** The other provider, the Wharf server at {@code url}, as the flow host's {@code jmsProviders:} entry says it. */
    public static JmsProvider provider(String url) {
        return new JmsProvider(PROVIDER, Map.of(
                Context.INITIAL_CONTEXT_FACTORY, WharfInitialContextFactory.class.getName(),
                Context.PROVIDER_URL, url,
                WharfInitialContextFactory.QUEUE_PREFIX + INPUT_NAME, INPUT_QUEUE,
                WharfInitialContextFactory.QUEUE_PREFIX + OUTPUT_NAME, OUTPUT_QUEUE), null, null, null);
    }

    @Override
    public FlowDefinition create() {
        return FlowDefinition.builder(NAME)
                .node("in", JmsInputNode.from(PROVIDER, INPUT_NAME)
                        .transactionMode(persistent ? TransactionMode.YES : TransactionMode.NO))
                .node("out", JmsOutputNode.to(PROVIDER, OUTPUT_NAME))
                .wire("in", "out", "out")
                .build();
    }

    /**
     * The ceiling, a plain JMS loop with no flow engine ({@link JmsLoop}): the message sent on as it came.
     *
     * @param persistent whether the messages are persistent and the flow's part transacted
     */
    static JmsLoop loop(boolean persistent) {
        return new JmsLoop(INPUT_QUEUE, OUTPUT_QUEUE, persistent, JmsLoop.FlowWork.PASS_ON);
    }
}
