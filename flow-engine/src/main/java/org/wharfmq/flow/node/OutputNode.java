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
import javax.jms.Queue;
import javax.jms.Topic;
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
 *
 * <p>A JMSReplyTo, and a destination list, may have come from whoever sent the message, and the node sends with the
 * flow's authority (by default the queue manager's own, which may do everything), not the sender's. So a destination
 * one of them names that is the queue manager's own, a {@code SYSTEM.*} queue (here or, {@code QM2/SYSTEM.X}, on
 * another queue manager) or a {@code $SYS} topic, goes to {@code failure} unsent: else a message's sender could have
 * the flow put an admin command on {@code SYSTEM.ADMIN.COMMAND.QUEUE}, a forged record on a channel's sync queue or a
 * forged event on {@code $SYS/EVENTS}. A flow sends to such a queue only where its definition names it
 * ({@link #queue}).
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
                        refuseSystem("queue", destination, "the LocalEnvironment's destination list");
                    }
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

    /**
     * Refuses a destination that a message could have named ({@code where}) when it is the queue manager's own: a
     * {@code SYSTEM.*} queue, here or on another queue manager, or a {@code $SYS} topic.
     *
     * @throws IllegalArgumentException naming the destination, where it came from, why and the fix
     */
    private void refuseSystem(String kind, String name, String where) {
        boolean system = kind.equals("queue")
                ? name.substring(name.lastIndexOf('/') + 1).startsWith("SYSTEM.")
                : name.equals("$SYS") || name.startsWith("$SYS/");
        if (system) {
            throw new IllegalArgumentException("Output node '" + name() + "' refuses to send to " + kind + " '" + name
                    + "', which " + where + " names: it is the queue manager's own (" + (kind.equals("queue")
                    ? "a SYSTEM.* queue" : "a $SYS topic") + "), and whoever sent the message could have chosen it, to"
                    + " have the flow act there with its authority (an admin command, a forged record or event). A flow"
                    + " sends there only where its definition names the queue: OutputNode.queue(\"" + name + "\").");
        }
    }

    private void sendReply(MessageAssembly assembly, FlowContext context) throws JMSException {
        Object replyTo = assembly.message().headers().get(FlowMessage.JMS_REPLY_TO);
        if (!(replyTo instanceof Destination destination)) {
            throw new JMSException("Output node '" + name() + "' sends replies, but the message has no JMSReplyTo.");
        }
        if (destination instanceof Queue q) {
            refuseSystem("queue", q.getQueueName(), "the message's JMSReplyTo");
        } else if (destination instanceof Topic t) {
            refuseSystem("topic", t.getTopicName(), "the message's JMSReplyTo");
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
