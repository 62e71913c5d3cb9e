package org.wharfmq.flow.node;

import org.wharfmq.flow.Domain;
import org.wharfmq.flow.FlowContext;
import org.wharfmq.flow.FlowValidationException;
import org.wharfmq.flow.MessageAssembly;
import org.wharfmq.flow.Node;
import org.wharfmq.flow.OpaqueElements;
import org.wharfmq.flow.ParseTiming;
import org.wharfmq.flow.TransactionMode;
import org.wharfmq.flow.XmlSchema;
import org.wharfmq.flow.records.RecordFormat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where messages enter a flow: a queue, or a topic subscription. Each instance of the flow reads with its own
 * session and propagates each message to {@code out}.
 *
 * <p>Settings: the body's {@link Domain} (default BLOB), the {@link TransactionMode} (default YES, as MQInput),
 * the backout threshold (how many deliveries a failing message gets, default 3) and an optional backout queue.
 * A message whose delivery count passes the threshold goes to the {@code failure} terminal if wired, else to the
 * backout queue if set, else to {@code SYSTEM.DEAD.LETTER.QUEUE}, carrying its ExceptionList.
 *
 * <p>With {@link #validate(XmlSchema)}, every message is checked against an XML Schema before it enters the flow
 * ("Validate on input"); an invalid message fails its invocation and takes the backout path with the reason.
 */
public final class InputNode extends ReadingNode<InputNode> {

    private final String queue;
    private final String topic;
    private String backoutQueue;
    private String selector;
    private XmlSchema schema;
    private OpaqueElements opaque;
    private ParseTiming parseTiming = ParseTiming.COMPLETE;
    private RecordFormat recordFormat;

    private InputNode(String queue, String topic) {
        super("Input", List.of(), List.of("out", "failure"));
        this.queue = queue;
        this.topic = topic;
    }

    /** Reads from a queue. */
    public static InputNode queue(String queue) {
        return new InputNode(queue, null);
    }

    /**
     * Reads from a non-durable subscription to a topic (a filter: {@code +} and {@code #} wildcards allowed). The
     * flow's instances share one subscription (JMS 2.0 shared consumer), so each publication is processed once.
     */
    public static InputNode topic(String topic) {
        return new InputNode(null, topic);
    }

    /** Sets the queue failing messages go to when the failure terminal is not wired. */
    public InputNode backoutQueue(String backoutQueue) {
        this.backoutQueue = backoutQueue;
        return this;
    }

    /** Sets a JMS message selector: only matching messages enter the flow. */
    public InputNode selector(String selector) {
        this.selector = selector;
        return this;
    }

    /**
     * Validates every input message against {@code schema} before it is propagated; implies the XML domain. An
     * invalid message is not retried in vain: it goes straight to the failure terminal, else the backout queue,
     * else the dead-letter queue, with the schema's reason in its ExceptionList.
     */
    public InputNode validate(XmlSchema schema) {
        this.schema = schema;
        domain(Domain.XML);
        return this;
    }

    /**
     * Parses the content of the elements at these absolute paths opaquely ({@link OpaqueElements}): the tree has
     * them empty, at a fraction of a full parse's cost; the message leaves with them intact. Implies the XML
     * domain.
     *
     * @throws IllegalArgumentException for a path that is not of the form {@code /Name/Name...}
     */
    public InputNode opaque(String... paths) {
        this.opaque = OpaqueElements.of(paths);
        domain(Domain.XML);
        return this;
    }

    /**
     * When the XML body is parsed ({@link ParseTiming}; default COMPLETE). With ON_DEMAND a filter or route on an
     * element near the start of a large message reads only the bytes before it. Implies the XML domain.
     */
    public InputNode parseTiming(ParseTiming timing) {
        this.parseTiming = timing;
        domain(Domain.XML);
        return this;
    }

    /**
     * Lays every body out in {@code format} (delimited or fixed-length records): the RECORDS domain, parsed on first
     * use into {@code message().records()}.
     */
    public InputNode records(RecordFormat format) {
        this.recordFormat = format;
        domain(Domain.RECORDS);
        return this;
    }

    /** The record format of a RECORDS input, or null. */
    public RecordFormat recordFormat() {
        return recordFormat;
    }

    /** When the XML body is parsed. */
    public ParseTiming parseTiming() {
        return parseTiming;
    }

    /** The elements parsed opaquely, or null. */
    public OpaqueElements opaqueElements() {
        return opaque;
    }

    /** The schema input messages are validated against, or null. */
    public XmlSchema schema() {
        return schema;
    }

    /** The queue read, or null for a topic. */
    public String queueName() {
        return queue;
    }

    /** The topic subscribed to, or null for a queue. */
    public String topicName() {
        return topic;
    }

    /** The backout queue, or null. */
    public String backoutQueue() {
        return backoutQueue;
    }

    /** The selector, or null. */
    public String selector() {
        return selector;
    }

    @Override
    public Map<String, Object> properties() {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put(queue != null ? "queue" : "topic", queue != null ? queue : topic);
        p.put("domain", domain());
        p.put("transactionMode", transactionMode());
        p.put("backoutThreshold", backoutThreshold());
        if (backoutQueue != null) {
            p.put("backoutQueue", backoutQueue);
        }
        if (selector != null) {
            p.put("selector", selector);
        }
        if (schema != null) {
            p.put("validate", schema.name());
        }
        if (recordFormat != null) {
            p.put("records", recordFormat);
        }
        if (opaque != null) {
            p.put("opaque", opaque.toString());
        }
        if (parseTiming != ParseTiming.COMPLETE) {
            p.put("parseTiming", parseTiming);
        }
        return p;
    }

    @Override
    protected void validate() {
        if ((queue == null || queue.isBlank()) && (topic == null || topic.isBlank())) {
            throw new FlowValidationException("an Input node needs a queue or a topic.");
        }
        validateReading();
        if (parseTiming == null) {
            throw new FlowValidationException("an Input node's parseTiming must not be null.");
        }
        Domain domain = domain();
        if (parseTiming != ParseTiming.COMPLETE && domain != Domain.XML) {
            throw new FlowValidationException("an Input node parses " + parseTiming + " only in the XML domain, "
                    + "but its domain is " + domain + ".");
        }
        if (opaque != null && domain != Domain.XML) {
            throw new FlowValidationException("an Input node parses " + opaque + " opaquely only in the XML domain, "
                    + "but its domain is " + domain + ".");
        }
        if (schema != null && domain != Domain.XML) {
            throw new FlowValidationException("an Input node validates against " + schema.name() + " only in the XML "
                    + "domain, but its domain is " + domain + ".");
        }
        if ((domain == Domain.RECORDS) != (recordFormat != null)) {
            throw new FlowValidationException(recordFormat == null
                    ? "an Input node in the RECORDS domain needs the records' layout: records(format)."
                    : "an Input node lays records out in " + recordFormat + " only in the RECORDS domain, but its "
                    + "domain is " + domain + ": set records(format) last, or drop domain(" + domain + ").");
        }
    }

    /** Propagates a message the runtime read to {@code out}. */
    @Override
    public void receive(String terminal, MessageAssembly assembly, FlowContext context) throws Exception {
        context.propagate(this, terminal, assembly);
    }
}
