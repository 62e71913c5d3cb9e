package org.wharfmq.flow.runtime;

import javax.jms.JMSException;
import javax.jms.MessageConsumer;
import javax.jms.Session;

/**
 * How a flow's non-transactional reader of a queue takes its messages from its host's provider: over JMS, a consumer
 * of the reader's plain session ({@link #JMS}, any provider); in the flow host, inside the queue manager, with no
 * connection in between (docs/architecture.md, "Flows"). Either way each message is consumed as it is received
 * (AUTO_ACKNOWLEDGE: transaction mode NO), and the consumer is the reader thread's alone, closed by it.
 */
@FunctionalInterface
public interface QueueConsumers {

    /** A consumer of the reader's plain session. */
    QueueConsumers JMS = (flow, plain, queue, selector, mayBlock) -> plain.createConsumer(plain.createQueue(queue),
            selector);

    /**
     * A consumer of queue {@code queue} for a reader of flow {@code flow}, taking what {@code selector} (null: all)
     * selects, each message consumed as {@link MessageConsumer#receive(long)} returns it.
     *
     * @param plain the reader's plain (AUTO_ACKNOWLEDGE) session on the host's provider
     * @param mayBlock whether the flow's invocations may block in a node ({@code FlowDefinition.mayBlock}: a database,
     *                 HTTP, file or JMS node); the flow host defers the reader's wakes of event loops only then
     * @throws JMSException why it was refused (the flow's user may not receive from the queue ...)
     */
    MessageConsumer open(String flow, Session plain, String queue, String selector, boolean mayBlock)
            throws JMSException;
}
