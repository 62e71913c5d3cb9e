package org.wharfmq.flow.node;

import org.wharfmq.flow.FlowContext;
import org.wharfmq.flow.FlowMessage;
import org.wharfmq.flow.FlowValidationException;
import org.wharfmq.flow.MessageAssembly;
import org.wharfmq.flow.Node;
import org.wharfmq.flow.TransactionMode;

import javax.jms.JMSException;
import java.util.List;
import java.util.Map;

/**
 * Publishes the message on a topic: the one configured, else the {@code Topic} field of the message's properties.
 * Then propagates to {@code out}. A publication that no subscription matches is not an error.
 */
public final class PublicationNode extends Node {

    private final String topic;

    /** Publishes on {@code topic}; null takes the topic from the message's properties. */
    public PublicationNode(String topic) {
        super("Publication", List.of("in"), List.of("out"));
        this.topic = topic;
    }

    @Override
    public Map<String, Object> properties() {
        return topic == null ? Map.of() : Map.of("topic", topic);
    }

    @Override
    protected void validate() {
        if (topic != null && topic.isBlank()) {
            throw new FlowValidationException("a Publication node's topic must not be blank (null takes it from the message).");
        }
    }

    @Override
    public void receive(String terminal, MessageAssembly assembly, FlowContext context) throws Exception {
        String name = topic != null ? topic : assembly.message().properties().getString(FlowMessage.TOPIC);
        if (name == null) {
            throw new JMSException("Publication node '" + name() + "' has no topic and the message's properties name none.");
        }
        context.send(assembly, context.topic(name), TransactionMode.AUTOMATIC);
        context.propagate(this, "out", assembly);
    }
}
