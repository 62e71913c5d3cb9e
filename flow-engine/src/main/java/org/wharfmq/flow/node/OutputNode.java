package org.wharfmq.flow.node;

import org.wharfmq.flow.ExceptionList;
import org.wharfmq.flow.FlowContext;
import org.wharfmq.flow.FlowMessage;
import org.wharfmq.flow.FlowValidationException;
import org.wharfmq.flow.MessageAssembly;
import org.wharfmq.flow.Node;
import org.wharfmq.flow.TransactionMode;

import javax.jms.Destination;
import javax.jms.JMSException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Sends the message: to a named queue, to the message's {@code JMSReplyTo}, or to every queue in the
 * LocalEnvironment's destination list. After a successful send the assembly goes on to {@code out}; a failed
 * send goes to {@code failure} if wired, else fails the path.
 *
 * <p>A reply carries the input message's JMSMessageID as its JMSCorrelationID (the IBM MQ convention requesters
 * select on). Transaction mode AUTOMATIC (the default) follows the flow; YES or NO override it for this node.
 */
public final class OutputNode extends Node {

    /** Where an Output node sends. */
    public enum Mode {
        /** A named queue. */
        QUEUE,
        /** The message's JMSReplyTo. */
        REPLY_TO,
        /** Each queue in the LocalEnvironment's destination list. */
        DESTINATION_LIST
    }

    private final Mode mode;
    private final String queue;
    private TransactionMode transactionMode = TransactionMode.AUTOMATIC;

    private OutputNode(Mode mode, String queue) {
        super("Output", List.of("in"), List.of("out", "failure"));
        this.mode = mode;
        this.queue = queue;
    }

    /** Sends to a queue. */
    public static OutputNode queue(String queue) {
        return new OutputNode(Mode.QUEUE, queue);
    }

    /** Sends to the message's JMSReplyTo. */
    public static OutputNode replyTo() {
        return new OutputNode(Mode.REPLY_TO, null);
    }

    /** Sends to each queue of the LocalEnvironment's destination list. */
    public static OutputNode destinationList() {
        return new OutputNode(Mode.DESTINATION_LIST, null);
    }

    /** Overrides the flow's transaction control for this node's sends (AUTOMATIC follows the flow). */
    public OutputNode transactionMode(TransactionMode mode) {
        this.transactionMode = mode;
        return this;
    }

    @Override
    public Map<String, Object> properties() {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("mode", mode);
        if (queue != null) {
            p.put("queue", queue);
        }
        p.put("transactionMode", transactionMode);
        return p;
    }

    @Override
    protected void validate() {
        if (mode == Mode.QUEUE && (queue == null || queue.isBlank())) {
            throw new FlowValidationException("an Output node in queue mode needs a queue name.");
        }
        if (transactionMode == null) {
            throw new FlowValidationException("transactionMode must not be null.");
        }
    }

    @Override
    public void receive(String terminal, MessageAssembly assembly, FlowContext context) throws Exception {
        try {
            switch (mode) {
                case QUEUE -> context.send(assembly, context.queue(queue), transactionMode);
                case REPLY_TO -> sendReply(assembly, context);
                case DESTINATION_LIST -> {
                    for (String destination : assembly.destinations()) {
                        context.send(assembly, context.queue(destination), transactionMode);
                    }
                }
            }
        } catch (JMSException | RuntimeException e) {
            propagateFailure(assembly, e, context);
            return;
        }
        context.propagate(this, "out", assembly);
    }

    private void sendReply(MessageAssembly assembly, FlowContext context) throws JMSException {
        Object replyTo = assembly.message().headers().get(FlowMessage.JMS_REPLY_TO);
        if (!(replyTo instanceof Destination destination)) {
            throw new JMSException("Output node '" + name() + "' sends replies, but the message has no JMSReplyTo.");
        }
        MessageAssembly reply = assembly;
        String requestId = assembly.message().messageId();
        if (requestId != null && !requestId.equals(assembly.message().correlationId())) {
            reply = assembly.copy();
            reply.message().setCorrelationId(requestId);
        }
        context.send(reply, destination, transactionMode);
    }
}
